import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { copyRows, type Columns } from '../../../src/projections/sql.ts';
import { freshDb, type TestDb } from '../../support/db.ts';

/**
 * A rebuild writes the read models' JSON columns by COPY's text format, where a backslash, a tab,
 * a newline or a carriage return would end or change a field. Values holding every one of them
 * must come back exactly as written, through json and jsonb columns, on either database.
 */
describe('copyRows with JSON values', () => {
  let t: TestDb;
  const columns: Columns = { id: 'integer NOT NULL', loose: 'json', strict: 'jsonb NOT NULL', note: 'text' };
  const tricky = [
    { text: 'tab\there', line: 'one\ntwo\r\nthree', slash: 'C:\\nomina\\2026', quote: 'dijo "sí"' },
    { nested: [{ a: '\\t is not a tab', b: 'a \u2028 line sep', c: 'ñandú €' }], n: 1.5, t: true, z: null },
    { empty: '', onlySlash: '\\', trailing: 'end\\' },
  ];

  beforeAll(async () => {
    t = await freshDb({ migrate: false });
    await t.db.exec('CREATE TABLE copy_json (id integer NOT NULL, loose json, strict jsonb NOT NULL, note text)');
  });
  afterAll(async () => {
    await t?.drop();
  });

  it('writes tabs, newlines and backslashes inside JSON strings and reads them back unchanged', async () => {
    const rows: { id: number; loose: unknown; strict: unknown; note: string | null }[] = tricky.map((v, i) => ({
      id: i,
      loose: v,
      strict: v,
      note: `fila\t${i}\\`,
    }));
    rows.push({ id: 99, loose: null, strict: { plain: 'sin nada' }, note: null });
    await t.db.transaction((tx) => copyRows(tx, 'copy_json', columns, rows));

    const back = await t.db.query<{ id: number; loose: unknown; strict: unknown; note: string | null }>(
      'SELECT id, loose, strict, note FROM copy_json ORDER BY id',
    );
    expect(back.rows).toEqual(rows.map((r) => ({ id: r.id, loose: r.loose, strict: r.strict, note: r.note })));
    // json keeps the text as written: the very string JSON.stringify made.
    const text = await t.db.query<{ loose: string }>('SELECT loose::text AS loose FROM copy_json WHERE id = 0');
    expect(text.rows[0]!.loose).toBe(JSON.stringify(tricky[0]));
  });

  it('writes many rows of accented and other multi-byte text in one COPY, each back as written', async () => {
    await t.db.exec('CREATE TABLE copy_many (id integer NOT NULL, loose json, strict jsonb NOT NULL, note text)');
    const rows = Array.from({ length: 3_000 }, (_, i) => ({
      id: i,
      loose: { nombre: `Muñoz ${i} — €`, largo: 'á'.repeat(i % 97) },
      strict: { mar: '🏖️', i },
      note: i % 7 === 0 ? null : `Cañón\t${'ñ'.repeat(i % 50)}`,
    }));
    await t.db.transaction((tx) => copyRows(tx, 'copy_many', columns, rows));
    const back = await t.db.query<{ id: number; loose: unknown; strict: unknown; note: string | null }>(
      'SELECT id, loose, strict, note FROM copy_many ORDER BY id',
    );
    expect(back.rows).toEqual(rows);
  });
});
