import { CopyLines, copyJson, copyText } from '../db/copy.ts';
import type { Queryable } from '../db/types.ts';

/**
 * A read model table's columns, stated once, in order: name to SQL type (one word) followed by
 * its constraints (`NOT NULL`, a `CHECK`). The table is created from it (columnDefinitions), rows
 * are written by it (insertRows) and queries select by it (selectList).
 */
export type Columns = Readonly<Record<string, string>>;

/** The type a column's values are cast to: `bigint` of `bigint NOT NULL`. */
export const sqlType = (definition: string): string => definition.split(' ')[0]!;

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

/** Rows per COPY: one stream of some megabytes at a time, not the whole of a read model. */
const COPY_CHUNK = 20_000;

/** A column's value as a field of COPY's text format, by the column's type. */
function copyEncoder(definition: string): (v: unknown) => string {
  const type = sqlType(definition);
  if (type === 'json' || type === 'jsonb') return copyJson;
  // Values of these types never hold a character COPY escapes: no need to look.
  if (PLAIN.has(type)) return plainText;
  return copyText;
}

const PLAIN = new Set(['bigint', 'integer', 'smallint', 'boolean', 'date', 'timestamptz', 'uuid']);
const plainText = (v: unknown): string => (v === null || v === undefined ? '\\N' : v === true ? 't' : v === false ? 'f' : String(v));

/**
 * Writes rows into a table that holds none of their keys, by COPY where the database offers it
 * (a rebuild's bulk load: some times cheaper for the server than reading JSON), else insertRows.
 */
export async function copyRows(q: Queryable, table: string, columns: Columns, rows: readonly Record<string, unknown>[]): Promise<void> {
  if (rows.length === 0) return;
  if (!q.copyFrom) return insertRows(q, table, columns, rows);
  const names = Object.keys(columns);
  const line = lineEncoder(columns);
  for (let i = 0; i < rows.length; i += COPY_CHUNK) {
    const lines = new CopyLines();
    const end = Math.min(rows.length, i + COPY_CHUNK);
    for (let r = i; r < end; r++) lines.add(line(rows[r]!));
    await q.copyFrom(`${table} (${names.join(', ')})`, lines.bytes());
  }
}

/**
 * A row as a line of COPY's text format, by a function made for the columns: each read by its
 * name where it stands, which V8 makes a fixed-offset read of the row's shape. A loop over the
 * names reads every one by a lookup, and was a tenth of a rebuild. The names are the read
 * model's own column names, never data.
 */
function lineEncoder(columns: Columns): (row: Record<string, unknown>) => string {
  const made = lineEncoders.get(columns);
  if (made) return made;
  const names = Object.keys(columns);
  if (!names.every((n) => /^[a-z_][a-z0-9_]*$/.test(n))) throw new Error(`not a column name among ${names.join(', ')}`);
  const encoders = names.map((n) => copyEncoder(columns[n]!));
  const body = `return ${names.map((n, i) => `e[${i}](r.${n})`).join(" + '\\t' + ")};`;
  const make = new Function('e', 'r', body) as (e: readonly ((v: unknown) => string)[], r: Record<string, unknown>) => string;
  const encode = (row: Record<string, unknown>) => make(encoders, row);
  lineEncoders.set(columns, encode);
  return encode;
}

const lineEncoders = new WeakMap<Columns, (row: Record<string, unknown>) => string>();

/**
 * An event's ISO time as something PostgreSQL will take, or null. Payload times are free strings;
 * one PostgreSQL cannot parse must not stall a projection forever.
 */
export function timestamp(s: string | null | undefined): string | null {
  if (!s) return null;
  // The events of one request or one import share their time: read once for all of them.
  if (s === lastTime.in) return lastTime.out;
  const t = Date.parse(s);
  const out = Number.isNaN(t) ? null : new Date(t).toISOString();
  lastTime.in = s;
  lastTime.out = out;
  return out;
}

const lastTime: { in: string | undefined; out: string | null } = { in: undefined, out: null };

/** SQL rendering a timestamptz column as an ISO string in UTC with milliseconds. */
export const isoSql = (col: string): string => `to_char(${col} AT TIME ZONE 'UTC', 'YYYY-MM-DD"T"HH24:MI:SS.MS"Z"')`;

export const toNumber = (v: unknown): number => Number(v);
export const toNumberOrNull = (v: unknown): number | null => (v === null || v === undefined ? null : Number(v));
