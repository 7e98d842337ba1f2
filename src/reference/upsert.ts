import type { Queryable } from '../db/types.ts';

export interface UpsertColumn {
  name: string;
  /** PostgreSQL element type the column's values travel as (the parameter is an array of it). */
  type: string;
  /** Expression over `u.<name>` when the travelling value needs converting on the way in. */
  select?: string;
}

export interface UpsertTarget {
  table: string;
  key: string[];
  columns: UpsertColumn[];
}

export interface UpsertCounts {
  inserted: number;
  updated: number;
}

/** The upsert of the rows of `from`, whose columns (under the alias `u`) are the target's. */
function statement(t: UpsertTarget, from: string): string {
  const names = t.columns.map((c) => c.name);
  const rest = names.filter((n) => !t.key.includes(n));
  const select = t.columns.map((c) => c.select ?? `u.${c.name}`).join(', ');
  // The WHERE makes an identical row a no-op: nothing written, nothing returned, nothing counted.
  return `
    WITH written AS (
      INSERT INTO ${t.table} (${names.join(', ')})
      SELECT ${select} FROM ${from}
      ON CONFLICT (${t.key.join(', ')}) DO UPDATE SET ${rest.map((n) => `${n} = EXCLUDED.${n}`).join(', ')}
      WHERE (${rest.map((n) => `${t.table}.${n}`).join(', ')}) IS DISTINCT FROM (${rest.map((n) => `EXCLUDED.${n}`).join(', ')})
      RETURNING (xmax = 0) AS inserted
    )
    SELECT (count(*) FILTER (WHERE inserted))::int AS inserted,
           (count(*) FILTER (WHERE NOT inserted))::int AS updated
    FROM written`;
}

/** Rows per statement: one statement over hundreds of thousands of rows took twice as long. */
const CHUNK_ROWS = 20_000;

/**
 * Upserts every row of a table of the target's columns (the staged rows of an import), in the
 * order of its `idx` column (0, 1, 2...), a chunk of `idx` at a time.
 */
export async function upsertFromTable(tx: Queryable, target: UpsertTarget, table: string, rows: number): Promise<UpsertCounts> {
  const counts: UpsertCounts = { inserted: 0, updated: 0 };
  const sql = statement(target, `${table} u WHERE u.idx >= $1 AND u.idx < $2 ORDER BY u.idx`);
  for (let from = 0; from < rows; from += CHUNK_ROWS) {
    const r = await tx.query<{ inserted: number; updated: number }>(sql, [from, from + CHUNK_ROWS]);
    counts.inserted += Number(r.rows[0]?.inserted ?? 0);
    counts.updated += Number(r.rows[0]?.updated ?? 0);
  }
  return counts;
}
