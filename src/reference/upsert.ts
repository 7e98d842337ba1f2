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

/**
 * Upserts every row of a table of the target's columns (the staged rows of an import), in the
 * order of its `idx` column, in one statement.
 */
export async function upsertFromTable(tx: Queryable, target: UpsertTarget, table: string): Promise<UpsertCounts> {
  const r = await tx.query<{ inserted: number; updated: number }>(statement(target, `${table} u ORDER BY u.idx`));
  return { inserted: Number(r.rows[0]?.inserted ?? 0), updated: Number(r.rows[0]?.updated ?? 0) };
}
