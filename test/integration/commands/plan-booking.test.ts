import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { PlanBooking, type PlanLine } from '../../../src/commands/plan-booking.ts';
import type { Actor } from '../../../src/commands/types.ts';
import { commandEvents } from '../../../src/commands/vacation-commands.ts';
import { HolidayCalendar } from '../../../src/domain/index.ts';
import { pilaStream, unitStream, workerStream } from '../../../src/events/streams.ts';
import { importReferenceData } from '../../../src/reference/import.ts';
import { workerFilesByDocuments } from '../../../src/reference/worker-files.ts';
import { PostgresEventStore } from '../../../src/store/postgres-store.ts';
import { ADMIN_ACTOR, commandsOver, vacationRequest } from '../../support/commands.ts';
import { freshDb, type TestDb } from '../../support/db.ts';
import { W } from '../../support/http.ts';
import { loadFixture } from '../../support/server.ts';

/**
 * The plan booking on the store itself: the actor's scope, the lines judged in order with the
 * places of the earlier ones counted, nothing written unless every line passes, and, when they
 * do, the events an individual add writes, on the streams it writes them to.
 */
describe('booking the annual plan all or nothing', () => {
  const TODAY = '2026-11-21';
  let t: TestDb;
  let store: PostgresEventStore;
  let booking: PlanBooking;
  const line = (documentNumber: string, startDate: string, days = 6): PlanLine => ({ documentNumber, startDate, days });
  const head = async () => (await store.headPosition()).commit;

  beforeAll(async () => {
    t = await freshDb();
    await importReferenceData(t.db, loadFixture());
    store = new PostgresEventStore(t.db);
    booking = new PlanBooking({
      events: commandEvents(store),
      reference: { filesByDocuments: (docs) => workerFilesByDocuments(t.db, docs) },
      calendar: new HolidayCalendar(),
      today: () => TODAY,
      nextRecordId: async () => Number((await t.db.query<{ id: string }>(`SELECT nextval('vacation_record_ids')::text AS id`)).rows[0]!.id),
    });
  });
  afterAll(async () => {
    await t?.drop();
  });

  it('refuses, writing nothing, the lines an area head does not reach, an unknown worker, and a third person away at once', async () => {
    const before = await head();
    const tec: Actor = { ...ADMIN_ACTOR, scope: ['SG-TEC'] };
    const outside = await booking.book([line(W.juan, '2027-01-12')], tec);
    expect(outside).toEqual({
      ok: false,
      kind: 'refused',
      lines: [{ index: 0, documentNumber: W.juan, failure: { kind: 'out_of_scope' } }],
    });

    // María, Juan and Luisa work in SG-OPS, whose company contract lets 2 be away at once: the
    // third line is refused for the two before it, which nothing has written.
    const crowded = await booking.book(
      [line(W.maria, '2027-01-12'), line('000', '2027-01-12'), line(W.juan, '2027-01-13'), line(W.luisa, '2027-01-14')],
      ADMIN_ACTOR,
    );
    expect(crowded).toMatchObject({
      ok: false,
      kind: 'refused',
      lines: [
        { index: 1, documentNumber: '000', failure: { kind: 'worker_not_found' } },
        {
          index: 3,
          documentNumber: W.luisa,
          failure: {
            kind: 'rules',
            violations: expect.arrayContaining([{ rule: 'unitFull', maximum: 2, subgerenciaId: 'SG-OPS', day: '2027-01-14' }]),
          },
        },
      ],
    });
    expect(await booking.book([line(W.maria, '2027-01-12'), line(W.maria, '2027-02-01')], ADMIN_ACTOR)).toEqual({
      ok: false,
      kind: 'repeated',
      documentNumber: W.maria,
      indexes: [0, 1],
    });
    expect(await head()).toBe(before);
  });

  it("writes each line as an add does: the record on the worker's stream, its code on its own, its places on the months", async () => {
    const ops: Actor = { ...ADMIN_ACTOR, scope: ['SG-OPS'] };
    const r = await booking.book([line(W.maria, '2026-12-28'), line(W.juan, '2026-12-29')], ops);
    if (!r.ok) throw new Error(JSON.stringify(r));
    expect(r.value.records.map((x) => [x.documentNumber, x.startDate, x.endDate])).toEqual([
      [W.maria, '2026-12-28', '2027-01-05'],
      [W.juan, '2026-12-29', '2027-01-06'],
    ]);
    for (const record of r.value.records) {
      const worker = await store.readStream(workerStream(record.workerId));
      expect(worker.at(-1)).toMatchObject({ type: 'VacationCreated', data: { codigoPila: record.codigoPila } });
      const pila = await store.readStream(pilaStream(record.codigoPila));
      expect(pila.map((e) => [e.type, e.revision])).toEqual([['PilaCodeAssigned', 0]]);
      for (const month of ['2026-12', '2027-01']) {
        const unit = await store.readStream(unitStream('SG-OPS', month));
        expect(
          unit.filter((e) => e.type === 'SlotsBooked' && (e.data as { codigoPila: string }).codigoPila === record.codigoPila),
        ).toHaveLength(1);
      }
      // Under the actor, on the service's business date, as an add's events are.
      expect(worker.at(-1)!.metadata).toMatchObject({ userId: ADMIN_ACTOR.userId, businessDate: TODAY });
    }
    // What an add decides next counts them: a third person on those days is one too many.
    const third = await commandsOver(t.db, store, { today: () => TODAY }).create(W.luisa, vacationRequest('2026-12-30', 6), ADMIN_ACTOR);
    expect(third).toMatchObject({
      ok: false,
      kind: 'rules',
      violations: expect.arrayContaining([expect.objectContaining({ rule: 'unitFull' })]),
    });
  });
});
