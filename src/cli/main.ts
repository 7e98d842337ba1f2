import { Command, CommanderError } from 'commander';
import { ConfigError } from '../config/config.ts';
import { DataDirInUse } from '../db/dir-lock.ts';
import { CliError, processIo, type CliIo } from './context.ts';
import { registerCommands } from './commands/index.ts';

/** Shown after the commands by `--help`: a first session, and where the settings come from. */
const HELP_AFTER = `
Examples (\`npm run cli -- <command>\` in a clone, \`vacaciones <command>\` once linked):
  npm run cli -- import test/fixtures/reference-data.json
  npm run cli -- apikey create --name nomina --usuario admin@empresa.co
  npm run cli -- serve                      # what npm start runs
  npm run cli -- replay --documento 1020307007
  npm run cli -- audit verify --documento 1020307007
  npm run cli -- panel invite admin@empresa.co
  npm run cli -- <command> --help           # the options of one command

Environment (all of them in docs/operations.md, Configuration):
  DATABASE_URL       PostgreSQL for everything; unset: the embedded database under DATA_DIR
  DATA_DIR           where the embedded database keeps its files (default ./data)
  EVENT_STORE        postgres (default) or kurrentdb, with KURRENTDB_URL
  PORT, HOST         where serve listens (default 3000, 127.0.0.1)
  VACACIONES_TODAY   pins the service's today (YYYY-MM-DD)
  LOG_LEVEL          fatal ... trace, silent (default info)
  TRUST_PROXY        number of proxies in front of serve, or their addresses
  PANEL_URL          the address panel invite links begin with`;

/** The program with the command `argv` names, or with every command when it names none. */
export async function buildProgram(io: CliIo = processIo, argv: readonly string[] = []): Promise<Command> {
  const program = new Command('vacaciones')
    .description('Vacation and contract status service: server and operator commands')
    .exitOverride()
    .configureOutput({ writeOut: (s) => io.out(s.trimEnd()), writeErr: (s) => io.err(s.trimEnd()) });
  await registerCommands(program, io, argv);
  program.addHelpText('after', HELP_AFTER);
  return program;
}

/** Entry point of the `vacaciones` executable: every failure is one line on stderr and exit 1. */
export async function main(argv: string[], io: CliIo = processIo): Promise<void> {
  const program = await buildProgram(io, argv);
  try {
    await program.parseAsync(argv);
  } catch (err) {
    if (err instanceof CommanderError) {
      process.exitCode = err.exitCode;
      return;
    }
    const known = err instanceof CliError || err instanceof ConfigError || err instanceof DataDirInUse;
    const msg = err instanceof Error ? err.message : String(err);
    io.err(`vacaciones: ${known ? msg : `unexpected failure: ${msg}`}`.split('\n')[0]!);
    process.exitCode = 1;
  }
}
