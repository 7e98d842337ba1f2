import { randomUUID } from 'node:crypto';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { describeBreak, type ChainBreak } from '../../../src/integrity/chain-check.ts';
import { verifyChains, type VerifyScope } from '../../../src/integrity/verify.ts';
import { chainHash } from '../../../src/store/chain.ts';
import { KurrentEventStore } from '../../../src/store/kurrentdb-store.ts';
import { PostgresEventStore } from '../../../src/store/postgres-store.ts';
import type { EventStore, NewEvent } from '../../../src/store/types.ts';
import { freshDb, type TestDb } from '../../support/db.ts';
import { FakeKurrentClient, FakeKurrentLog } from '../../support/fake-kurrent.ts';
import { asPlainStore } from '../../support/plain-store.ts';

const ev = (i: number): NewEvent => ({
  id: randomUUID(),
  type: 'VacationApproved',
  data: { codigoPila: `P${i}`, workerId: 1, approvedByUserId: i },
  metadata: { requestId: `r-${i}` },
});

describe('verifying the hash chains', () => {
  let t: TestDb;
  let store: PostgresEventStore;
  const streams = ['worker-1', 'worker-2', 'worker-3', 'worker-4', 'audit-worker-1'];
  const verify = (scope: VerifyScope, s: EventStore = store) => verifyChains(s, scope);

  beforeAll(async () => {
    t = await freshDb();
    store = new PostgresEventStore(t.db);
    // Five events per stream, interleaved in the log, written by every kind of append.
    for (let i = 0; i < 5; i++) {
      await store.append(
        streams.slice(0, 4).map((stream) => ({ stream, expectedRevision: i === 0 ? ('no_stream' as const) : i - 1, events: [ev(i)] })),
      );
      await store.appendAny([{ stream: 'audit-worker-1', expectedRevision: 'any', events: [ev(i)] }]);
    }
  });
  afterAll(async () => {
    await t?.drop();
  });

  it('finds every chain whole when nothing was touched, counting what it checked', async () => {
    const all = await verify({ all: true });
    expect(all).toMatchObject({ events: 25, streams: 5, breaks: [] });
    expect(await verify({ streams: ['worker-2', 'audit-worker-1'] })).toMatchObject({ events: 10, streams: 2, breaks: [] });
    expect(await verify({ all: true }, asPlainStore(store))).toMatchObject({ events: 25, streams: 5, breaks: [] });
  });

  it('reads its chunks on from one another: a chain that spans chunks holds', async () => {
    const long = `unit-SG9-${randomUUID().slice(0, 6)}`;
    for (let i = 0; i < 2; i++)
      await store.append([{ stream: long, expectedRevision: 'any', events: Array.from({ length: 30_000 }, (_, k) => ev(k)) }]);
    const r = await verify({ streams: [long] });
    expect(r).toMatchObject({ events: 60_000, breaks: [] });
    // One event changed past the first chunk is found where it is.
    await t.db.query(`UPDATE events SET data = data || '{"x": 1}' WHERE stream = $1 AND revision = 51234`, [long]);
    expect((await verify({ streams: [long] })).breaks).toMatchObject([{ stream: long, revision: 51234, kind: 'altered' }]);
    await t.db.query('DELETE FROM events WHERE stream = $1', [long]);
    await t.db.query('DELETE FROM streams WHERE stream = $1', [long]);
  });

  describe('after someone with write access to the events table edits it', () => {
    let hashes: Map<string, string[]>;
    beforeAll(async () => {
      hashes = new Map(await Promise.all(streams.map(async (s) => [s, (await store.readStream(s)).map((e) => e.hash!)] as const)));
      // One event's data changed.
      await t.db.query(`UPDATE events SET data = jsonb_set(data, '{approvedByUserId}', '99') WHERE stream = 'worker-1' AND revision = 2`);
      // One event deleted from the middle.
      await t.db.query(`DELETE FROM events WHERE stream = 'worker-2' AND revision = 2`);
      // Two events swapped: each takes the other's place, hash and all.
      await t.db.query(`UPDATE events SET revision = -revision - 100 WHERE stream = 'worker-3' AND revision IN (1, 2)`);
      await t.db.query(`UPDATE events SET revision = CASE revision WHEN -101 THEN 2 ELSE 1 END WHERE stream = 'worker-3' AND revision < 0`);
      // The newest event removed.
      await t.db.query(`DELETE FROM events WHERE stream = 'worker-4' AND revision = 4`);
    });

    it('names each broken link: stream, revision, what is wrong, the hash expected and the hash found', async () => {
      const r = await verify({ all: true });
      const byStream = new Map<string, ChainBreak>(r.breaks.map((b) => [b.stream, b]));
      expect(r.breaks).toHaveLength(4);

      const changed = await store.readStream('worker-1');
      expect(byStream.get('worker-1')).toEqual({
        stream: 'worker-1',
        revision: 2,
        kind: 'altered',
        expected: chainHash(hashes.get('worker-1')![1]!, changed[2]!),
        found: hashes.get('worker-1')![2],
      });

      const after = (await store.readStream('worker-2')).find((e) => e.revision === 3)!;
      expect(byStream.get('worker-2')).toEqual({
        stream: 'worker-2',
        revision: 3,
        kind: 'missing',
        previous: 1,
        expected: chainHash(hashes.get('worker-2')![1]!, after),
        found: hashes.get('worker-2')![3],
      });
      expect(describeBreak(byStream.get('worker-2')!)).toMatch(
        /^stream worker-2 revision 3: revision 2 is missing before it: expected [0-9a-f]{64}, found [0-9a-f]{64}$/,
      );

      expect(byStream.get('worker-3')).toMatchObject({
        stream: 'worker-3',
        revision: 1,
        kind: 'altered',
        found: hashes.get('worker-3')![2],
      });

      expect(byStream.get('worker-4')).toEqual({
        stream: 'worker-4',
        revision: 4,
        kind: 'truncated',
        expected: '',
        found: hashes.get('worker-4')![3],
        previous: 4,
      });
      expect(describeBreak(byStream.get('worker-4')!)).toBe(
        `stream worker-4 revision 4: missing at the end of the stream, which reached revision 4 (its last event, revision 3, holds ${hashes.get('worker-4')![3]})`,
      );
      expect(byStream.has('audit-worker-1')).toBe(false);
    });

    it('tells the same breaks when it reads the log and checks the events itself, the newest event aside', async () => {
      const sql = await verify({ all: true });
      const read = await verify({ all: true }, asPlainStore(store));
      const byStream = (r: { breaks: ChainBreak[] }) => [...r.breaks].sort((a, b) => a.stream.localeCompare(b.stream));
      // In the log's order the swapped events come as they were written: the one now at revision 2
      // first, right after revision 0.
      expect(byStream(read)).toEqual([
        byStream(sql)[0],
        byStream(sql)[1],
        expect.objectContaining({ stream: 'worker-3', revision: 2, kind: 'missing', previous: 0 }),
      ]);
      // Reading the log cannot tell that a stream once went further.
      expect(read.breaks.some((b) => b.stream === 'worker-4')).toBe(false);
    });

    it('checks only the streams asked for', async () => {
      expect((await verify({ streams: ['worker-2'] })).breaks.map((b) => b.stream)).toEqual(['worker-2']);
      expect((await verify({ streams: ['audit-worker-1'] })).breaks).toEqual([]);
      // A worker's streams alone (audit verify --documento) still tell a stream missing its end, by its row in the store.
      expect((await verify({ streams: ['worker-4', 'audit-worker-1'] })).breaks).toMatchObject([
        { stream: 'worker-4', revision: 4, kind: 'truncated', previous: 4 },
      ]);
    });
  });
});

describe('verifying the hash chains kept in KurrentDB metadata', () => {
  it('finds a changed event of the log', async () => {
    const log = new FakeKurrentLog();
    const store = new KurrentEventStore(() => new FakeKurrentClient(log));
    for (let i = 0; i < 4; i++) await store.append([{ stream: 'worker-9', expectedRevision: 'any', events: [ev(i)] }]);
    expect((await verifyChains(store, { all: true })).breaks).toEqual([]);
    log.streams.get('worker-9')![1]!.data.approvedByUserId = 77;
    const r = await verifyChains(store, { streams: ['worker-9'] });
    expect(r.breaks).toMatchObject([{ stream: 'worker-9', revision: 1, kind: 'altered' }]);
  });

  it('names a stream whose first events were stored before the chain, with no hash, once: at its first event', async () => {
    const log = new FakeKurrentLog();
    const before = new KurrentEventStore(() => new FakeKurrentClient(log));
    for (let i = 0; i < 2; i++) await before.append([{ stream: 'worker-7', expectedRevision: 'any', events: [ev(i)] }]);
    // As a version of the service before the chain wrote them: no hash in their metadata.
    for (const e of log.streams.get('worker-7')!) delete e.metadata['vacaciones.hash'];
    // The service since chains what it appends after the newest of them, which has no hash either.
    const after = new KurrentEventStore(() => new FakeKurrentClient(log));
    await after.append([{ stream: 'worker-7', expectedRevision: 'any', events: [ev(2)] }]);
    await after.append([{ stream: 'worker-8', expectedRevision: 'any', events: [ev(3)] }]);
    const r = await verifyChains(after, { all: true });
    expect(r).toMatchObject({ events: 4, streams: 2 });
    expect(r.breaks).toEqual([
      { stream: 'worker-7', revision: 0, kind: 'altered', expected: expect.stringMatching(/^[0-9a-f]{64}$/), found: '' },
    ]);
    expect(describeBreak(r.breaks[0]!)).toMatch(
      /^stream worker-7 revision 0: the event does not match its hash .*: expected [0-9a-f]{64}, found no hash$/,
    );
  });
});
