import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import {
  ProjectionService,
  REGISTER_TABLE,
  liveRegisterOf,
  registerAsOf,
  registerProjector,
  silentLogger,
} from '../../../src/projections/index.ts';
import { decode } from '../../../src/events/codec.ts';
import { PostgresEventStore } from '../../../src/store/postgres-store.ts';
import type { AppendResult } from '../../../src/store/types.ts';
import { freshDb, type TestDb } from '../../support/db.ts';
import { applyBatch } from '../../../src/projections/runtime/units.ts';
import {
  approvedEvent,
  created,
  deletedEvent,
  editEvents,
  imported,
  interruptedEvent,
  record,
  toWorker,
} from '../../support/event-builders.ts';

describe('the register read model', () => {
  let t: TestDb;
  let store: PostgresEventStore;
  let service: ProjectionService;

  beforeAll(async () => {
    t = await freshDb();
    store = new PostgresEventStore(t.db);
    // Batches of two: a record's versions land in different batches as well as in the same one.
    service = new ProjectionService(t.db, store, { logger: silentLogger, batchSize: 2, idleMs: 10 });
    await service.start();
  });
  afterAll(async () => {
    await service?.stop();
    await t?.drop();
  });

  const settle = async (r: AppendResult) => expect(await service.waitFor(r.position, 10_000)).toBe(true);
  const on = (businessDate: string) => ({ businessDate });
  const codes = (rows: { codigoPila: string; approved: boolean }[]) => rows.map((r) => `${r.codigoPila}${r.approved ? '*' : ''}`);

  it('given a record created, approved, and another created then deleted, when read as of each day, then each day shows its own state', async () => {
    const a = record({ codigoPila: 'R201A', workerId: 201, startDate: '2026-03-02', endDate: '2026-03-13' });
    const b = record({ codigoPila: 'R201B', workerId: 201, startDate: '2026-05-04', endDate: '2026-05-08', businessDays: 5 });
    await toWorker(store, 201, [created(a, on('2026-02-01'))]);
    await toWorker(store, 201, [approvedEvent(a, on('2026-02-03')), created(b, on('2026-02-03'))]);
    await settle(await toWorker(store, 201, [deletedEvent(b, {}, on('2026-02-10'))]));

    expect(codes(await registerAsOf(t.db, [201], '2026-01-31'))).toEqual([]);
    expect(codes(await registerAsOf(t.db, [201], '2026-02-01'))).toEqual(['R201A']);
    expect(codes(await registerAsOf(t.db, [201], '2026-02-09'))).toEqual(['R201A*', 'R201B']);
    expect(codes(await registerAsOf(t.db, [201], '2026-02-10'))).toEqual(['R201A*']);
    expect(await liveRegisterOf(t.db, 201)).toEqual([
      expect.objectContaining({
        codigoPila: 'R201A',
        approved: true,
        startDate: '2026-03-02',
        endDate: '2026-03-13',
        businessDays: 10,
        recordedOn: '2026-02-03',
        continues: null,
      }),
    ]);
  });

  it("given an edit, then the old record leaves and the new one enters the register on the edit's day", async () => {
    const old = record({ codigoPila: 'R202A', workerId: 202 });
    const next = record({ codigoPila: 'R202B', workerId: 202, startDate: '2024-04-01', endDate: '2024-04-05', businessDays: 5 });
    await toWorker(store, 202, [created(old, on('2024-03-01'))]);
    await settle(await toWorker(store, 202, editEvents(old, next, on('2024-03-05'))));
    expect(codes(await registerAsOf(t.db, [202], '2024-03-04'))).toEqual(['R202A']);
    expect(codes(await registerAsOf(t.db, [202], '2024-03-05'))).toEqual(['R202B']);
  });

  it("given an imported record, then it enters approved or not as the import says, on the import's day", async () => {
    const r = record({ codigoPila: 'R203A', workerId: 203 });
    await settle(await toWorker(store, 203, [imported(r, true, on('2026-01-15'))]));
    expect(codes(await registerAsOf(t.db, [203, 201], '2026-02-09'))).toEqual(['R201A*', 'R201B', 'R203A*']);
  });

  /** Ten business days from 2 to 13 March 2026. */
  const twoWeeksOfMarch = (codigoPila: string, workerId: number) =>
    record({ codigoPila, workerId, startDate: '2026-03-02', endDate: '2026-03-13', businessDays: 10, calendarDays: 12 });

  it('given an approved record interrupted, then from that day the register holds the days enjoyed, the date and the reason', async () => {
    const r = twoWeeksOfMarch('R204A', 204);
    await toWorker(store, 204, [created(r, on('2026-02-01')), approvedEvent(r, on('2026-02-02'))]);
    await settle(
      await toWorker(store, 204, [
        interruptedEvent(
          r,
          { on: '2026-03-05', end: '2026-03-04', enjoyed: 3, calendarDays: 3, value: 300_000, reason: 'otro' },
          on('2026-03-05'),
        ),
      ]),
    );
    const [before] = await registerAsOf(t.db, [204], '2026-03-04');
    expect(before).toMatchObject({ endDate: '2026-03-13', businessDays: 10, approved: true, interruptedOn: null });
    const [after] = await registerAsOf(t.db, [204], '2026-03-05');
    expect(after).toMatchObject({
      endDate: '2026-03-04',
      businessDays: 3,
      calendarDays: 3,
      totalValue: 300_000,
      approved: true,
      interruptedOn: '2026-03-05',
      interruptionReason: 'otro',
      recordedOn: '2026-03-05',
    });
    expect(await liveRegisterOf(t.db, 204)).toEqual([after]);
  });

  it('given an interruption recorded days after the first day not enjoyed, then the register of the days between shows the vacation whole, as the books then said', async () => {
    const r = twoWeeksOfMarch('R205A', 205);
    await toWorker(store, 205, [created(r, on('2026-02-01')), approvedEvent(r, on('2026-02-02'))]);
    const cut = { on: '2026-03-05', end: '2026-03-04', enjoyed: 3, calendarDays: 3, value: 300_000 };
    await settle(await toWorker(store, 205, [interruptedEvent(r, cut, on('2026-03-09'))]));
    const [between] = await registerAsOf(t.db, [205], '2026-03-06');
    expect(between).toMatchObject({ endDate: '2026-03-13', businessDays: 10, interruptedOn: null });
    const [recorded] = await registerAsOf(t.db, [205], '2026-03-09');
    expect(recorded).toMatchObject({ endDate: '2026-03-04', businessDays: 3, interruptedOn: '2026-03-05', recordedOn: '2026-03-09' });
  });

  it('given the same events applied again, then the rows are the same', async () => {
    const dump = async () =>
      (await t.db.query<{ row: string }>(`SELECT to_jsonb(x)::text AS row FROM ${REGISTER_TABLE} x ORDER BY 1`)).rows;
    const before = await dump();
    const events = (await store.readStream('worker-201')).map((e) => decode(e)!);
    await t.db.transaction(async (tx) => {
      await applyBatch(tx, registerProjector, events.slice(1), '');
      await applyBatch(tx, registerProjector, events, '');
    });
    expect(await dump()).toEqual(before);
  });
});
