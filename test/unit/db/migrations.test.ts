import { createHash } from 'node:crypto';
import { describe, expect, it } from 'vitest';
import { migrations } from '../../../src/migrations.ts';
import { vacWorkerRowsSql } from '../../../src/reference/vac-worker-rows.ts';
import { vacAppendAnySql } from '../../../src/store/postgres-schema/vac-append-any.ts';
import { vacAppendBatchSql } from '../../../src/store/postgres-schema/vac-append-batch.ts';
import { vacAppendSql } from '../../../src/store/postgres-schema/vac-append.ts';
import { vacChainSql, vacEventCanonicalSql } from '../../../src/store/postgres-schema/vac-chain.ts';
import { vacClaimAppendSql } from '../../../src/store/postgres-schema/vac-claim-append.ts';

/**
 * Version, name and SHA-256 of the SQL of every migration applied by a released service: the
 * baselines, the schema as it stood at the first release, and what came after. A database records
 * only the version of what it ran: an edit of an applied migration would reach new databases and
 * never the existing ones, so the two would differ without anyone knowing. A change to the schema
 * is a new migration, added to this list once it has landed.
 */
const APPLIED: [number, string, string][] = [
  [1, 'event store: events, streams, record ids, hash chain, appends', 'd3f04ba142ce32f2a326eb6679deaf4e3c73c41fbbf988f7415169db3dbd60c9'],
  [2, 'reference data: tables, searches, per-worker read model', 'd79099dd821ddce4f0f47e09beff8f6f216fe9f1f5191ae37844463880a1ab6d'],
  [3, 'api keys, each bound to a user', '76c4ea0027c083529b6a65d7844222180762fb562dc103238572b01fed563958'],
  [4, 'projection checkpoints', '2f37e933fbe97db27a85cb97c88c6378c7d78e11313639410a725048aba5c1aa'],
  [5, 'web panel: accounts, invitations, sessions, sign-in throttle', 'f039fec886e595ada1abad108e5920b189d8d978ed1633ad311956440e5352a8'],
  [6, 'idempotency keys', '0e4043a254cf7d10aa1447249de79f02084f1f93b7f177592caf0fd770164c03'],
  [40, 'webhook subscriptions, delivery positions and dead letters', '2f61eed37d857bd1b0d8582a382fbf8d6d03e6d9a26838f8c125f99a746b57f0'],
];

const sha256 = (text: string) => createHash('sha256').update(text).digest('hex');

describe('migrations', () => {
  it('run in rising version order, each version once', () => {
    const versions = migrations.map((m) => m.version);
    expect(versions).toEqual([...new Set(versions)].sort((a, b) => a - b));
    expect(versions.slice(0, 6)).toEqual([1, 2, 3, 4, 5, 6]);
  });

  it.each(APPLIED)('applied migration %i (%s) keeps its name and its exact SQL', (version, name, hash) => {
    const m = migrations.find((x) => x.version === version);
    expect(m?.name).toBe(name);
    expect(sha256(m?.sql ?? ''), `migration ${version} was applied as it was: add a new migration instead of editing it`).toBe(hash);
  });

  it.each([
    ['vac_append', vacAppendSql],
    ['vac_append_batch', vacAppendBatchSql],
    ['vac_append_any', vacAppendAnySql],
    ['vac_claim_append', vacClaimAppendSql],
    ['vac_event_canonical', vacEventCanonicalSql],
    ['vac_chain_step', vacChainSql],
    ['vac_worker_rows', vacWorkerRowsSql],
  ])('the live text of %s is what the last migration that creates it runs', (fn, live) => {
    const creates = migrations.filter((m) => new RegExp(`CREATE (OR REPLACE )?FUNCTION ${fn}\\(`).test(m.sql));
    expect(creates.at(-1)?.sql).toContain(live);
  });
});
