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
 * SQL as it was applied: the event store (events, streams, record ids, the append functions, the
 * hash chain), the reference data, the API keys, the projections' checkpoints, the panel, the
 * idempotency records and the webhooks. Each owner starts from a baseline, the schema as it stood
 * at the first release (versions 1 to 6 and the webhooks' 40); a change is a new migration under a
 * free number above those applied. Versions are one rising sequence across owners. The schema
 * they build together is test/integration/db/__snapshots__/schema.txt: a migration changes it.
 */
export const migrations: Migration[] = [
  ...eventStoreMigrations,
  ...referenceMigrations,
  ...apiKeyMigrations,
  ...projectionMigrations,
  ...panelMigrations,
  ...idempotencyMigrations,
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
      const recorded = (await conn.query<{ version: number; name: string }>('SELECT version, name FROM schema_migrations')).rows;
      const done = new Set(recorded.map((r) => Number(r.version)));
      refuseOtherMigrations(recorded, list);
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

/**
 * A version recorded under another name was another migration: the database was built by a chain
 * this service no longer has (the migrations made before the first release, squashed since into
 * the baselines). Applying what follows on top would leave it half one schema, half the other.
 */
function refuseOtherMigrations(recorded: { version: number; name: string }[], list: Migration[]): void {
  const names = new Map(list.map((m) => [m.version, m.name]));
  for (const r of recorded) {
    const name = names.get(Number(r.version));
    if (name !== undefined && name !== r.name)
      throw new Error(
        `the database applied migration ${r.version} as "${r.name}", which this service knows as "${name}": ` +
          'it was built by migrations replaced since: create it again',
      );
  }
}
