import { randomUUID } from 'node:crypto';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import {
  START,
  WrongExpectedRevisionError,
  comparePositions,
  type EventStore,
  type NewEvent,
  type Position,
  type StoredEvent,
} from '../../src/store/types.ts';
import { chainHash } from '../../src/store/chain.ts';
import type { Db, Queryable } from '../../src/db/types.ts';

/** Where the log is elsewhere, the import's transaction is none of the store's business. */
const noTransaction: Queryable = {
  query: () => Promise.reject(new Error('the store used a transaction of another database')),
  exec: () => Promise.reject(new Error('the store used a transaction of another database')),
};

export interface ContractTarget {
  store: EventStore;
  /** Where the adapter can hold an append's transaction open; undefined when it cannot. */
  holdOpenAppend?: (stream: string, events: NewEvent[]) => Promise<{ commit(): Promise<void> }>;
  /** Why the held-open test cannot run on this target. */
  holdOpenSkipReason?: string;
  /** The database the log is kept in, when it is one (PostgreSQL, PGlite): the import's transactions run there. */
  logDb?: Db;
  dispose(): Promise<void>;
}

const ev = (type: string, data: Record<string, unknown> = {}): NewEvent => ({
  id: randomUUID(),
  type,
  data,
  metadata: { requestId: randomUUID() },
});

/**
 * The log after `after`, page by page. With `upTo` (an acknowledged append's position), reading
 * goes on until it is reached: a reader may be held back a moment by a transaction of another
 * database that ended while its snapshot was taken (the store cannot tell it from an appender
 * then), never longer than a few polls.
 */
async function readEverything(store: EventStore, after: Position = START, pageSize = 1000, upTo?: Position): Promise<StoredEvent[]> {
  const out: StoredEvent[] = [];
  let cursor = after;
  const deadline = Date.now() + 5_000;
  for (;;) {
    const page = await store.readAll({ after: cursor, limit: pageSize });
    if (page.length === 0) {
      if (upTo === undefined || comparePositions(cursor, upTo) >= 0 || Date.now() > deadline) return out;
      await new Promise((r) => setTimeout(r, 20));
      continue;
    }
    out.push(...page);
    cursor = page[page.length - 1]!.position;
  }
}

/** The behaviour every EventStore adapter must have; run once per adapter. */
export function eventStoreContract(label: string, makeTarget: () => Promise<ContractTarget | undefined>, skipReason?: string) {
  describe.skipIf(skipReason !== undefined)(`event store contract: ${label}${skipReason ? ` (skipped: ${skipReason})` : ''}`, () => {
    let t: ContractTarget;
    // Streams are unique per test so that the suite can share one store.
    const s = (name: string) => `${name}-${randomUUID().slice(0, 8)}`;

    beforeAll(async () => {
      t = (await makeTarget())!;
    });
    afterAll(async () => {
      await t?.dispose();
    });

    it('appends to a new stream and reads it back in revision order with data and metadata', async () => {
      const stream = s('worker');
      const events = [ev('A', { n: 1 }), ev('B', { n: 2 }), ev('C', { nested: { x: [1, 2] } })];
      const r = await t.store.append([{ stream, expectedRevision: 'no_stream', events }]);
      expect(r.revisions).toEqual([{ stream, revision: 2 }]);
      const read = await t.store.readStream(stream);
      expect(read.map((e) => [e.revision, e.type, e.id])).toEqual(events.map((e, i) => [i, e.type, e.id]));
      expect(read[2]!.data).toEqual({ nested: { x: [1, 2] } });
      expect(read[0]!.metadata).toEqual(events[0]!.metadata);
      expect(comparePositions(read[0]!.position, read[1]!.position)).toBeLessThan(0);
    });

    it('reads an unknown stream as empty', async () => {
      expect(await t.store.readStream(s('nothing'))).toEqual([]);
    });

    it('enforces each kind of expected revision with a typed conflict', async () => {
      const stream = s('exp');
      await expect(t.store.append([{ stream, expectedRevision: 0, events: [ev('A')] }])).rejects.toBeInstanceOf(WrongExpectedRevisionError);
      await expect(t.store.append([{ stream, expectedRevision: 'stream_exists', events: [ev('A')] }])).rejects.toBeInstanceOf(
        WrongExpectedRevisionError,
      );
      await t.store.append([{ stream, expectedRevision: 'no_stream', events: [ev('A')] }]);
      await expect(t.store.append([{ stream, expectedRevision: 'no_stream', events: [ev('B')] }])).rejects.toMatchObject({
        name: 'WrongExpectedRevisionError',
        stream,
        actual: 0,
      });
      await t.store.append([{ stream, expectedRevision: 0, events: [ev('B')] }]);
      await t.store.append([{ stream, expectedRevision: 'stream_exists', events: [ev('C')] }]);
      await t.store.append([{ stream, expectedRevision: 'any', events: [ev('D')] }]);
      await expect(t.store.append([{ stream, expectedRevision: 1, events: [ev('E')] }])).rejects.toBeInstanceOf(WrongExpectedRevisionError);
      expect((await t.store.readStream(stream)).map((e) => e.type)).toEqual(['A', 'B', 'C', 'D']);
    });

    it('lets exactly one of two writers racing on one stream win; the other gets the conflict', async () => {
      const stream = s('race');
      await t.store.append([{ stream, expectedRevision: 'no_stream', events: [ev('Start')] }]);
      const results = await Promise.allSettled([
        t.store.append([{ stream, expectedRevision: 0, events: [ev('Left')] }]),
        t.store.append([{ stream, expectedRevision: 0, events: [ev('Right')] }]),
      ]);
      const won = results.filter((r) => r.status === 'fulfilled');
      const lost = results.filter((r): r is PromiseRejectedResult => r.status === 'rejected');
      expect(won).toHaveLength(1);
      expect(lost).toHaveLength(1);
      expect(lost[0]!.reason).toBeInstanceOf(WrongExpectedRevisionError);
      expect(await t.store.readStream(stream)).toHaveLength(2);
    });

    it('lets exactly one of ten writers creating the same stream win', async () => {
      const stream = s('create-race');
      const results = await Promise.allSettled(
        Array.from({ length: 10 }, (_, i) => t.store.append([{ stream, expectedRevision: 'no_stream', events: [ev(`W${i}`)] }])),
      );
      expect(results.filter((r) => r.status === 'fulfilled')).toHaveLength(1);
      for (const r of results) {
        if (r.status === 'rejected') expect(r.reason).toBeInstanceOf(WrongExpectedRevisionError);
      }
      expect(await t.store.readStream(stream)).toHaveLength(1);
    });

    it('lets appends that create the same new streams in opposite orders all succeed with "any"', async () => {
      const a = s('cross-a');
      const b = s('cross-b');
      const results = await Promise.allSettled(
        Array.from({ length: 8 }, (_, i) =>
          t.store.append((i % 2 ? [a, b] : [b, a]).map((stream) => ({ stream, expectedRevision: 'any' as const, events: [ev(`W${i}`)] }))),
        ),
      );
      expect(results.filter((r) => r.status === 'rejected').map((r) => String((r as PromiseRejectedResult).reason))).toEqual([]);
      expect(await t.store.readStream(a)).toHaveLength(8);
      expect((await t.store.readStream(b)).map((e) => e.revision)).toEqual([0, 1, 2, 3, 4, 5, 6, 7]);
    });

    it("stores a multi-stream append at each stream's own revisions, in the order of the writes", async () => {
      const [a, b, c] = [s('order-a'), s('order-b'), s('order-c')];
      await t.store.append([{ stream: b, expectedRevision: 'no_stream', events: [ev('B0'), ev('B1')] }]);
      const writes = [
        { stream: c, expectedRevision: 'no_stream' as const, events: [ev('C0')] },
        { stream: b, expectedRevision: 1, events: [ev('B2'), ev('B3'), ev('B4')] },
        { stream: a, expectedRevision: 'any' as const, events: [ev('A0'), ev('A1')] },
      ];
      const r = await t.store.append(writes);
      expect(r.revisions).toEqual([
        { stream: c, revision: 0 },
        { stream: b, revision: 4 },
        { stream: a, revision: 1 },
      ]);
      expect((await t.store.readStream(b)).map((e) => [e.revision, e.type])).toEqual([
        [0, 'B0'],
        [1, 'B1'],
        [2, 'B2'],
        [3, 'B3'],
        [4, 'B4'],
      ]);
      // Across streams, the log holds the events as the writes listed them.
      const stored = (await Promise.all([c, b, a].map((x) => t.store.readStream(x))))
        .flat()
        .filter((e) => e.type !== 'B0' && e.type !== 'B1');
      const inLog = [...stored].sort((x, y) => comparePositions(x.position, y.position)).map((e) => e.type);
      expect(inLog).toEqual(['C0', 'B2', 'B3', 'B4', 'A0', 'A1']);
      expect(comparePositions(stored.at(-1)!.position, r.position)).toBe(0);
    });

    it('refuses an append that names one stream twice, and writes nothing', async () => {
      const a = s('twice-a');
      const b = s('twice-b');
      await expect(
        t.store.append([
          { stream: a, expectedRevision: 'any', events: [ev('A0')] },
          { stream: b, expectedRevision: 'any', events: [ev('B0')] },
          { stream: a, expectedRevision: 'any', events: [ev('A1')] },
        ]),
      ).rejects.toThrow('names the same stream twice');
      expect(await t.store.readStream(a)).toEqual([]);
      expect(await t.store.readStream(b)).toEqual([]);
    });

    it('writes nothing at all when one expectation of a multi-stream append fails', async () => {
      const a = s('multi-a');
      const b = s('multi-b');
      const c = s('multi-c');
      await t.store.append([{ stream: b, expectedRevision: 'no_stream', events: [ev('B0')] }]);
      await expect(
        t.store.append([
          { stream: a, expectedRevision: 'no_stream', events: [ev('A0')] },
          { stream: b, expectedRevision: 5, events: [ev('B1')] },
          { stream: c, expectedRevision: 'any', events: [ev('C0')] },
        ]),
      ).rejects.toMatchObject({ name: 'WrongExpectedRevisionError', stream: b });
      expect(await t.store.readStream(a)).toEqual([]);
      expect(await t.store.readStream(b)).toHaveLength(1);
      expect(await t.store.readStream(c)).toEqual([]);

      const ok = await t.store.append([
        { stream: a, expectedRevision: 'no_stream', events: [ev('A0')] },
        { stream: b, expectedRevision: 0, events: [ev('B1'), ev('B2')] },
      ]);
      expect(ok.revisions).toEqual([
        { stream: a, revision: 0 },
        { stream: b, revision: 2 },
      ]);
    });

    it('does not store an event id twice: a retried append is answered without writing', async () => {
      const stream = s('idem');
      const events = [ev('A'), ev('B')];
      const first = await t.store.append([{ stream, expectedRevision: 'no_stream', events }]);
      const again = await t.store.append([{ stream, expectedRevision: 'no_stream', events }]);
      expect(again.revisions).toEqual(first.revisions);
      expect(await t.store.readStream(stream)).toHaveLength(2);
      const all = await readEverything(t.store);
      expect(all.filter((e) => e.id === events[0]!.id)).toHaveLength(1);
    });

    it('answers a repeated multi-stream append as its first attempt, even after its streams moved on, storing nothing twice', async () => {
      const [worker, code, month] = [s('repeat-worker'), s('repeat-code'), s('repeat-month')];
      await t.store.append([{ stream: worker, expectedRevision: 'no_stream', events: [ev('W0')] }]);
      const writes = [
        { stream: worker, expectedRevision: 0, events: [ev('W1'), ev('W2')] },
        { stream: code, expectedRevision: 'no_stream' as const, events: [ev('C0')] },
        { stream: month, expectedRevision: 'any' as const, events: [ev('M0')] },
      ];
      const first = await t.store.append(writes);
      // Others write to two of its streams before the repeat arrives.
      await t.store.append([{ stream: worker, expectedRevision: 2, events: [ev('W3')] }]);
      await t.store.append([{ stream: month, expectedRevision: 'any', events: [ev('M1')] }]);

      const again = await t.store.append(writes);
      expect(again.revisions).toEqual(first.revisions);
      expect(comparePositions(again.position, first.position)).toBe(0);
      expect((await t.store.readStream(worker)).map((e) => e.type)).toEqual(['W0', 'W1', 'W2', 'W3']);
      expect((await t.store.readStream(code)).map((e) => e.type)).toEqual(['C0']);
      expect((await t.store.readStream(month)).map((e) => e.type)).toEqual(['M0', 'M1']);
    });

    it("takes an import's events inside the import's transaction: streams with events found, writes appended, a stream taken refused", async () => {
      expect(t.store.logDatabase()).toBe(t.logDb);
      const inImport = (fn: (tx: Queryable) => Promise<void>) => (t.logDb ? t.logDb.transaction(fn) : fn(noTransaction));
      const [old, fresh, empty] = [s('worker'), s('pila'), s('never')];
      await t.store.append([{ stream: old, expectedRevision: 'no_stream', events: [ev('A')] }]);
      await inImport(async (tx) => {
        await t.store.claimAppend(tx);
        expect(await t.store.existingStreams(tx, [old, fresh, empty])).toEqual(new Set([old]));
        await (
          await t.store.prepareImport([
            { stream: old, expectedRevision: 'any', events: [ev('B')] },
            { stream: fresh, expectedRevision: 'no_stream', events: [ev('C'), ev('D')] },
          ])
        ).append(tx);
      });
      expect((await t.store.readStream(old)).map((e) => [e.revision, e.type])).toEqual([
        [0, 'A'],
        [1, 'B'],
      ]);
      expect((await t.store.readStream(fresh)).map((e) => [e.revision, e.type])).toEqual([
        [0, 'C'],
        [1, 'D'],
      ]);
      await expect(
        inImport(async (tx) => {
          await t.store.claimAppend(tx);
          await (await t.store.prepareImport([{ stream: fresh, expectedRevision: 'no_stream', events: [ev('E')] }])).append(tx);
        }),
      ).rejects.toBeInstanceOf(WrongExpectedRevisionError);
      expect((await t.store.readStream(fresh)).map((e) => e.type)).toEqual(['C', 'D']);
    });

    it('appendAny adds to several streams, new or not, at their next revisions, without checking any expectation', async () => {
      const old = s('audit');
      const fresh = s('audit');
      await t.store.append([{ stream: old, expectedRevision: 'no_stream', events: [ev('A'), ev('B')] }]);
      const r = await t.store.appendAny([
        { stream: old, expectedRevision: 'any', events: [ev('C')] },
        { stream: fresh, expectedRevision: 'any', events: [ev('D'), ev('E')] },
      ]);
      expect(r.revisions).toEqual(
        expect.arrayContaining([
          { stream: old, revision: 2 },
          { stream: fresh, revision: 1 },
        ]),
      );
      expect((await t.store.readStream(old)).map((e) => [e.revision, e.type])).toEqual([
        [0, 'A'],
        [1, 'B'],
        [2, 'C'],
      ]);
      expect((await t.store.readStream(fresh)).map((e) => e.type)).toEqual(['D', 'E']);
      const head = await t.store.headPosition();
      expect(comparePositions(r.position, head)).toBeLessThanOrEqual(0);
    });

    it('readStreams reads several streams each from its own revision; a missing one, or one read past its end, is empty', async () => {
      const a = s('worker');
      const b = s('unit');
      await t.store.append([
        { stream: a, expectedRevision: 'no_stream', events: [ev('A0'), ev('A1'), ev('A2')] },
        { stream: b, expectedRevision: 'no_stream', events: [ev('B0')] },
      ]);
      const missing = s('nowhere');
      const read = await t.store.readStreams([
        { stream: a, fromRevision: 1 },
        { stream: b, fromRevision: 0 },
        { stream: missing, fromRevision: 0 },
      ]);
      expect(read.get(a)!.map((e) => [e.revision, e.type])).toEqual([
        [1, 'A1'],
        [2, 'A2'],
      ]);
      expect(read.get(b)!.map((e) => e.type)).toEqual(['B0']);
      expect(read.get(missing) ?? []).toEqual([]);
      const past = await t.store.readStreams([{ stream: b, fromRevision: 5 }]);
      expect(past.get(b) ?? []).toEqual([]);
    });

    it('delivers readAll in a stable order, each event once, across pages', async () => {
      const head = await t.store.headPosition();
      const streams = [s('p1'), s('p2'), s('p3')];
      let last = head;
      for (let i = 0; i < 30; i++) {
        const stream = streams[i % 3]!;
        last = (await t.store.append([{ stream, expectedRevision: 'any', events: [ev('Tick', { i })] }])).position;
      }
      const read = await readEverything(t.store, head, 7, last);
      const ticks = read.filter((e) => streams.includes(e.stream));
      expect(ticks.map((e) => e.data.i)).toEqual(Array.from({ length: 30 }, (_, i) => i));
      for (let i = 1; i < read.length; i++) {
        expect(comparePositions(read[i - 1]!.position, read[i]!.position)).toBeLessThan(0);
      }
      expect(await t.store.countAfter(head)).toBe(read.length);
      // A bounded count (the projections' lag) stops at its bound, and is exact below it.
      expect(await t.store.countAfter(head, { upTo: 12 })).toBe(12);
      expect(await t.store.countAfter(read.at(-5)!.position, { upTo: 12 })).toBe(4);
      expect(await t.store.countAfter(read.at(-1)!.position, { upTo: 12 })).toBe(0);
    });

    it('reads only the events of the types asked for, in order across pages, and counts them where it can', async () => {
      const head = await t.store.headPosition();
      const streams = [s('q1'), s('q2')];
      const kinds = ['Wanted', 'Other', 'AlsoWanted'];
      for (let i = 0; i < 24; i++) {
        await t.store.append([{ stream: streams[i % 2]!, expectedRevision: 'any', events: [ev(kinds[i % 3]!, { i })] }]);
      }
      const types = ['Wanted', 'AlsoWanted'];
      const read: StoredEvent[] = [];
      for (let after = head; ;) {
        const page = await t.store.readAll({ after, limit: 5, types });
        if (page.length === 0) break;
        read.push(...page);
        after = page.at(-1)!.position;
      }
      expect(read.map((e) => e.data.i)).toEqual(Array.from({ length: 24 }, (_, i) => i).filter((i) => i % 3 !== 1));
      expect(read.every((e) => types.includes(e.type))).toBe(true);
      if (t.store.logDatabase()) expect(await t.store.countAfter(head, { types })).toBe(16);
      if (!t.store.readByStream) return;
      // Stream by stream, each in revision order, up to a position: what came after it is left out.
      const upTo = read.at(-3)!.position;
      const byStream: StoredEvent[] = [];
      for (let after: { stream: string; revision: number } | undefined; ;) {
        const page = await t.store.readByStream({ after, upTo, types, limit: 3 });
        if (page.length === 0) break;
        byStream.push(...page);
        after = { stream: page.at(-1)!.stream, revision: page.at(-1)!.revision };
      }
      const upToHere = read.slice(0, -2);
      const mine = byStream.filter((e) => streams.includes(e.stream));
      const expected = [...streams].sort().flatMap((stream) => upToHere.filter((e) => e.stream === stream).map((e) => e.data.i));
      expect(mine.map((e) => e.data.i)).toEqual(expected);
      // The very events the log's order gives, but for their hash: a fold does not check the chain.
      const byId = new Map(read.map((e) => [e.id, e]));
      for (const e of mine) {
        const { hash, ...rest } = byId.get(e.id)!;
        expect(hash).toMatch(/^[0-9a-f]{64}$/);
        expect(e).toStrictEqual(rest);
      }
    });

    it('writes and reads back 10,000 events in order', async () => {
      const head = await t.store.headPosition();
      const stream = s('bulk');
      const batch = 500;
      for (let i = 0; i < 10_000; i += batch) {
        const events = Array.from({ length: batch }, (_, k) => ev('Bulk', { i: i + k }));
        await t.store.append([{ stream, expectedRevision: i === 0 ? 'no_stream' : i - 1, events }]);
      }
      const all = (await readEverything(t.store, head, 2000)).filter((e) => e.stream === stream);
      expect(all).toHaveLength(10_000);
      expect(all.every((e, i) => e.data.i === i && e.revision === i)).toBe(true);
      const fromStream = await t.store.readStream(stream);
      expect(fromStream).toHaveLength(10_000);
    });

    it('chains every stream: each event holds SHA-256 of the previous hash and its canonical JSON, whatever the append', async () => {
      const [a, b, c] = [s('chain-a'), s('chain-b'), s('chain-c')];
      const odd = { ñandú: 'é😀\u0001"\\', n: [1e21, 1e-7, -0, 0.1 + 0.2, -5], nested: { z: null, a: true, '': {} } };
      await t.store.append([{ stream: a, expectedRevision: 'no_stream', events: [ev('A0', odd), ev('A1')] }]);
      await t.store.append([
        { stream: a, expectedRevision: 1, events: [ev('A2')] },
        { stream: b, expectedRevision: 'any', events: [ev('B0'), ev('B1')] },
      ]);
      // Appends of the same moment, some sharing a stream, as the server's groups take them.
      await Promise.all(
        Array.from({ length: 6 }, (_, i) => t.store.append([{ stream: i % 2 ? b : c, expectedRevision: 'any', events: [ev(`X${i}`)] }])),
      );
      await t.store.append([{ stream: c, expectedRevision: 'stream_exists', events: [ev('C')] }]);
      await t.store.appendAny([{ stream: a, expectedRevision: 'any', events: [ev('Any')] }]);
      // The import's append, which chains outside the database on PostgreSQL: on a stream that
      // has events and on a new one.
      const d = s('chain-d');
      const inImport = async (fn: (tx: Queryable) => Promise<void>) => (t.logDb ? t.logDb.transaction(fn) : fn(noTransaction));
      await inImport(async (tx) => {
        await t.store.claimAppend(tx);
        await (
          await t.store.prepareImport([
            { stream: a, expectedRevision: 'any', events: [ev('I0', odd), ev('I1'), ev('I2', { meta: 'none' })] },
            { stream: d, expectedRevision: 'no_stream', events: [ev('D0', odd)] },
          ])
        ).append(tx);
      });
      expect((await t.store.readStream(a)).slice(-3).map((e) => e.type)).toEqual(['I0', 'I1', 'I2']);

      for (const stream of [a, b, c, d]) {
        const events = await t.store.readStream(stream);
        let previous = '';
        for (const e of events) {
          expect(e.hash, `${stream}@${e.revision}`).toBe(chainHash(previous, e));
          previous = e.hash!;
        }
      }
      expect((await t.store.readStream(a))[0]!.data).toEqual({ ...odd, n: [1e21, 1e-7, 0, 0.1 + 0.2, -5] });
      // The log's readers see the same links.
      const head = await t.store.readStream(b);
      const inLog = (await readEverything(t.store)).filter((e) => e.stream === b);
      expect(inLog.map((e) => e.hash)).toEqual(head.map((e) => e.hash));
    });

    it('never passes an append whose transaction is still open, then delivers it once committed', async (ctx) => {
      if (!t.holdOpenAppend) {
        ctx.skip(t.holdOpenSkipReason ?? 'this adapter cannot hold an append open');
        return;
      }
      const head = await t.store.headPosition();
      const slow = s('slow');
      const fast = s('fast');
      const slowEvent = ev('Slow');
      const held = await t.holdOpenAppend(slow, [slowEvent]);
      let committed = false;
      try {
        await t.store.append([{ stream: fast, expectedRevision: 'no_stream', events: [ev('Fast1')] }]);
        await t.store.append([{ stream: fast, expectedRevision: 0, events: [ev('Fast2')] }]);
        const whileOpen = await readEverything(t.store, head);
        expect(whileOpen.map((e) => e.type)).not.toContain('Fast1');
        expect(whileOpen.map((e) => e.type)).not.toContain('Slow');
        await held.commit();
        committed = true;
        const after = await readEverything(t.store, head);
        const types = after.map((e) => e.type).filter((x) => ['Slow', 'Fast1', 'Fast2'].includes(x));
        expect(types).toEqual(['Slow', 'Fast1', 'Fast2']);
      } finally {
        if (!committed) await held.commit();
      }
    });
  });
}
