import type { Command } from 'commander';
import type { CliIo } from '../context.ts';
import { registerApiKey } from './apikey.ts';
import { registerAudit } from './audit.ts';
import { registerImport } from './import.ts';
import { registerMigrate } from './migrate.ts';
import { registerPanel } from './panel.ts';
import { registerProjections } from './projections.ts';
import { registerReplay } from './replay.ts';
import { registerServe } from './serve.ts';
import { registerWebhook } from './webhook.ts';

export function registerCommands(program: Command, io: CliIo): void {
  registerServe(program, io);
  registerMigrate(program, io);
  registerImport(program, io);
  registerApiKey(program, io);
  registerProjections(program, io);
  registerReplay(program, io);
  registerAudit(program, io);
  registerPanel(program, io);
  registerWebhook(program, io);
}
