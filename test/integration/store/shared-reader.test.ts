import { randomUUID } from 'node:crypto';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { SharedReader } from '../../../src/caching/shared-reader.ts';
import { PostgresEventStore } from '../../../src/store/postgres-store.ts';
import { START, type EventStore, type Position } from '../../../src/store/types.ts';
import { freshDb, type TestDb } from '../../support/db.ts';

describe('one read of the log shared by the runners of a service', () => {
  let t: TestDb;
  let store: PostgresEventStore;
  let reads = 0;
  let counting: EventStore;

  beforeAll(async () => {
    t = await freshDb();
    store = new PostgresEventStore(t.db);
    counting = new Proxy(store, {
      get: (target, prop) =>
        prop === 'readAll' ? (o: Parameters<EventStore['readAll']>[0]) => (reads++, target.readAll(o)) : Reflect.get(target, prop, target),
    });
  });
  afterAll(async () => {
    await t?.drop();
  });

  const append = (n: number) =>
    store.append([{ stream: `s-${n % 4}`, expectedRevision: 'any', events: [{ id: randomUUID(), type: 'E', data: { n } }] }]);

  async function drain(reader: { readAll: EventStore['readAll'] }, from: Position, limit: number): Promise<number[]> {
    const out: number[] = [];
    let at = from;
    for (;;) {
      const page = await reader.readAll({ after: at, limit });
      if (!page.length) return out;
      out.push(...page.map((e) => e.data.n as number));
      at = page[page.length - 1]!.position;
    }
  }

  it('gives six readers at their own pace exactly what the store gives, with fewer reads', async () => {
    for (let n = 0; n < 120; n++) await append(n);
    const shared = new SharedReader(counting, 50);
    reads = 0;
    const results = await Promise.all([7, 7, 13, 7, 20, 3].map((limit) => drain(shared, START, limit)));
    const direct = await drain(store, START, 1000);
    expect(direct).toEqual(Array.from({ length: 120 }, (_, n) => n));
    for (const r of results) expect(r).toEqual(direct);
    // Six readers draining alone would read at least 120/20 .. 120/3 times each.
    expect(reads).toBeLessThan((6 * 120) / 7);
  });

  it('keeps delivering events appended while readers are part way through', async () => {
    const shared = new SharedReader(counting, 30);
    const first = await shared.readAll({ after: START, limit: 10 });
    for (let n = 120; n < 140; n++) await append(n);
    const rest = await drain(shared, first[first.length - 1]!.position, 9);
    expect([...first.map((e) => e.data.n), ...rest]).toEqual(Array.from({ length: 140 }, (_, n) => n));
  });
});
