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

/** One statement per chunk keeps each parameter a few megabytes even for 250k payroll rows. */
const CHUNK_ROWS = 20_000;

function statement(t: UpsertTarget): string {
  const names = t.columns.map((c) => c.name);
  const rest = names.filter((n) => !t.key.includes(n));
  const arrays = t.columns.map((c, i) => `$${i + 1}::${c.type}[]`).join(', ');
  const select = t.columns.map((c) => c.select ?? `u.${c.name}`).join(', ');
  // The WHERE makes an identical row a no-op: nothing written, nothing returned, nothing counted.
  return `
    WITH written AS (
      INSERT INTO ${t.table} (${names.join(', ')})
      SELECT ${select} FROM unnest(${arrays}) AS u(${names.join(', ')})
      ON CONFLICT (${t.key.join(', ')}) DO UPDATE SET ${rest.map((n) => `${n} = EXCLUDED.${n}`).join(', ')}
      WHERE (${rest.map((n) => `${t.table}.${n}`).join(', ')}) IS DISTINCT FROM (${rest.map((n) => `EXCLUDED.${n}`).join(', ')})
      RETURNING (xmax = 0) AS inserted
    )
    SELECT (count(*) FILTER (WHERE inserted))::int AS inserted,
           (count(*) FILTER (WHERE NOT inserted))::int AS updated
    FROM written`;
}

/**
 * Inserts or updates `rows` (each an array of values in column order) by the target's key and
 * counts the rows actually inserted and actually changed.
 */
export async function upsertRows(tx: Queryable, target: UpsertTarget, rows: unknown[][]): Promise<UpsertCounts> {
  const counts: UpsertCounts = { inserted: 0, updated: 0 };
  if (rows.length === 0) return counts;
  const sql = statement(target);
  for (let start = 0; start < rows.length; start += CHUNK_ROWS) {
    const chunk = rows.slice(start, start + CHUNK_ROWS);
    const params = target.columns.map((_, col) => chunk.map((row) => row[col]));
    const r = await tx.query<{ inserted: number; updated: number }>(sql, params);
    counts.inserted += Number(r.rows[0]?.inserted ?? 0);
    counts.updated += Number(r.rows[0]?.updated ?? 0);
  }
  return counts;
}
