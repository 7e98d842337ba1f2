import { randomUUID } from 'node:crypto';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { PostgresEventStore } from '../../../src/store/postgres-store.ts';
import { START, WrongExpectedRevisionError, comparePositions, type NewEvent, type StoredEvent } from '../../../src/store/types.ts';
import { freshDb, type TestDb } from '../../support/db.ts';

const ev = (n: number): NewEvent => ({ id: randomUUID(), type: 'Audited', data: { n }, metadata: { requestId: `r-${n}` } });
const unique = (name: string) => `${name}-${randomUUID().slice(0, 8)}`;

/** The short append of records that expect no revision (vac_append_any), on the server or PGlite. */
describe('appends that expect no revision (PostgreSQL store)', () => {
  let t: TestDb;
  let store: PostgresEventStore;

  beforeAll(async () => {
    t = await freshDb({ poolSize: 12 });
    store = new PostgresEventStore(t.db);
  });
  afterAll(async () => {
    await t?.drop();
  });

  it('starts new streams at revision 0 and continues existing ones, answering each revision and the last position', async () => {
    const [a, b] = [unique('audit-a'), unique('audit-b')];
    await store.append([{ stream: a, expectedRevision: 'no_stream', events: [ev(0), ev(1)] }]);

    const r = await store.appendAny([
      { stream: b, expectedRevision: 'any', events: [ev(10)] },
      { stream: a, expectedRevision: 'any', events: [ev(2), ev(3)] },
    ]);
    expect(r.revisions).toEqual([
      { stream: b, revision: 0 },
      { stream: a, revision: 3 },
    ]);
    const storedA = await store.readStream(a);
    const storedB = await store.readStream(b);
    expect(storedA.map((e) => [e.revision, e.data.n])).toEqual([
      [0, 0],
      [1, 1],
      [2, 2],
      [3, 3],
    ]);
    expect(storedB.map((e) => [e.revision, e.data.n])).toEqual([[0, 10]]);
    // The writes' events follow one another in the log in the order given.
    expect(comparePositions(storedB[0]!.position, storedA[2]!.position)).toBe(-1);
    expect(comparePositions(r.position, storedA[3]!.position)).toBe(0);
    expect(storedA[3]!.metadata).toEqual({ requestId: 'r-3' });

    // An append with an expected revision sees where the short append left the stream.
    await expect(store.append([{ stream: a, expectedRevision: 2, events: [ev(4)] }])).rejects.toBeInstanceOf(WrongExpectedRevisionError);
    await store.append([{ stream: a, expectedRevision: 3, events: [ev(4)] }]);
    expect((await store.readStream(a)).map((e) => e.revision)).toEqual([0, 1, 2, 3, 4]);
  });

  it('delivers what it wrote to readers of the whole log', async () => {
    const head = await store.headPosition();
    const s = unique('audit-log');
    const r = await store.appendAny([{ stream: s, expectedRevision: 'any', events: [ev(1), ev(2), ev(3)] }]);
    const read: StoredEvent[] = await store.readAll({ after: head, limit: 100 });
    expect(read.filter((e) => e.stream === s).map((e) => e.data.n)).toEqual([1, 2, 3]);
    expect(comparePositions(read[read.length - 1]!.position, r.position)).toBe(0);
    expect(comparePositions(await store.headPosition(), START)).toBe(1);
  });

  it('keeps every stream gap-free when short appends and checked appends race on the same streams', async () => {
    const streams = Array.from({ length: 6 }, (_, i) => unique(`audit-race-${i}`));
    let n = 0;
    const calls = Array.from({ length: 40 }, (_, i) => {
      // Each call names its streams in another order: the function takes the rows in name order.
      const mine = (i % 2 === 0 ? streams : [...streams].reverse()).filter((_, k) => (k + i) % 3 !== 0);
      const writes = mine.map((stream) => ({ stream, expectedRevision: 'any' as const, events: [ev(n++)] }));
      return i % 4 === 3 ? store.append(writes) : store.appendAny(writes);
    });
    const results = await Promise.allSettled(calls);
    expect(results.filter((r) => r.status === 'rejected')).toEqual([]);
    let total = 0;
    for (const s of streams) {
      const stored = await store.readStream(s);
      expect(stored.map((e) => e.revision)).toEqual(stored.map((_, k) => k));
      total += stored.length;
    }
    expect(total).toBe(n);
  });

  it('writes nothing when one of its event ids is already stored', async () => {
    const [s, other] = [unique('audit-dup'), unique('audit-dup-other')];
    const first = ev(1);
    await store.appendAny([{ stream: s, expectedRevision: 'any', events: [first] }]);
    await expect(
      store.appendAny([
        { stream: other, expectedRevision: 'any', events: [ev(2)] },
        { stream: s, expectedRevision: 'any', events: [first] },
      ]),
    ).rejects.toThrow();
    expect(await store.readStream(other)).toEqual([]);
    expect((await store.readStream(s)).map((e) => e.data.n)).toEqual([1]);
    // The stream rows were not moved on either: the next record takes the next revision.
    const r = await store.appendAny([{ stream: s, expectedRevision: 'any', events: [ev(3)] }]);
    expect(r.revisions).toEqual([{ stream: s, revision: 1 }]);
  });

  it('refuses a write that carries an expected revision, or names a stream twice, before reaching the database', async () => {
    const s = unique('audit-refused');
    await expect(store.appendAny([{ stream: s, expectedRevision: 'no_stream', events: [ev(1)] }])).rejects.toThrow(/no expected revision/);
    await expect(
      store.appendAny([
        { stream: s, expectedRevision: 'any', events: [ev(1)] },
        { stream: s, expectedRevision: 'any', events: [ev(2)] },
      ]),
    ).rejects.toThrow(/same stream twice/);
    expect(await store.readStream(s)).toEqual([]);
  });
});
