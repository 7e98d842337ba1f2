import { MIGRATION_LOCK } from './advisory-locks.ts';
import type { Db, Migration } from './types.ts';

/**
 * Applies the migrations of `list` the database has not applied, in version order, each in a
 * transaction of its own, under the migration lock (one process migrates at a time). Answers the
 * versions applied. The service's list is composed at the root, src/migrations.ts.
 */
export async function applyMigrations(db: Db, list: Migration[]): Promise<number[]> {
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
