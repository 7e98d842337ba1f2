import { Command, CommanderError } from 'commander';
import { ConfigError } from '../config/config.ts';
import { CliError, processIo, type CliIo } from './context.ts';
import { registerCommands } from './commands/index.ts';

export function buildProgram(io: CliIo = processIo): Command {
  const program = new Command('vacaciones')
    .description('Vacation and contract status service: server and operator commands')
    .exitOverride()
    .configureOutput({ writeOut: (s) => io.out(s.trimEnd()), writeErr: (s) => io.err(s.trimEnd()) });
  registerCommands(program, io);
  return program;
}

/** Entry point of the `vacaciones` executable: every failure is one line on stderr and exit 1. */
export async function main(argv: string[], io: CliIo = processIo): Promise<void> {
  const program = buildProgram(io);
  try {
    await program.parseAsync(argv);
  } catch (err) {
    if (err instanceof CommanderError) {
      process.exitCode = err.exitCode;
      return;
    }
    const known = err instanceof CliError || err instanceof ConfigError;
    const msg = err instanceof Error ? err.message : String(err);
    io.err(`vacaciones: ${known ? msg : `unexpected failure: ${msg}`}`.split('\n')[0]!);
    process.exitCode = 1;
  }
}
