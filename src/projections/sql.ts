import type { Queryable } from '../db/types.ts';

/** Column name to SQL type, in insert order. */
export type Columns = Readonly<Record<string, string>>;

const CHUNK = 5000;

/**
 * Inserts many rows with one statement per chunk: one JSON parameter whatever the row count, and
 * the same SQL on PostgreSQL and PGlite. Rows travel as arrays in column order rather than as
 * objects, which keeps the column names out of the payload (a fifth of it for the audit rows).
 * `tail` is the ON CONFLICT clause. Rows must not repeat a conflict key within one call
 * (PostgreSQL refuses to update a row twice in one statement), which is why projectors fold a
 * batch per key first.
 */
export async function insertRows(
  q: Queryable,
  table: string,
  columns: Columns,
  rows: readonly Record<string, unknown>[],
  tail = '',
): Promise<void> {
  if (rows.length === 0) return;
  const names = Object.keys(columns);
  const values = names.map((n, i) => (columns[n] === 'jsonb' ? `e->${i}` : `(e->>${i})::${columns[n]}`)).join(', ');
  const sql = `INSERT INTO ${table} (${names.join(', ')}) SELECT ${values} FROM jsonb_array_elements($1::jsonb) AS e ${tail}`;
  for (let i = 0; i < rows.length; i += CHUNK) {
    const chunk = rows.slice(i, i + CHUNK).map((r) => names.map((n) => r[n] ?? null));
    await q.query(sql, [JSON.stringify(chunk)]);
  }
}

/** insertRows that overwrites the row already under the same key. */
export function upsertRows(
  q: Queryable,
  table: string,
  columns: Columns,
  rows: readonly Record<string, unknown>[],
  keys: readonly string[],
): Promise<void> {
  return insertRows(q, table, columns, rows, `ON CONFLICT (${keys.join(', ')}) DO UPDATE SET ${updateAllBut(columns, keys)}`);
}

/** `SET a = EXCLUDED.a, ...` for every column but the key ones. */
function updateAllBut(columns: Columns, keys: readonly string[]): string {
  return Object.keys(columns)
    .filter((c) => !keys.includes(c))
    .map((c) => `${c} = EXCLUDED.${c}`)
    .join(', ');
}

/**
 * An event's ISO time as something PostgreSQL will take, or null. Payload times are free strings;
 * one PostgreSQL cannot parse must not stall a projection forever.
 */
export function timestamp(s: string | null | undefined): string | null {
  if (!s) return null;
  const t = Date.parse(s);
  return Number.isNaN(t) ? null : new Date(t).toISOString();
}

/** SQL rendering a timestamptz column as an ISO string in UTC with milliseconds. */
export const isoSql = (col: string): string => `to_char(${col} AT TIME ZONE 'UTC', 'YYYY-MM-DD"T"HH24:MI:SS.MS"Z"')`;

export const toNumber = (v: unknown): number => Number(v);
export const toNumberOrNull = (v: unknown): number | null => (v === null || v === undefined ? null : Number(v));
