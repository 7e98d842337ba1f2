import type { Command } from 'commander';
import type { CliIo } from '../context.ts';
import { registerMigrate } from './migrate.ts';

export function registerCommands(program: Command, io: CliIo): void {
  registerMigrate(program, io);
}
