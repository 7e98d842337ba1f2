import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { vacAppendAnySql } from '../../../src/store/postgres-schema/vac-append-any.ts';
import { vacAppendBatchSql } from '../../../src/store/postgres-schema/vac-append-batch.ts';
import { vacAppendSql } from '../../../src/store/postgres-schema/vac-append.ts';
import { freshDb, type TestDb } from '../../support/db.ts';

/** The body of the function a live file creates: what PostgreSQL keeps as its source. */
function bodyOf(live: string): string {
  const start = live.indexOf('$fn$') + '$fn$'.length;
  return live.slice(start, live.indexOf('$fn$', start));
}

describe('the append functions a migrated database runs', () => {
  let t: TestDb;
  beforeAll(async () => {
    t = await freshDb();
  });
  afterAll(async () => {
    await t?.drop();
  });

  it.each([
    ['vac_append', vacAppendSql],
    ['vac_append_batch', vacAppendBatchSql],
    ['vac_append_any', vacAppendAnySql],
  ])('%s is the text of its live file in src/store/postgres-schema, replaced by no later migration', async (name, live) => {
    const r = await t.db.query<{ prosrc: string }>('SELECT prosrc FROM pg_proc WHERE proname = $1', [name]);
    expect(r.rows).toHaveLength(1);
    expect(r.rows[0]!.prosrc).toBe(bodyOf(live));
  });
});
