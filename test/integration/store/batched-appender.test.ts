import { randomUUID } from 'node:crypto';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { BatchedAppender } from '../../../src/caching/batched-appender.ts';
import { PostgresEventStore } from '../../../src/store/postgres-store.ts';
import type { EventStore, StreamWrite } from '../../../src/store/types.ts';
import { freshDb, type TestDb } from '../../support/db.ts';

const write = (stream: string, n: number): StreamWrite => ({
  stream,
  expectedRevision: 'any',
  events: [{ id: randomUUID(), type: 'Audited', data: { n } }],
});

describe('batched appends of audit records', () => {
  let t: TestDb;
  let store: PostgresEventStore;
  let appends = 0;
  let shortAppends = 0;
  let counting: EventStore;

  beforeAll(async () => {
    t = await freshDb();
    store = new PostgresEventStore(t.db);
    counting = new Proxy(store, {
      get: (target, prop) =>
        prop === 'append'
          ? (w: StreamWrite[]) => (appends++, target.append(w))
          : prop === 'appendAny'
            ? (w: StreamWrite[]) => (shortAppends++, target.appendAny(w))
            : Reflect.get(target, prop, target),
    });
  });
  afterAll(async () => {
    await t?.drop();
  });

  it("stores every record of a burst, in the order asked, with far fewer appends, by the store's short way", async () => {
    const batched = new BatchedAppender(counting);
    appends = 0;
    shortAppends = 0;
    const positions = await Promise.all(Array.from({ length: 60 }, (_, n) => batched.append([write(`audit-worker-${n % 3}`, n)])));
    expect(positions).toHaveLength(60);
    expect(appends).toBe(0);
    expect(shortAppends).toBeGreaterThan(0);
    expect(shortAppends).toBeLessThan(10);
    for (let w = 0; w < 3; w++) {
      const stored = await store.readStream(`audit-worker-${w}`);
      expect(stored.map((e) => e.data.n)).toEqual(Array.from({ length: 20 }, (_, k) => k * 3 + w));
    }
  });

  it('gathers everything that arrives while a write is in flight into the next write, and drains on demand', async () => {
    // A store whose first write is held until every later record has been asked for.
    const sizes: number[] = [];
    let release!: () => void;
    const gate = new Promise<void>((r) => (release = r));
    const slow = Object.assign(Object.create(store) as EventStore, {
      appendAny: async (w: StreamWrite[]) => {
        sizes.push(w.reduce((n, x) => n + x.events.length, 0));
        if (sizes.length === 1) await gate;
        return store.appendAny(w);
      },
    });
    const batched = new BatchedAppender(slow);
    const pending = [batched.append([write('audit-worker-20', 0)])];
    while (sizes.length === 0) await new Promise((r) => setTimeout(r, 1));
    for (let n = 1; n <= 20; n++) {
      pending.push(batched.append([write(`audit-worker-${20 + (n % 4)}`, n)]));
      // Spread over several turns of the event loop, while the first write is held.
      if (n % 5 === 0) await new Promise((r) => setTimeout(r, 3));
    }
    release();
    await Promise.all(pending);
    expect(sizes).toEqual([1, 20]);

    const last = batched.append([write('audit-worker-20', 99)]);
    await batched.drain();
    await expect(last).resolves.toBeDefined();
    expect((await store.readStream('audit-worker-20')).map((e) => e.data.n)).toEqual([0, 4, 8, 12, 16, 20, 99]);
  });

  it('tells every caller of a failed batch that its record was not stored', async () => {
    const batched = new BatchedAppender(counting);
    const bad: StreamWrite = {
      stream: 'audit-worker-9',
      expectedRevision: 'any',
      events: [{ id: 'not-a-uuid', type: 'Audited', data: {} }],
    };
    const results = await Promise.allSettled([batched.append([write('audit-worker-9', 1)]), batched.append([bad])]);
    expect(results.map((r) => r.status)).toEqual(['rejected', 'rejected']);
    expect(await store.readStream('audit-worker-9')).toEqual([]);
  });

  it('refuses writes that carry an expected revision', () => {
    const batched = new BatchedAppender(counting);
    expect(() => batched.append([{ ...write('x', 1), expectedRevision: 0 }])).toThrow(/no expected revision/);
  });
});
