import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { insertRows, type Columns } from '../../../src/projections/sql.ts';
import { freshDb, type TestDb } from '../../support/db.ts';

/**
 * Live batches write the read models by insertRows. Text that looks like syntax (quotes, braces,
 * commas, backslashes, the word NULL), JSON values that are themselves arrays, and every column
 * type the read models use must come back exactly as written, on either database.
 */
describe('insertRows', () => {
  let t: TestDb;
  const columns: Columns = {
    id: 'bigint NOT NULL',
    n: 'integer',
    flag: 'boolean',
    day: 'date',
    at: 'timestamptz',
    note: 'text',
    loose: 'json',
    strict: 'jsonb',
  };
  const select = `SELECT id, n, flag, to_char(day, 'YYYY-MM-DD') AS day,
      to_char(at AT TIME ZONE 'UTC', 'YYYY-MM-DD"T"HH24:MI:SS.MS"Z"') AS at, note, loose, strict FROM rows_in`;
  type Back = { id: string; n: number | null; flag: boolean | null; day: string | null; at: string | null; note: string | null };

  beforeAll(async () => {
    t = await freshDb({ migrate: false });
    await t.db.exec(
      `CREATE TABLE rows_in (id bigint PRIMARY KEY, n integer, flag boolean, day date, at timestamptz, note text, loose json, strict jsonb)`,
    );
  });
  afterAll(async () => {
    await t?.drop();
  });

  it('writes text shaped like array syntax, JSON arrays and every column type, and reads them back unchanged', async () => {
    const notes = ['NULL', 'null', '', '{1,2}', 'a,b', '"comillas"', 'C:\\nomina\\', 'tab\tand\nline', '{"x": "}"}', 'ñandú € 🏖️', null];
    const rows = notes.map((note, i) => ({
      id: 9_007_199_254_740_000 + i,
      n: i % 3 === 0 ? null : i - 5,
      flag: i % 3 === 0 ? null : i % 2 === 0,
      day: i % 4 === 0 ? null : `2026-12-${String(i + 1).padStart(2, '0')}`,
      at: i % 5 === 0 ? null : `2026-11-28T09:0${i % 10}:00.123Z`,
      note,
      loose: i % 2 === 0 ? [{ a: note }, 'NULL', [1, [2]]] : { note, nested: { list: ['{', '}', ','] } },
      strict: i % 3 === 0 ? null : [note, i],
    }));
    await t.db.transaction((tx) => insertRows(tx, 'rows_in', columns, rows));
    const back = await t.db.query<Back & { loose: unknown; strict: unknown }>(`${select} ORDER BY id`);
    expect(back.rows).toEqual(rows.map((r) => ({ ...r, id: String(r.id) })));
  });

  it('leaves out rows its tail says to, and writes more rows than one statement takes', async () => {
    await t.db.exec('DELETE FROM rows_in');
    const many = Array.from({ length: 12_001 }, (_, i) => ({ id: i, note: `fila ${i}`, loose: [i] }));
    await t.db.transaction((tx) => insertRows(tx, 'rows_in', columns, many));
    const again = [
      { id: 5, note: 'otra', loose: [] },
      { id: 20_000, note: 'nueva', loose: { ok: true } },
    ];
    await t.db.transaction((tx) => insertRows(tx, 'rows_in', columns, again, 'ON CONFLICT (id) DO NOTHING'));
    const count = await t.db.query<{ n: number }>('SELECT count(*)::int AS n FROM rows_in');
    expect(count.rows[0]!.n).toBe(12_002);
    const picked = await t.db.query<{ id: string; note: string; loose: unknown }>(
      `SELECT id, note, loose FROM rows_in WHERE id IN (5, 12000, 20000) ORDER BY id`,
    );
    expect(picked.rows).toEqual([
      { id: '5', note: 'fila 5', loose: [5] },
      { id: '12000', note: 'fila 12000', loose: [12000] },
      { id: '20000', note: 'nueva', loose: { ok: true } },
    ]);
  });
});
