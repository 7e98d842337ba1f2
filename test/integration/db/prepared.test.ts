import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { freshDb, hasServer, type TestDb } from '../../support/db.ts';

/**
 * The reads every request runs are prepared once per connection (QueryOptions.prepare), the live
 * worker states' among them, while a rebuild swaps that table for a new one (the live table
 * dropped, the build table renamed in). The prepared read must then read the new table.
 */
describe.skipIf(!hasServer())('a prepared read across a rebuild swap (PGlite prepares nothing: needs a PostgreSQL server)', () => {
  let t: TestDb;

  beforeAll(async () => {
    t = await freshDb({ migrate: false, poolSize: 1 });
  });
  afterAll(async () => {
    await t?.drop();
  });

  it('reads the table swapped in under the same name, on the connection that prepared it', async () => {
    await t.db.exec(`CREATE TABLE swapped (id bigint PRIMARY KEY, v json NOT NULL); INSERT INTO swapped VALUES (1, '["antes"]')`);
    const read = () =>
      t.db.query<{ id: string; v: unknown }>('SELECT id, v FROM swapped WHERE id = ANY($1::bigint[])', [[1, 2]], { prepare: true });
    // Past the executions after which PostgreSQL may keep a generic plan of its own.
    for (let i = 0; i < 7; i++) expect((await read()).rows).toEqual([{ id: '1', v: ['antes'] }]);
    await t.db.exec(`CREATE TABLE swapped__rebuild (id bigint PRIMARY KEY, v json NOT NULL);
      INSERT INTO swapped__rebuild VALUES (1, '["después"]'), (2, '["nuevo"]')`);
    await t.db.transaction(async (tx) => {
      await tx.exec('DROP TABLE swapped');
      await tx.exec('ALTER TABLE swapped__rebuild RENAME TO swapped');
    });
    expect((await read()).rows.sort((a, b) => Number(a.id) - Number(b.id))).toEqual([
      { id: '1', v: ['después'] },
      { id: '2', v: ['nuevo'] },
    ]);
  });
});
