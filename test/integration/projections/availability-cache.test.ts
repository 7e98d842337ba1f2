import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { AvailabilityCache } from '../../../src/projections/availability/cache.ts';
import { ProjectionService } from '../../../src/projections/service.ts';
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

  it('warms in bulk from the read model, zeros for workers without records, and still follows later batches', async () => {
    await whileApplying(async (service) => {
      const r = record({ codigoPila: 'VAC_2_00000002_00000002', workerId: 8, businessDays: 4 });
      await applied(service, 8, 'no_stream', created(r));

      const cache = new AvailabilityCache(counting, service);
      const before = reads;
      expect(await cache.warm([8, 9, 10], 2)).toBe(3);
      expect(reads).toBe(before + 2);
      expect(await cache.get(8)).toMatchObject({ daysTaken: 4, liveRecords: 1 });
      expect(await cache.get(9)).toMatchObject({ daysTaken: 0, liveRecords: 0 });
      expect(reads).toBe(before + 2);

      await applied(service, 8, 0, deletedEvent(r));
      expect(await cache.get(8)).toMatchObject({ daysTaken: 0, liveRecords: 0 });
    });
  });

  it('warms nothing while this process does not apply availability', async () => {
    const idle = new ProjectionService(t.db, store, { logger: silentLogger });
    const cache = new AvailabilityCache(counting, idle);
    const before = reads;
    expect(await cache.warm([8, 9])).toBe(0);
    expect(reads).toBe(before);
  });
});
