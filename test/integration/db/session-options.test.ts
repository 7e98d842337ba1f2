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
