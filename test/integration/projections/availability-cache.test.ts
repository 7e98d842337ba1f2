import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { AvailabilityCache } from '../../../src/projections/availability/cache.ts';
import { ProjectionService } from '../../../src/projections/runtime/service.ts';
import { silentLogger } from '../../../src/projections/types.ts';
import { PostgresEventStore } from '../../../src/store/postgres-store.ts';
import type { Queryable } from '../../../src/db/types.ts';
import type { NewEvent } from '../../../src/store/types.ts';
import { freshDb, type TestDb } from '../../support/db.ts';
import { created, deletedEvent, record } from '../../support/event-builders.ts';

describe('availability kept beside the runner that writes it', () => {
  let t: TestDb;
  let store: PostgresEventStore;
  let reads = 0;
  let counting: Queryable;

  beforeAll(async () => {
    t = await freshDb();
    store = new PostgresEventStore(t.db);
    counting = { query: (sql, params) => (reads++, t.db.query(sql, params)), exec: (sql) => t.db.exec(sql) };
  });
  afterAll(async () => {
    await t?.drop();
  });

  /** Runs `fn` with a projection service that is the one applying availability, as in a running service. */
  const whileApplying = async (fn: (service: ProjectionService) => Promise<void>) => {
    const service = new ProjectionService(t.db, store, { logger: silentLogger, idleMs: 10 });
    await service.start();
    try {
      for (let i = 0; i < 100 && !service.isApplying('availability'); i++) await new Promise((r) => setTimeout(r, 20));
      await fn(service);
    } finally {
      await service.stop();
    }
  };

  /** Appends one event to a worker's stream and waits until the runners have applied it. */
  const applied = async (service: ProjectionService, workerId: number, expectedRevision: 'no_stream' | number, event: NewEvent) => {
    const w = await store.append([{ stream: `worker-${workerId}`, expectedRevision, events: [event] }]);
    expect(await service.waitFor(w.position, 10_000)).toBe(true);
  };

  it('serves repeated reads from memory and never an answer older than what was applied', async () => {
    await whileApplying(async (service) => {
      const cache = new AvailabilityCache(counting, service);
      expect(await cache.get(7)).toMatchObject({ daysTaken: 0 });
      const before = reads;
      expect(await cache.get(7)).toMatchObject({ daysTaken: 0 });
      expect(reads).toBe(before);

      const r = record({ codigoPila: 'VAC_1_00000001_00000001', workerId: 7, businessDays: 6 });
      await applied(service, 7, 'no_stream', created(r));
      expect(await cache.get(7)).toMatchObject({ daysTaken: 6, liveRecords: 1 });

      await applied(service, 7, 0, deletedEvent(r));
      expect(await cache.get(7)).toMatchObject({ daysTaken: 0, liveRecords: 0 });
    });
  });

  it('reads the database every time while this process does not apply availability', async () => {
    const idle = new ProjectionService(t.db, store, { logger: silentLogger });
    const cache = new AvailabilityCache(counting, idle);
    const before = reads;
    await cache.get(7);
    await cache.get(7);
    expect(reads).toBe(before + 2);
  });

  it('holds at most its bound, dropping the least recently used, and reads a dropped worker again', async () => {
    await whileApplying(async (service) => {
      const cache = new AvailabilityCache(counting, service, 3);
      // Twelve workers through a cache of three, the first one asked again every time.
      for (let w = 100; w < 112; w++) {
        await cache.get(100);
        await cache.get(w);
        expect(cache.size).toBeLessThanOrEqual(3);
      }
      let before = reads;
      await cache.get(100);
      expect(reads).toBe(before);
      before = reads;
      await cache.get(101);
      expect(reads).toBe(before + 1);
    });
  });

  it('does not keep a read that a batch applied while it was on its way may have missed', async () => {
    await whileApplying(async (service) => {
      const r = record({ codigoPila: 'VAC_3_00000003_00000003', workerId: 9, businessDays: 5 });
      let raced = false;
      const racing = {
        query: async (sql: string, params?: unknown[]) => {
          const answer = await t.db.query(sql, params);
          if (!raced) {
            raced = true;
            await applied(service, 9, 'no_stream', created(r));
          }
          return answer;
        },
        exec: (sql: string) => t.db.exec(sql),
      } as Queryable;
      const cache = new AvailabilityCache(racing, service);
      expect(await cache.get(9)).toMatchObject({ daysTaken: 0 });
      expect(await cache.get(9)).toMatchObject({ daysTaken: 5 });
    });
  });
});
