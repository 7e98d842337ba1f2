import { randomUUID } from 'node:crypto';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { StreamCache } from '../../../src/caching/stream-cache.ts';
import { Vouch } from '../../../src/caching/vouch.ts';
import { encode } from '../../../src/events/codec.ts';
import { PostgresEventStore } from '../../../src/store/postgres-store.ts';
import type { EventStore } from '../../../src/store/types.ts';
import { freshDb, type TestDb } from '../../support/db.ts';

const meta = {
  userId: 1,
  userEmail: 'a@b.co',
  apiKeyId: null,
  apiKeyName: null,
  requestId: null,
  correlationId: null,
  idempotencyKey: null,
  occurredAt: '2026-01-01T00:00:00Z',
};
const approved = (n: number) =>
  encode(
    { type: 'VacationApproved', data: { codigoPila: `C${n}`, workerId: 1, approvedByUserId: 1, approvedAt: 'x' } },
    meta,
    randomUUID(),
  );

describe('stream cache of the commands', () => {
  let t: TestDb;
  let store: PostgresEventStore;
  let fetched = 0;
  let queries = 0;
  let counting: EventStore;

  beforeAll(async () => {
    t = await freshDb();
    store = new PostgresEventStore(t.db);
    counting = new Proxy(store, {
      get: (target, prop) =>
        prop === 'readStreams'
          ? async (r: { stream: string; fromRevision: number }[]) => {
              queries++;
              const out = await target.readStreams(r);
              for (const events of out.values()) fetched += events.length;
              return out;
            }
          : Reflect.get(target, prop, target),
    });
  });
  afterAll(async () => {
    await t?.drop();
  });

  it('answers as a full read would, fetching each event from the store once', async () => {
    const cache = new StreamCache(counting);
    await store.append([{ stream: 'worker-1', expectedRevision: 'no_stream', events: [approved(0), approved(1)] }]);
    fetched = 0;
    const first = await cache.read(['worker-1', 'unit-x-2026-01']);
    expect(first.get('worker-1')!.map((e) => e.revision)).toEqual([0, 1]);
    expect(first.get('unit-x-2026-01')).toEqual([]);
    await store.append([{ stream: 'worker-1', expectedRevision: 1, events: [approved(2)] }]);
    const second = await cache.read(['worker-1']);
    expect(second.get('worker-1')!.map((e) => (e.event.data as { codigoPila: string }).codigoPila)).toEqual(['C0', 'C1', 'C2']);
    expect(fetched).toBe(3);
    const third = await cache.read(['worker-1']);
    expect(third.get('worker-1')).toHaveLength(3);
    expect(fetched).toBe(3);
  });

  it('never holds the same revision twice when reads overlap', async () => {
    const cache = new StreamCache(counting);
    await store.append([{ stream: 'worker-2', expectedRevision: 'no_stream', events: [approved(0)] }]);
    const reads = await Promise.all(Array.from({ length: 5 }, () => cache.read(['worker-2'])));
    await store.append([{ stream: 'worker-2', expectedRevision: 0, events: [approved(1), approved(2)] }]);
    const again = await Promise.all(Array.from({ length: 5 }, () => cache.read(['worker-2'])));
    for (const r of reads) expect(r.get('worker-2')!.map((e) => e.revision)).toEqual([0]);
    for (const r of again) expect(r.get('worker-2')!.map((e) => e.revision)).toEqual([0, 1, 2]);
  });

  it('sends reads asked for together as a few store queries, each caller getting its own streams current', async () => {
    const cache = new StreamCache(counting);
    const streams = Array.from({ length: 40 }, (_, i) => `worker-batch-${i}`);
    await store.append(
      streams.map((stream, i) => ({
        stream,
        expectedRevision: 'no_stream' as const,
        events: Array.from({ length: 1 + (i % 3) }, (_, n) => approved(n)),
      })),
    );
    queries = 0;
    const reads = await Promise.all(streams.map((s, i) => cache.read([s, streams[(i + 1) % streams.length]!])));
    // Two go out at once; everything asked for meanwhile waits and goes in the next one.
    expect(queries).toBeLessThanOrEqual(3);
    reads.forEach((r, i) => {
      expect(r.get(streams[i]!)!.map((e) => e.revision)).toEqual(Array.from({ length: 1 + (i % 3) }, (_, n) => n));
      expect(r.get(streams[(i + 1) % streams.length]!)!.length).toBe(1 + (((i + 1) % streams.length) % 3));
    });
    // A read asked for after an append sees it, even when it rides with others.
    await store.append([{ stream: streams[0]!, expectedRevision: 0, events: [approved(9)] }]);
    const after = await Promise.all([cache.read([streams[0]!]), cache.read([streams[1]!])]);
    expect(after[0].get(streams[0]!)!.map((e) => e.revision)).toEqual([0, 1]);
  });

  it('holds no more events than its bound under more streams than fit, and answers every read in full', async () => {
    const cache = new StreamCache(counting, { maxEvents: 20 });
    const streams = Array.from({ length: 12 }, (_, i) => `worker-bound-${i}`);
    await store.append(
      streams.map((stream) => ({ stream, expectedRevision: 'no_stream' as const, events: [approved(0), approved(1), approved(2)] })),
    );
    for (let round = 0; round < 3; round++) {
      for (const s of streams) {
        // The first stream is read between every other one: it stays held throughout.
        await cache.read([streams[0]!]);
        expect((await cache.read([s])).get(s)!.map((e) => e.revision)).toEqual([0, 1, 2]);
        expect(cache.size).toBeLessThanOrEqual(20);
      }
    }
    fetched = 0;
    await cache.read([streams[0]!]);
    expect(fetched).toBe(0);
    // The stream read longest ago is gone: reading it fetches it whole again.
    await cache.read([streams[6]!]);
    expect(fetched).toBe(3);
    expect(cache.peek([streams[0]!])).toBeDefined();
    expect(cache.peek([streams[1]!])).toBeUndefined();
  });

  it('keeps a subgerencia month stream held while more worker streams than fit go through', async () => {
    const cache = new StreamCache(counting, { maxEvents: 20, maxInFlight: 2, maxUnitEvents: 50 });
    const unit = 'unit-SG-bound-2026-03';
    const workers = Array.from({ length: 30 }, (_, i) => `worker-walk-${i}`);
    await store.append([
      { stream: unit, expectedRevision: 'no_stream' as const, events: Array.from({ length: 40 }, (_, i) => approved(i)) },
      ...workers.map((stream) => ({ stream, expectedRevision: 'no_stream' as const, events: [approved(0), approved(1)] })),
    ]);
    await cache.read([unit]);
    for (const w of workers) await cache.read([w]);
    fetched = 0;
    expect(cache.peek([unit])!.get(unit)).toHaveLength(40);
    await cache.read([unit]);
    expect(fetched).toBe(0);
    // The worker streams still share their own bound: the earliest are gone.
    expect(cache.peek([workers[0]!])).toBeUndefined();
    expect(cache.size).toBeLessThanOrEqual(20 + 50);
  });

  it('hands a failed store read to every caller that rode on it', async () => {
    const failing = {
      ...store,
      readStreams: async () => {
        throw new Error('store down');
      },
    } as unknown as EventStore;
    const cache = new StreamCache(failing);
    const results = await Promise.allSettled([cache.read(['a']), cache.read(['b']), cache.read(['c'])]);
    expect(results.map((r) => r.status)).toEqual(['rejected', 'rejected', 'rejected']);
    await expect(cache.read(['d'])).rejects.toThrow('store down');
  });

  describe('month streams a reader of the log vouches for', () => {
    const revisions = (m: Map<string, { revision: number }[]> | undefined, stream: string) => m?.get(stream)?.map((e) => e.revision);

    it('are answered from memory until the reader announces a change, then read again', async () => {
      const vouch = new Vouch();
      const cache = new StreamCache(counting, { vouch });
      const unit = 'unit-SG-vouch-2026-04';
      await store.append([{ stream: unit, expectedRevision: 'no_stream', events: [approved(0)] }]);
      // Nobody reads the log yet: nothing is vouched for, whatever is held.
      await cache.read([unit]);
      expect(cache.current([unit])).toBeUndefined();
      vouch.reading(true);
      expect(cache.current([unit])).toBeUndefined();
      await cache.read([unit]);
      queries = 0;
      expect(revisions(cache.current([unit]), unit)).toEqual([0]);
      expect(queries).toBe(0);
      // Appended elsewhere: still answered as it was until the reader applies it and says so.
      await store.append([{ stream: unit, expectedRevision: 0, events: [approved(1)] }]);
      expect(revisions(cache.current([unit]), unit)).toEqual([0]);
      vouch.changed();
      expect(cache.current([unit])).toBeUndefined();
      expect(revisions(await cache.read([unit]), unit)).toEqual([0, 1]);
      expect(revisions(cache.current([unit]), unit)).toEqual([0, 1]);
      // Worker streams are never vouched for; one stream not vouched for means a read of all.
      await cache.read(['worker-vouch-1']);
      expect(cache.current([unit, 'worker-vouch-1'])).toBeUndefined();
      // The reader stops: nothing vouched before counts, even once it reads again.
      vouch.reading(false);
      expect(cache.current([unit])).toBeUndefined();
      vouch.reading(true);
      expect(cache.current([unit])).toBeUndefined();
    });

    it('are not vouched for by a read during which the reader announced a change', async () => {
      const vouch = new Vouch();
      vouch.reading(true);
      const slow: EventStore = new Proxy(store, {
        get: (target, prop) =>
          prop === 'readStreams'
            ? async (r: { stream: string; fromRevision: number }[]) => {
                const out = await target.readStreams(r);
                // The reader applies a change after the read's snapshot, before it lands.
                vouch.changed();
                return out;
              }
            : Reflect.get(target, prop, target),
      });
      const cache = new StreamCache(slow, { vouch });
      const unit = 'unit-SG-vouch-2026-05';
      await cache.read([unit]);
      expect(cache.current([unit])).toBeUndefined();
    });

    it("keep this process's own appends, and lose the vouch when an append shows others wrote in between", async () => {
      const vouch = new Vouch();
      vouch.reading(true);
      const cache = new StreamCache(counting, { vouch });
      const unit = 'unit-SG-vouch-2026-06';
      await store.append([{ stream: unit, expectedRevision: 'no_stream', events: [approved(0)] }]);
      await cache.read([unit]);
      const own = await store.append([{ stream: unit, expectedRevision: 0, events: [approved(1)] }]);
      cache.appended(unit, [approved(1) as never], own.revisions[0]!.revision);
      expect(revisions(cache.current([unit]), unit)).toEqual([0, 1]);
      // Another process appends revision 2; this one's append lands at 3.
      await store.append([{ stream: unit, expectedRevision: 1, events: [approved(2)] }]);
      const next = await store.append([{ stream: unit, expectedRevision: 2, events: [approved(3)] }]);
      cache.appended(unit, [approved(3) as never], next.revisions[0]!.revision);
      expect(cache.current([unit])).toBeUndefined();
      expect(revisions(await cache.read([unit]), unit)).toEqual([0, 1, 2, 3]);
    });
  });
});
