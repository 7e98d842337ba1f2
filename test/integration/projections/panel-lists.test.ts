import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { calendarPage } from '../../../src/projections/occupancy/queries.ts';
import { awaitingApproval } from '../../../src/projections/vacations/queries.ts';
import { ProjectionService } from '../../../src/projections/runtime/service.ts';
import { silentLogger } from '../../../src/projections/types.ts';
import { importReferenceData } from '../../../src/reference/import.ts';
import { PostgresEventStore } from '../../../src/store/postgres-store.ts';
import { freshDb, type TestDb } from '../../support/db.ts';
import { created, record, toWorker } from '../../support/event-builders.ts';
import { loadFixture } from '../../support/server.ts';

/**
 * Who is away in December 2026, by subgerencia: Operaciones (María, Juan, Luisa; Juan twice),
 * nobody in Administración, Tecnología (Santiago). Workers as in the fixture, so the page has names.
 */
const AWAY = [
  { workerId: 1001, unit: 'SG-OPS', start: '2026-12-01', end: '2026-12-09' },
  { workerId: 1002, unit: 'SG-OPS', start: '2026-12-02', end: '2026-12-10' },
  { workerId: 1002, unit: 'SG-OPS', start: '2026-12-21', end: '2026-12-24' },
  { workerId: 1003, unit: 'SG-OPS', start: '2026-11-25', end: '2026-12-01' },
  { workerId: 1008, unit: 'SG-TEC', start: '2026-12-14', end: '2027-01-08' },
  // Outside the month: not on the page.
  { workerId: 1010, unit: 'SG-OPS', start: '2027-01-11', end: '2027-01-15' },
];
const UNITS = ['SG-OPS', 'SG-ADM', 'SG-TEC'];
const FROM = '2026-12-01';
const TO = '2026-12-31';

describe("the panel's lists: the calendar by pages, the records awaiting approval", () => {
  let t: TestDb;
  let projections: ProjectionService;
  beforeAll(async () => {
    t = await freshDb();
    await importReferenceData(t.db, loadFixture());
    const store = new PostgresEventStore(t.db);
    projections = new ProjectionService(t.db, store, { logger: silentLogger, idleMs: 10 });
    await projections.start();
    for (const [i, a] of AWAY.entries()) {
      const r = record({ codigoPila: `PCAL00${i}`, workerId: a.workerId, subgerenciaId: a.unit, startDate: a.start, endDate: a.end });
      await toWorker(store, a.workerId, [created(r)]);
    }
    expect(await projections.waitFor(await store.headPosition(), 30_000)).toBe(true);
  });
  afterAll(async () => {
    await projections?.stop();
    await t?.drop();
  });

  const who = (p: { people: { workerId: number }[] }) => p.people.map((x) => x.workerId);

  it('lists the people away by subgerencia in the order asked, then by name, each with their vacations in the window', async () => {
    const whole = await calendarPage(t.db, UNITS, FROM, TO, 100, 0);
    expect(whole.total).toBe(4);
    expect(whole.more).toBe(false);
    // Operaciones by last name (Gómez, Martínez, Rodríguez as the fixture names them), then Tecnología.
    expect(whole.people.map((p) => p.subgerenciaId)).toEqual(['SG-OPS', 'SG-OPS', 'SG-OPS', 'SG-TEC']);
    expect(whole.people.find((p) => p.workerId === 1002)!.absences.map((a) => a.startDate)).toEqual(['2026-12-02', '2026-12-21']);
    expect(whole.units.map((u) => [u.id, u.people])).toEqual([
      ['SG-OPS', 3],
      ['SG-TEC', 1],
    ]);
    expect((await calendarPage(t.db, ['SG-ADM'], FROM, TO, 25, 0)).total).toBe(0);
  });

  it('gives every person once across pages of any size, and says when more follow', async () => {
    const whole = who(await calendarPage(t.db, UNITS, FROM, TO, 100, 0));
    for (const size of [1, 2, 3]) {
      const seen: number[] = [];
      for (let skip = 0; ; skip += size) {
        const page = await calendarPage(t.db, UNITS, FROM, TO, size, skip);
        seen.push(...who(page));
        // The total is given once every subgerencia was counted; before, it is not guessed.
        if (page.total !== null) expect(page.total).toBe(4);
        if (!page.more) break;
        expect(page.people).toHaveLength(size);
      }
      expect(seen, `pages of ${size}`).toEqual(whole);
    }
    // A page past the last is empty, with nothing after it.
    const past = await calendarPage(t.db, UNITS, FROM, TO, 25, 100);
    expect(past).toMatchObject({ people: [], more: false, total: 4 });
  });

  it('pages a full first subgerencia without counting the others', async () => {
    const first = await calendarPage(t.db, UNITS, FROM, TO, 2, 0);
    expect(first).toMatchObject({ total: null, more: true });
    expect(first.units.map((u) => u.id)).toEqual(['SG-OPS']);
  });

  it('lists the records awaiting approval soonest first, and counts them up to a cap', async () => {
    const all = await awaitingApproval(t.db, null, 15);
    expect(all).toMatchObject({ total: AWAY.length, capped: false });
    expect(all.records.map((r) => r.startDate)).toEqual(AWAY.map((a) => a.start).sort());
    const capped = await awaitingApproval(t.db, null, 2, 3);
    expect(capped).toMatchObject({ total: 3, capped: true });
    expect(capped.records.map((r) => r.startDate)).toEqual(all.records.slice(0, 2).map((r) => r.startDate));
    expect(await awaitingApproval(t.db, ['SG-TEC'], 15)).toMatchObject({ total: 1, capped: false });
  });
});
