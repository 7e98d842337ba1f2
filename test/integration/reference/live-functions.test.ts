import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { vacWorkerRowsSql } from '../../../src/reference/vac-worker-rows.ts';
import { freshDb, type TestDb } from '../../support/db.ts';
import { bodyOf, sourcesOf } from '../../support/live-sql.ts';

describe('the reference functions a migrated database runs', () => {
  let t: TestDb;
  beforeAll(async () => {
    t = await freshDb();
  });
  afterAll(async () => {
    await t?.drop();
  });

  it('vac_worker_rows is the text of src/reference/vac-worker-rows.ts, replaced by no later migration', async () => {
    expect(await sourcesOf(t.db, 'vac_worker_rows')).toEqual([bodyOf(vacWorkerRowsSql, 'vac_worker_rows')]);
  });
});
