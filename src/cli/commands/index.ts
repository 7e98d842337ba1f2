import type { Command } from 'commander';
import type { CliIo } from '../context.ts';

type Register = (program: Command, io: CliIo) => void;

/** Each command's module, by the command's name, in the order `--help` lists them. */
const COMMANDS: Record<string, () => Promise<Register>> = {
  serve: async () => (await import('./serve.ts')).registerServe,
  migrate: async () => (await import('./migrate.ts')).registerMigrate,
  import: async () => (await import('./import.ts')).registerImport,
  apikey: async () => (await import('./apikey.ts')).registerApiKey,
  projections: async () => (await import('./projections.ts')).registerProjections,
  replay: async () => (await import('./replay.ts')).registerReplay,
  audit: async () => (await import('./audit.ts')).registerAudit,
  panel: async () => (await import('./panel.ts')).registerPanel,
  webhook: async () => (await import('./webhook.ts')).registerWebhook,
  colectivas: async () => (await import('./closures.ts')).registerClosures,
};

/**
 * Registers the command `argv` names, or all of them when it names none of them (help, a
 * misspelt command for commander to answer). Loading every command's code took most of a
 * command's start: the holiday tables, the schemas and the progress bars that one command
 * needs and another does not.
 */
export async function registerCommands(program: Command, io: CliIo, argv: readonly string[] = []): Promise<void> {
  const first = argv.slice(2).find((a) => !a.startsWith('-'));
  const names = first !== undefined && Object.hasOwn(COMMANDS, first) ? [first] : Object.keys(COMMANDS);
  for (const register of await Promise.all(names.map((n) => COMMANDS[n]!()))) register(program, io);
}
