import type { Queryable } from '../db/types.ts';

/**
 * A read model table's columns, stated once, in order: name to SQL type (one word) followed by
 * its constraints (`NOT NULL`, a `CHECK`). The table is created from it (columnDefinitions), rows
 * are written by it (insertRows) and queries select by it (selectList).
 */
export type Columns = Readonly<Record<string, string>>;

/** The type a column's values are cast to: `bigint` of `bigint NOT NULL`. */
const sqlType = (definition: string): string => definition.split(' ')[0]!;

/** The column definitions of a CREATE TABLE, aligned. */
export function columnDefinitions(columns: Columns): string {
  const width = Math.max(...Object.keys(columns).map((c) => c.length));
  return Object.entries(columns)
    .map(([c, d]) => `        ${c.padEnd(width)} ${d}`)
    .join(',\n');
}

/**
 * The columns of a SELECT, under a table alias (or none): times as ISO strings in UTC with
 * milliseconds, the way the events carry them; dates come back as YYYY-MM-DD on both databases.
 */
export function selectList(columns: Columns, alias?: string): string {
  return Object.entries(columns)
    .map(([c, d]) => {
      const col = alias ? `${alias}.${c}` : c;
      return sqlType(d) === 'timestamptz' ? `${isoSql(col)} AS ${c}` : col;
    })
    .join(', ');
}

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
  const values = names.map((n, i) => (sqlType(columns[n]!) === 'jsonb' ? `e->${i}` : `(e->>${i})::${sqlType(columns[n]!)}`)).join(', ');
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

/** The column names, in order, for an INSERT's list. */
export const columnNames = (columns: Columns): string => Object.keys(columns).join(', ');

/** `SET a = EXCLUDED.a, ...` for every column but the key ones. */
export function updateAllBut(columns: Columns, keys: readonly string[]): string {
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

/**
 * An ISO time in UTC with at most milliseconds: for these, PostgreSQL's reading and timestamp()'s
 * agree to the millisecond (seconds stop at 59: PostgreSQL takes a 60th, JavaScript does not).
 */
const CANONICAL_TIME = String.raw`^\d{4}-(0[1-9]|1[0-2])-(0[1-9]|[12]\d|3[01])T([01]\d|2[0-3]):[0-5]\d:[0-5]\d(\.\d{1,3})?Z$`;

/**
 * timestamp() in SQL, for Projector.replaySql, over a text expression. Times in the shape
 * toISOString gives, which is how the service writes them, are told by a cheap test of their
 * characters (a regular expression costs microseconds, over a million events); others must match
 * CANONICAL_TIME. Any other (or an impossible one, such as February 30, which JavaScript rolls
 * over) raises invalid_datetime_format or datetime_field_overflow, so that the rebuild hands those
 * read models back to timestamp() itself.
 */
export const timestampSql = (text: string): string => {
  const t = `(${text})`;
  return (
    `CASE WHEN ${t} IS NULL THEN NULL ` +
    `WHEN translate(${t}, '123456789', '000000000') = '0000-00-00T00:00:00.000Z' AND substr(${t}, 18, 1) < '6' THEN ${t}::timestamptz ` +
    `WHEN ${t} ~ '${CANONICAL_TIME}' THEN ${t}::timestamptz ` +
    `ELSE ('not a canonical time: ' || ${t})::timestamptz END`
  );
};

/**
 * For Projector.replaySql: the events of these types in the log up to the rebuild's position
 * ($1 commit as text, $2 prepare), under the alias `e`, with `join` (lateral functions of e).
 */
export const loggedEvents = (types: readonly string[], join = ''): string =>
  `events e ${join} WHERE e.type IN (${types.map((t) => `'${t}'`).join(', ')}) AND (e.tx_id, e.position) <= ($1::text::xid8, $2::bigint)`;

/** Latest first, in the order of the log: for DISTINCT ON over a key, the last word on it. */
export const LATEST_FIRST = 'e.tx_id DESC, e.position DESC';

/** SQL rendering a timestamptz column as an ISO string in UTC with milliseconds. */
export const isoSql = (col: string): string => `to_char(${col} AT TIME ZONE 'UTC', 'YYYY-MM-DD"T"HH24:MI:SS.MS"Z"')`;

export const toNumber = (v: unknown): number => Number(v);
export const toNumberOrNull = (v: unknown): number | null => (v === null || v === undefined ? null : Number(v));
