import type { Db, Queryable } from '../../db/types.ts';
import { allProjectors } from '../registry.ts';
import type { Projector } from '../types.ts';
import { PROJECTION_DDL_LOCK } from '../../db/advisory-locks.ts';
import { LOG_TABLE_DDL } from './log-identity.ts';

/** Creates the live read-model tables that are missing, and a START checkpoint for each projector. */
export async function ensureProjectionTables(db: Db, projectors: readonly Projector[] = allProjectors): Promise<void> {
  await db.transaction(async (tx) => {
    // CREATE IF NOT EXISTS still races in the catalog when several instances start at once.
    if (db.kind === 'postgres') await tx.query('SELECT pg_advisory_xact_lock($1)', [PROJECTION_DDL_LOCK]);
    for (const p of projectors) await tx.exec(p.ddl(''));
    await tx.exec(LOG_TABLE_DDL);
    await tx.query(
      `INSERT INTO projection_checkpoints (name, commit_pos, prepare_pos)
       SELECT unnest($1::text[]), 0, 0 ON CONFLICT (name) DO NOTHING`,
      [projectors.map((p) => p.name)],
    );
  });
}

export async function dropTables(q: Queryable, p: Projector, suffix: string): Promise<void> {
  for (const t of p.tables) await q.exec(`DROP TABLE IF EXISTS ${t}${suffix}`);
}

/**
 * Replaces the live tables with the ones built under `suffix`, their constraints and indexes
 * renamed to the live names so that the next rebuild can use the suffix again. Run inside a
 * transaction: readers see either the old tables or the new ones.
 */
export async function swapTables(tx: Queryable, p: Projector, suffix: string): Promise<void> {
  for (const live of p.tables) {
    const built = `${live}${suffix}`;
    await tx.exec(`DROP TABLE IF EXISTS ${live}`);
    await tx.exec(`ALTER TABLE ${built} RENAME TO ${live}`);
    const renamed = (name: string) => `${live}${name.slice(built.length)}`;
    // Constraints first: renaming one backed by an index renames the index too.
    const constraints = await tx.query<{ name: string }>('SELECT conname AS name FROM pg_constraint WHERE conrelid = $1::regclass', [live]);
    for (const { name } of constraints.rows) {
      if (name.startsWith(built)) await tx.exec(`ALTER TABLE ${live} RENAME CONSTRAINT ${name} TO ${renamed(name)}`);
    }
    const indexes = await tx.query<{ name: string }>(
      `SELECT c.relname AS name FROM pg_index i JOIN pg_class c ON c.oid = i.indexrelid WHERE i.indrelid = $1::regclass`,
      [live],
    );
    for (const { name } of indexes.rows) {
      if (name.startsWith(built)) await tx.exec(`ALTER INDEX ${name} RENAME TO ${renamed(name)}`);
    }
  }
}
