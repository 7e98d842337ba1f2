import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { PostgresDb } from '../../../src/db/postgres.ts';
import { freshDb, hasServer, NEEDS_SERVER, type TestDb } from '../../support/db.ts';

describe.skipIf(!hasServer())(`PostgreSQL sessions of the service (${NEEDS_SERVER})`, () => {
  let t: TestDb;
  beforeAll(async () => {
    t = await freshDb({ migrate: false });
  });
  afterAll(async () => {
    await t?.drop();
  });

  const setting = async (db: PostgresDb, name: string) =>
    (await db.query<{ v: string }>(`SELECT current_setting($1) AS v`, [name])).rows[0]!.v;

  it('run with JIT compilation off on every connection of the pool', async () => {
    const db = t.db as PostgresDb;
    // Several connections at once, so that more than the first one is asked.
    const values = await Promise.all(Array.from({ length: 4 }, () => setting(db, 'jit')));
    expect(values).toEqual(['off', 'off', 'off', 'off']);
  });

  it('compress wide values with lz4 where the server offers it, on every connection of the pool', async () => {
    const db = t.db as PostgresDb;
    const offered = (
      await db.query<{ lz4: boolean }>(`SELECT 'lz4' = ANY (enumvals) AS lz4 FROM pg_settings WHERE name = 'default_toast_compression'`)
    ).rows[0]?.lz4;
    const values = await Promise.all(Array.from({ length: 4 }, () => setting(db, 'default_toast_compression')));
    expect(values).toEqual(Array(4).fill(offered ? 'lz4' : 'pglz'));
    // A folded state's records, as a table of the service stores them.
    await db.exec('CREATE TABLE toast_probe (records json NOT NULL)');
    await db.query('INSERT INTO toast_probe SELECT json_agg(g) FROM generate_series(1, 2000) AS g');
    const method = await db.query<{ m: string }>('SELECT pg_column_compression(records) AS m FROM toast_probe');
    expect(method.rows[0]!.m).toBe(offered ? 'lz4' : 'pglz');
  });

  it('keep the options given in the connection string, after their own', async () => {
    const u = new URL(t.url!);
    u.searchParams.set('options', '-c statement_timeout=4321 -c jit=on');
    const db = new PostgresDb({ connectionString: u.toString(), max: 1 });
    try {
      expect(await setting(db, 'statement_timeout')).toBe('4321ms');
      // The operator's own choice wins over the service's default.
      expect(await setting(db, 'jit')).toBe('on');
    } finally {
      await db.close();
    }
  });
});
