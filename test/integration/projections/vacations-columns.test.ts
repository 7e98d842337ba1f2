import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { ProjectionService, VACATIONS_TABLE, silentLogger, vacationByCode } from '../../../src/projections/index.ts';
import { ensureProjectionTables } from '../../../src/projections/runtime/tables.ts';
import { PostgresEventStore } from '../../../src/store/postgres-store.ts';
import { freshDb, type TestDb } from '../../support/db.ts';
import { approvedEvent, created, interruptedEvent, record, toWorker } from '../../support/event-builders.ts';

describe('the vacations read model of a database from before interruptions', () => {
  let t: TestDb;
  beforeAll(async () => {
    t = await freshDb();
  });
  afterAll(async () => {
    await t?.drop();
  });

  it('gains the interruption columns at the next start, keeps its rows, and projects an interruption into them', async () => {
    const store = new PostgresEventStore(t.db);
    const a = record({ codigoPila: 'COL-A', workerId: 401, startDate: '2024-03-04', endDate: '2024-03-15' });
    const first = await toWorker(store, 401, [created(a), approvedEvent(a)]);
    let service = new ProjectionService(t.db, store, { logger: silentLogger, idleMs: 10 });
    await service.start();
    expect(await service.waitFor(first.position, 10_000)).toBe(true);
    await service.stop();
    // As a table made before the columns existed.
    await t.db.exec(`ALTER TABLE ${VACATIONS_TABLE} DROP COLUMN interrupted_on, DROP COLUMN interruption_reason, DROP COLUMN continues`);

    await ensureProjectionTables(t.db);
    expect(await vacationByCode(t.db, 'COL-A')).toMatchObject({ approved: true, businessDays: 10, interruptedOn: null, continues: null });
    // A start that finds them there changes nothing.
    await ensureProjectionTables(t.db);

    const cut = await toWorker(store, 401, [
      interruptedEvent(a, { on: '2024-03-07', end: '2024-03-06', enjoyed: 3, calendarDays: 3, value: 300_000 }),
    ]);
    service = new ProjectionService(t.db, store, { logger: silentLogger, idleMs: 10 });
    await service.start();
    try {
      expect(await service.waitFor(cut.position, 10_000)).toBe(true);
    } finally {
      await service.stop();
    }
    expect(await vacationByCode(t.db, 'COL-A')).toMatchObject({
      endDate: '2024-03-06',
      businessDays: 3,
      totalValue: 300_000,
      interruptedOn: '2024-03-07',
      interruptionReason: 'incapacidad',
      amortizations: [{ periodo: '2024-03', diasHabiles: 3, diasCalendario: 3, valor: 300_000 }],
    });
  });
});
