import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { vacAppendAnySql } from '../../../src/store/postgres-schema/vac-append-any.ts';
import { vacAppendBatchSql } from '../../../src/store/postgres-schema/vac-append-batch.ts';
import { vacAppendSql } from '../../../src/store/postgres-schema/vac-append.ts';
import { vacChainSql, vacEventCanonicalSql } from '../../../src/store/postgres-schema/vac-chain.ts';
import { vacClaimAppendSql } from '../../../src/store/postgres-schema/vac-claim-append.ts';
import { freshDb, type TestDb } from '../../support/db.ts';
import { bodyOf, sourcesOf } from '../../support/live-sql.ts';

describe('the event store functions a migrated database runs', () => {
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
    ['vac_claim_append', vacClaimAppendSql],
    ['vac_event_canonical', vacEventCanonicalSql],
    ['vac_chain_step', vacChainSql],
  ])('%s is the text of its live file in src/store/postgres-schema, replaced by no later migration', async (name, live) => {
    expect(await sourcesOf(t.db, name)).toEqual([bodyOf(live, name)]);
  });

  it('the aggregate vac_chain runs vac_chain_step over bytea, as its live file creates it', async () => {
    const r = await t.db.query<{ sfunc: string; stype: string }>(
      `SELECT a.aggtransfn::regproc::text AS sfunc, format_type(a.aggtranstype, NULL) AS stype
         FROM pg_aggregate a JOIN pg_proc p ON p.oid = a.aggfnoid WHERE p.proname = 'vac_chain'`,
    );
    expect(r.rows).toEqual([{ sfunc: 'vac_chain_step', stype: 'bytea' }]);
    expect(vacChainSql).toContain('CREATE AGGREGATE vac_chain(bytea, bytea) (SFUNC = vac_chain_step, STYPE = bytea);');
  });
});
