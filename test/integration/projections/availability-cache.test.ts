import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { AvailabilityCache } from '../../../src/projections/availability/cache.ts';
import { ProjectionService } from '../../../src/projections/service.ts';
import { silentLogger } from '../../../src/projections/types.ts';
import { PostgresEventStore } from '../../../src/store/postgres-store.ts';
import type { Queryable } from '../../../src/db/types.ts';
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

  it('serves repeated reads from memory and never an answer older than what was applied', async () => {
    const service = new ProjectionService(t.db, store, { logger: silentLogger, idleMs: 10 });
    await service.start();
    try {
      const cache = new AvailabilityCache(counting, service);
      // Wait for the runner to be the one applying, as in a running service.
      for (let i = 0; i < 100 && !service.isApplying('availability'); i++) await new Promise((r) => setTimeout(r, 20));
      expect(await cache.get(7)).toMatchObject({ daysTaken: 0 });
      const before = reads;
      expect(await cache.get(7)).toMatchObject({ daysTaken: 0 });
      expect(reads).toBe(before);

      const r = record({ codigoPila: 'VAC_1_00000001_00000001', workerId: 7, businessDays: 6 });
      const w = await store.append([{ stream: 'worker-7', expectedRevision: 'no_stream', events: [created(r)] }]);
      expect(await service.waitFor(w.position, 10_000)).toBe(true);
      expect(await cache.get(7)).toMatchObject({ daysTaken: 6, liveRecords: 1 });

      const d = await store.append([{ stream: 'worker-7', expectedRevision: 0, events: [deletedEvent(r)] }]);
      expect(await service.waitFor(d.position, 10_000)).toBe(true);
      expect(await cache.get(7)).toMatchObject({ daysTaken: 0, liveRecords: 0 });
    } finally {
      await service.stop();
    }
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
    const service = new ProjectionService(t.db, store, { logger: silentLogger, idleMs: 10 });
    await service.start();
    try {
      for (let i = 0; i < 100 && !service.isApplying('availability'); i++) await new Promise((r) => setTimeout(r, 20));
      const r = record({ codigoPila: 'VAC_2_00000002_00000002', workerId: 8, businessDays: 4 });
      const w = await store.append([{ stream: 'worker-8', expectedRevision: 'no_stream', events: [created(r)] }]);
      expect(await service.waitFor(w.position, 10_000)).toBe(true);

      const cache = new AvailabilityCache(counting, service);
      const before = reads;
      expect(await cache.warm([8, 9, 10], 2)).toBe(3);
      expect(reads).toBe(before + 2);
      expect(await cache.get(8)).toMatchObject({ daysTaken: 4, liveRecords: 1 });
      expect(await cache.get(9)).toMatchObject({ daysTaken: 0, liveRecords: 0 });
      expect(reads).toBe(before + 2);

      const d = await store.append([{ stream: 'worker-8', expectedRevision: 0, events: [deletedEvent(r)] }]);
      expect(await service.waitFor(d.position, 10_000)).toBe(true);
      expect(await cache.get(8)).toMatchObject({ daysTaken: 0, liveRecords: 0 });
    } finally {
      await service.stop();
    }
  });

  it('warms nothing while this process does not apply availability', async () => {
    const idle = new ProjectionService(t.db, store, { logger: silentLogger });
    const cache = new AvailabilityCache(counting, idle);
    const before = reads;
    expect(await cache.warm([8, 9])).toBe(0);
    expect(reads).toBe(before);
  });
});
