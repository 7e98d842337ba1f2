import { apiKeyMigrations } from '../security/migrations.ts';
import { eventStoreMigrations } from '../store/postgres-schema/migrations.ts';
import { idempotencyMigrations } from '../http/idempotency-records.ts';
import { webhookMigrations } from '../integration/webhooks/migrations.ts';
import { panelMigrations } from '../panel/migrations.ts';
import { projectionMigrations } from '../projections/migrations.ts';
import { referenceMigrations } from '../reference/migrations.ts';
import { MIGRATION_LOCK } from './advisory-locks.ts';
import type { Db, Migration } from './types.ts';

export type { Migration } from './types.ts';

/**
 * Every migration of the service, in version order. Each owner of tables keeps its own, with the
 * SQL as it was applied: the event store (events, streams, record ids, the append functions),
 * the reference data, the API keys, the idempotency records, the projections' checkpoints and
 * the panel, the webhooks. Versions are one rising sequence across owners: a new migration takes a
 * free number above those applied.
 */
export const migrations: Migration[] = [
  ...eventStoreMigrations,
  ...referenceMigrations,
  ...apiKeyMigrations,
  ...idempotencyMigrations,
  ...projectionMigrations,
  ...panelMigrations,
  ...webhookMigrations,
].sort((a, b) => a.version - b.version);

// Versions rise without repeats; a gap is allowed, so that work going on at once can take numbers
// far apart (the webhooks' start at 40) and merge without renumbering.
migrations.forEach((m, i) => {
  const before = migrations[i - 1];
  if (before !== undefined && m.version === before.version)
    throw new Error(`two migrations take version ${m.version}: ${before.name} and ${m.name}`);
});

export async function migrate(db: Db, list: Migration[] = migrations): Promise<number[]> {
  return db.withConnection(async (conn) => {
    await conn.query('SELECT pg_advisory_lock($1)', [MIGRATION_LOCK]);
    try {
      await conn.query(`CREATE TABLE IF NOT EXISTS schema_migrations (
        version    integer PRIMARY KEY,
        name       text NOT NULL,
        applied_at timestamptz NOT NULL DEFAULT now()
      )`);
      const done = new Set(
        (await conn.query<{ version: number }>('SELECT version FROM schema_migrations')).rows.map((r) => Number(r.version)),
      );
      const applied: number[] = [];
      for (const m of [...list].sort((a, b) => a.version - b.version)) {
        if (done.has(m.version)) continue;
        await conn.query('BEGIN');
        try {
          await conn.exec(m.sql);
          await conn.query('INSERT INTO schema_migrations (version, name) VALUES ($1, $2)', [m.version, m.name]);
          await conn.query('COMMIT');
        } catch (err) {
          await conn.query('ROLLBACK');
          throw new Error(`migration ${m.version} (${m.name}) failed: ${(err as Error).message}`, { cause: err });
        }
        applied.push(m.version);
      }
      return applied;
    } finally {
      await conn.query('SELECT pg_advisory_unlock($1)', [MIGRATION_LOCK]);
    }
  });
}
