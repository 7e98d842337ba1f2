import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import {
  PERIOD_SWEEP_TABLE,
  PERIOD_WATCH_TABLE,
  liabilityWatch,
  periodWatch,
  sweepAll,
  sweepStep,
} from '../../../src/projections/reports/period-watch.ts';
import { liabilityLines, type LiabilityLine } from '../../../src/projections/reports/liability.ts';
import { periodsReport } from '../../../src/projections/reports/periods.ts';
import { liveRegisterOfWorkers } from '../../../src/projections/register/queries.ts';
import { importReferenceData } from '../../../src/reference/import.ts';
import { workerFilesPage } from '../../../src/reference/worker-files.ts';
import { ProjectionService } from '../../../src/projections/runtime/service.ts';
import { silentLogger } from '../../../src/projections/types.ts';
import { PostgresEventStore } from '../../../src/store/postgres-store.ts';
import { HolidayCalendar } from '../../../src/domain/index.ts';
import { historicImportOptions } from '../../../src/reference/historic-events.ts';
import { freshDb, type TestDb } from '../../support/db.ts';
import { ROSA, PANEL_EXTRA } from '../../support/panel-corners.ts';
import { loadFixture } from '../../support/server.ts';

const TODAY = '2026-11-21';

/** The fixture and Rosa, who piles up five pending periods, one of which prescribes within 90 days. */
function data() {
  const d = loadFixture();
  d.asociados.push(...PANEL_EXTRA.asociados);
  d.contratos.push(...PANEL_EXTRA.contratos);
  d.nomina.push(...PANEL_EXTRA.nomina);
  return d;
}

describe('the period watch figured by a sweep', () => {
  let t: TestDb;
  let projections: ProjectionService;
  let store: PostgresEventStore;
  beforeAll(async () => {
    t = await freshDb();
    store = new PostgresEventStore(t.db);
    projections = new ProjectionService(t.db, store, { logger: silentLogger, idleMs: 10 });
    await projections.start();
    await importReferenceData(t.db, data());
    // The register holds the imported records before any sweep reads it.
    expect(await projections.waitFor(await store.headPosition(), 30_000)).toBe(true);
  });
  afterAll(async () => {
    await projections?.stop();
    await t?.drop();
  });

  const watch = (units: string[] | null = null, today = TODAY) => periodWatch(t.db, units, today, 15);

  it('names nobody before the first sweep, and says so', async () => {
    const w = await watch();
    expect(w.figuredOn).toBeNull();
    expect(w.accumulating).toEqual({ total: 0, workers: [] });
  });

  it("keeps each worker's liability on the sweep's day, adding up to the liability report's, per subgerencia", async () => {
    await sweepAll(t.db, TODAY);
    const lines: LiabilityLine[] = [];
    for await (const l of liabilityLines(t.db, new HolidayCalendar(), {}, TODAY)) lines.push(l);
    expect(lines.length).toBeGreaterThan(0);
    const of = (unit: string | null) => lines.filter((l) => unit === null || l.contract.subgerenciaId === unit);
    for (const unit of [null, ...new Set(lines.map((l) => l.contract.subgerenciaId))]) {
      const report = of(unit);
      await expect(liabilityWatch(t.db, unit === null ? null : [unit])).resolves.toEqual({
        workers: report.length,
        value: report.reduce((s, l) => s + l.liability.value, 0),
        advance: report.reduce((s, l) => s + l.liability.advance, 0),
      });
    }
    expect((await liabilityWatch(t.db, null)).value).toBeGreaterThan(0);
  });

  it('names, after a sweep, exactly the workers whose periods report warns, with what it warns of', async () => {
    await sweepAll(t.db, TODAY);
    const w = await watch();
    expect(w.figuredOn).toBe(TODAY);
    expect(w.sweeping).toBe(false);
    expect(w.accumulating.workers).toEqual([
      {
        documentNumber: ROSA.document,
        name: ROSA.name,
        accumulation: { owed: 5, limit: 2, extended: false },
        prescribesOn: '2027-01-31',
        sixDays: w.accumulating.workers[0]?.sixDays ?? null,
      },
    ]);
    expect(w.prescribing.workers.map((x) => [x.documentNumber, x.prescribesOn])).toEqual([[ROSA.document, '2027-01-31']]);

    // The same as the periods report of every worker, figured one by one.
    const files = await workerFilesPage(t.db, 0, 10_000);
    const records = await liveRegisterOfWorkers(
      t.db,
      files.map((f) => f.worker.id),
    );
    const warned = files
      .filter((f) =>
        periodsReport(
          f,
          records.filter((r) => r.workerId === f.worker.id),
          TODAY,
        ).warnings.some((x) => x.kind === 'accumulation'),
      )
      .map((f) => f.worker.documentNumber);
    expect(warned).toEqual(w.accumulating.workers.map((x) => x.documentNumber));

    // The six continuous days of art. 190: each worker with the count of the periods warned of.
    const six = files
      .map((f) => ({
        doc: f.worker.documentNumber,
        n: periodsReport(
          f,
          records.filter((r) => r.workerId === f.worker.id),
          TODAY,
        ).warnings.filter((x) => x.kind === 'sixDays').length,
      }))
      .filter((x) => x.n > 0);
    expect(six.length).toBeGreaterThan(0);
    const all = await periodWatch(t.db, null, TODAY, 10_000);
    expect(all.continuous.total).toBe(six.length);
    expect(new Map(all.continuous.workers.map((x) => [x.documentNumber, x.sixDays]))).toEqual(new Map(six.map((x) => [x.doc, x.n])));
  });

  it("keeps to a jefe's subgerencias, and to the 90 days ahead of the day asked", async () => {
    expect((await watch(['SG-ADM'])).accumulating.total).toBe(1);
    expect((await watch(['SG-TEC'])).accumulating.total).toBe(0);
    expect((await watch(['SG-TEC'])).prescribing.total).toBe(0);
    // On 1 February 2027 the days of 31 January have prescribed: no longer "about to".
    expect((await watch(null, '2027-02-01')).prescribing.total).toBe(0);
  });

  it('sweeps a batch at a time to the same rows, and only when due: a new day or new reference data', async () => {
    const before = await watch();
    const owner = 'instance-a';
    expect(await sweepStep(t.db, TODAY, owner)).toBe('idle');
    // A new day: a sweep in batches of two workers, held by its instance until it ends.
    expect(await sweepStep(t.db, '2026-11-22', owner, { batch: 2 })).toBe('worked');
    expect((await watch()).sweeping).toBe(true);
    expect(await sweepStep(t.db, '2026-11-22', 'instance-b', { batch: 2 })).toBe('busy-elsewhere');
    let step;
    do step = await sweepStep(t.db, '2026-11-22', owner, { batch: 2 });
    while (step === 'worked');
    expect(step).toBe('finished');
    const after = await watch(null, '2026-11-22');
    expect(after.figuredOn).toBe('2026-11-22');
    expect(after.accumulating).toEqual(before.accumulating);

    // A reference import that changes something makes a sweep due again, the same day.
    expect(await sweepStep(t.db, '2026-11-22', owner)).toBe('idle');
    const d = data();
    d.asociados.find((a: { id: number }) => a.id === ROSA.id)!.apellidos = 'Vargas de Ortiz';
    await importReferenceData(t.db, d);
    expect(await sweepStep(t.db, '2026-11-22', owner)).toBe('finished');
    expect((await watch(null, '2026-11-22')).accumulating.workers[0]!.name).toBe('Rosa Elena Vargas de Ortiz');
  });

  it('every 15 minutes figures again only the workers whose records changed since the day before, not the whole company', async () => {
    // The fixture's two historic vacations booked on the 23rd, as `vacaciones import` books them.
    await importReferenceData(
      t.db,
      data(),
      historicImportOptions(store, new HolidayCalendar(), () => '2026-11-23'),
    );
    expect(await projections.waitFor(await store.headPosition(), 30_000)).toBe(true);
    const booked = await t.db.query<{ id: string }>('SELECT DISTINCT worker_id::text AS id FROM rm_register ORDER BY 1');
    expect(booked.rows.length).toBeGreaterThan(0);
    const changedWorker = booked.rows[0]!.id;
    const day = '2026-11-24';
    await sweepAll(t.db, day);
    const before = await watch(null, day);
    expect(before.accumulating.workers.map((w) => w.documentNumber)).toEqual([ROSA.document]);
    const unchangedWorker = (
      await t.db.query<{ id: string }>(
        'SELECT min(worker_id)::text AS id FROM rm_workers WHERE worker_id <> $1 AND worker_id NOT IN (SELECT worker_id FROM rm_register)',
        [ROSA.id],
      )
    ).rows[0]!.id;
    // Rows no sweep would write, for a worker with a record booked the day before and for one
    // with none: figured again, the first loses its row (nothing of theirs needs heeding); the
    // second, not figured, keeps it.
    for (const [id, doc] of [
      [changedWorker, 'PLANTED-CHANGED'],
      [unchangedWorker, 'PLANTED-UNCHANGED'],
    ])
      await t.db.query(
        `INSERT INTO ${PERIOD_WATCH_TABLE} (worker_id, document_number, name, subgerencias, owed, owed_limit, extended, prescribes_on)
         VALUES ($1, $2, 'Fila sembrada', '{}', 9, 2, false, NULL)`,
        [id, doc],
      );

    const owner = 'instance-a';
    expect(await sweepStep(t.db, day, owner)).toBe('idle');
    await t.db.query(`UPDATE ${PERIOD_SWEEP_TABLE} SET finished_at = now() - interval '16 minutes'`);
    expect(await sweepStep(t.db, day, owner)).toBe('refreshed');
    const after = await watch(null, day);
    expect(after.figuredOn).toBe(day);
    expect(after.accumulating.workers.map((w) => w.documentNumber)).toEqual(['PLANTED-UNCHANGED', ROSA.document]);
    expect(after.accumulating.workers[1]).toEqual(before.accumulating.workers[0]);
    // Nothing due again until 15 minutes more have passed.
    expect(await sweepStep(t.db, day, owner)).toBe('idle');
    // More workers changed than a batch takes: a whole sweep instead, a batch at a time.
    expect((await t.db.query('SELECT DISTINCT worker_id FROM rm_register')).rows.length).toBeGreaterThan(1);
    await t.db.query(`UPDATE ${PERIOD_SWEEP_TABLE} SET finished_at = now() - interval '16 minutes'`);
    expect(await sweepStep(t.db, day, owner, { batch: 1 })).toBe('worked');
    expect((await watch(null, day)).sweeping).toBe(true);
    let step;
    do step = await sweepStep(t.db, day, owner, { batch: 1 });
    while (step === 'worked');
    expect(step).toBe('finished');

    // A new day figures every worker again: the planted row goes.
    await sweepAll(t.db, '2026-11-25');
    expect((await watch(null, '2026-11-25')).accumulating.workers.map((w) => w.documentNumber)).toEqual([ROSA.document]);
  });

  it('lets another instance take over a sweep whose lease ran out', async () => {
    expect(await sweepStep(t.db, '2026-11-23', 'instance-a', { batch: 2 })).toBe('worked');
    await t.db.query(`UPDATE ${PERIOD_SWEEP_TABLE} SET lease_until = now() - interval '1 second'`);
    let step;
    do step = await sweepStep(t.db, '2026-11-23', 'instance-b', { batch: 2 });
    while (step === 'worked');
    expect(step).toBe('finished');
    expect((await watch(null, '2026-11-23')).figuredOn).toBe('2026-11-23');
  });
});
