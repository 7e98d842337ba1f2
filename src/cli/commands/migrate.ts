import type { Command } from 'commander';
import { migrate } from '../../migrations.ts';
import { withDb, type CliIo } from '../context.ts';

export function registerMigrate(program: Command, io: CliIo): void {
  program
    .command('migrate')
    .description('create or upgrade the database schema (idempotent)')
    .action(async () => {
      await withDb(
        async (db) => {
          const applied = await migrate(db);
          io.out(applied.length ? `applied migrations: ${applied.join(', ')}` : 'schema is up to date');
        },
        { migrate: false },
      );
    });
}
