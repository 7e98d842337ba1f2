import { createHash } from 'node:crypto';
import { describe, expect, it } from 'vitest';
import { migrations } from '../../../src/db/migrations.ts';
import { vacWorkerRowsSql } from '../../../src/reference/vac-worker-rows.ts';
import { vacAppendAnySql } from '../../../src/store/postgres-schema/vac-append-any.ts';
import { vacAppendBatchSql } from '../../../src/store/postgres-schema/vac-append-batch.ts';
import { vacAppendSql } from '../../../src/store/postgres-schema/vac-append.ts';
import { vacChainSql, vacEventCanonicalSql } from '../../../src/store/postgres-schema/vac-chain.ts';
import { vacClaimAppendSql } from '../../../src/store/postgres-schema/vac-claim-append.ts';

/**
 * Version, name and SHA-256 of the SQL of every migration applied by a released service. A
 * database records only the version of what it ran: an edit of an applied migration would reach
 * new databases and never the existing ones, so the two would differ without anyone knowing. A
 * change to the schema is a new migration, added to this list once it has landed.
 */
const APPLIED: [number, string, string][] = [
  [1, 'event store', '4765529f2f4feed2f25b757fd45b8bc47bb0e2344d57e9139aab0084698a7ffd'],
  [2, 'reference data', '150874896387ec7a91eac9cb7fcf4784915c36ff027d3b7eedee71cd39bb1343'],
  [3, 'api keys', 'ad98e7b2f38a334b2e0bfe5526d4a4373bbe003d3e9ca05bba60f67ed87aca38'],
  [4, 'vacation record ids', '4adbd2bce01cad4d16b10aa466b7c0b150a42863724bae16428cf45fd136e765'],
  [5, 'projection checkpoints', '2f37e933fbe97db27a85cb97c88c6378c7d78e11313639410a725048aba5c1aa'],
  [6, 'idempotency keys', '0e4043a254cf7d10aa1447249de79f02084f1f93b7f177592caf0fd770164c03'],
  [7, 'one-round-trip append', 'dd5edeeb7ec5fcb84ad7aab6f07f46e414b1c4f6571c9d4d52a37f49054e2b3e'],
  [8, 'set-based append', '1030ca18d7f676e54e5fa34cb1c76626261cbe5470d45f771762db59cc23b607'],
  [9, 'appends committed in groups', '1ee84af2fa2da0d4cee86ae7f209f06d0d6cfaefda16ff7ade65d0183d66478a'],
  [10, 'groups of appends written set-based', 'e077309007d7a691489a50f396dbe56334596a831e9cb2a3c4aec33d55d10b7c'],
  [11, 'append planned per call', '94ca66c070b4732dcc8c7eb2be1dc3e74caf9d1f147092b8d17b5e4ab184bf90'],
  [12, 'group answers joined', '861df2a6f668f6d2a716911164a9e89dd4e400587f85c0df7d6a8350a3dfe433'],
  [13, 'appends that expect no revision', '8fe90f6682847f39498e4dd93ea7868bf8384fe94fac83ea322b856e6ad13f77'],
  [14, 'audit deletions read DELETE', 'dbc08c2e9859a42ac8073bf6b1305833124f364b3117afed2c2a2d7e68430528'],
  [15, 'appends linear in their size', '08ca610d25da8671f1473903891cf1a0b3412cf8021584ab11bc70a4d436f168'],
  [16, 'occupancy kept as spans', 'b9ba053c518431a72c84e88da28cb7b3ea5245f68e8b50a22a0cfabb9d72e02c'],
  [17, 'hash chain of every stream', '36c8780dc855c0e4b363172fa3f48a24e9931d08f7d411a07ff760b87d01b771'],
  [18, 'per-worker read model', '61e7993fd964e6738f8f2f4ae8013aa563a457375f4a3308eae20dac56bb36ed'],
  [19, 'canonical JSON written without rebuilding the jsonb', '5d7414bad28097663529983cb0e24d47531dbb8f8cbd671430f75c6eb0f79b99'],
  [20, 'reference rows checked by the import', '461bace100d71a46f178c687569b531ce44fb246539274c1862c8f0dded1639e'],
  [21, 'vacation law parameters of the reference data', 'd48fa090528e74db15809ae77464d9af09815ad240ef4051eadfb2508f450419'],
  [22, 'web panel: accounts, invitations, sessions, sign-in throttle', '83339f372c2b06956b4eeb0f0b487454fabedd4f1c318386c90c33e31e0e7fef'],
  [23, 'payroll sheet starts in the per-worker read model', 'dde88281414d529d30cd109cc263e81991d54d3810fd873b4a7e92fdeba7ea1e'],
  [
    24,
    'web panel: documents found by their beginning, sign-in failures per address',
    'f97d30ef87c30712034da59ccbaf654d8f5348e7570927f821f650c6d4a4cbd9',
  ],
];

const sha256 = (text: string) => createHash('sha256').update(text).digest('hex');

describe('migrations', () => {
  it('run in rising version order, each version once', () => {
    const versions = migrations.map((m) => m.version);
    expect(versions).toEqual([...new Set(versions)].sort((a, b) => a - b));
    expect(versions.slice(0, 24)).toEqual(versions.slice(0, 24).map((_, i) => i + 1));
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
