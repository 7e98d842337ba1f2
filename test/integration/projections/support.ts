import type { Queryable } from '../../../src/db/types.ts';
import { allProjectors } from '../../../src/projections/index.ts';
import { comparePositions, type EventStore, type Position } from '../../../src/store/types.ts';

/** Every read-model table's rows as sorted JSON text: equal dumps mean identical tables. */
export async function dumpTables(q: Queryable, suffix = ''): Promise<Record<string, string[]>> {
  const out: Record<string, string[]> = {};
  for (const p of allProjectors) {
    for (const t of p.tables) {
      const r = await q.query<{ row: string }>(`SELECT to_jsonb(x)::text AS row FROM ${t}${suffix} x ORDER BY 1`);
      out[t] = r.rows.map((x) => x.row);
    }
  }
  return out;
}

/** The read models gone, tables and checkpoints: as before any service ran over the log. */
export async function dropReadModels(q: Queryable): Promise<void> {
  await q.exec(`TRUNCATE projection_checkpoints`);
  for (const p of allProjectors) for (const table of p.tables) await q.exec(`DROP TABLE IF EXISTS ${table}`);
}

/** Row counts per table, for a readable failure before the full comparison. */
export const counts = (dump: Record<string, string[]>): Record<string, number> =>
  Object.fromEntries(Object.entries(dump).map(([t, rows]) => [t, rows.length]));

/**
 * Waits until the store delivers everything up to `p`. On PostgreSQL an event becomes readable
 * only once every older transaction on the server has ended, including other databases' ones.
 */
export async function untilReadable(store: EventStore, p: Position, timeoutMs = 10_000): Promise<void> {
  const deadline = Date.now() + timeoutMs;
  while (comparePositions(await store.headPosition(), p) < 0) {
    if (Date.now() > deadline) throw new Error(`events up to ${p.commit}/${p.prepare} not readable after ${timeoutMs} ms`);
    await new Promise((r) => setTimeout(r, 20));
  }
}
