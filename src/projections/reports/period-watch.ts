import { randomUUID } from 'node:crypto';
import type { Db, Queryable } from '../../db/types.ts';
import { HolidayCalendar, addDays, liabilityOn, standingContract, type HolidayLookup } from '../../domain/index.ts';
import { workerFilesByIds, workerFilesPage, type WorkerFileRow } from '../../reference/worker-files.ts';
import { byWorker, liabilityRecordsOfWorkers, liveRegisterOfWorkers, workersRecordedSince } from '../register/queries.ts';
import { toNumber } from '../sql.ts';
import { periodsReport, type PeriodWarning } from './periods.ts';

/**
 * Which workers' accrual periods need the employer's attention (CST art. 190: more periods
 * pending than a worker may accumulate, or a year passed without 6 continuous days enjoyed;
 * art. 488: pending days about to prescribe), for the whole
 * company. The periods are the register's own report (periodsReport, as the periods endpoint and
 * the worker page figure them), which needs each worker's payroll and records and the day it is
 * figured on: so a sweep figures every worker a batch at a time and keeps only those with
 * something to heed, and the panel reads them in one indexed query. A sweep of every worker runs
 * when the day changes and when the reference data is imported again; every SWEEP_EVERY_MINUTES
 * only the workers whose records were booked, changed or deleted since the day before are figured
 * again, not the whole company: what the page shows is that old at most, and it says when it was
 * figured.
 */
export const PERIOD_WATCH_TABLE = 'rm_period_watch';
export const PERIOD_SWEEP_TABLE = 'rm_period_watch_sweep';
/** Each worker's vacation liability on the sweep's day, under the subgerencia it is counted in: the home page's figure. */
export const LIABILITY_WATCH_TABLE = 'rm_liability_watch';

/** Pending days that prescribe within this many days are named on the home page. */
export const PRESCRIPTION_WATCH_DAYS = 90;
/** Minutes after which a sweep figures the periods again, for the records booked since. */
export const SWEEP_EVERY_MINUTES = 15;
/** Workers a sweep figures per transaction. */
export const SWEEP_BATCH = 500;
/** How long a sweep's claim holds without news from its instance: another then takes the sweep over. */
const LEASE_SECONDS = 120;

export interface WatchedWorker {
  documentNumber: string;
  name: string;
  /** Periods with days pending beyond the limit of art. 190, when so. */
  accumulation: { owed: number; limit: number; extended: boolean } | null;
  /** The earliest date within PRESCRIPTION_WATCH_DAYS of the figuring day on which pending days prescribe, when so. */
  prescribesOn: string | null;
  /** Periods whose year to be enjoyed passed without 6 continuous business days enjoyed (art. 190), when any. */
  sixDays: number | null;
}

/** The row a worker's report leaves in the watch; null when nothing in it needs heeding. */
export function watchRow(file: WorkerFileRow, warnings: readonly PeriodWarning[], figuredOn: string): WatchedWorker | null {
  const until = addDays(figuredOn, PRESCRIPTION_WATCH_DAYS);
  let accumulation: WatchedWorker['accumulation'] = null;
  let prescribesOn: string | null = null;
  let six = 0;
  for (const w of warnings) {
    if (w.kind === 'accumulation') accumulation = { owed: w.owed, limit: w.limit, extended: w.extended };
    else if (w.kind === 'aboutToPrescribe' && w.on <= until && (prescribesOn === null || w.on < prescribesOn)) prescribesOn = w.on;
    else if (w.kind === 'sixDays') six++;
  }
  const sixDays = six === 0 ? null : six;
  if (!accumulation && !prescribesOn && sixDays === null) return null;
  const { worker } = file;
  return { documentNumber: worker.documentNumber, name: `${worker.firstNames} ${worker.lastNames}`, accumulation, prescribesOn, sixDays };
}

/** A worker's liability on the sweep's day, as the liability report figures it (src/domain/liability.ts). */
export interface LiabilityWatchRow {
  subgerenciaId: string;
  value: number;
  advance: number;
}

export interface FiguredBatch {
  watched: { file: WorkerFileRow; row: WatchedWorker }[];
  liabilities: { file: WorkerFileRow; row: LiabilityWatchRow }[];
}

/**
 * The watch rows of a batch of workers on `day`: each one's periods report on their live records,
 * and each one's liability on that day (those who owe one).
 */
export async function figureBatch(
  q: Queryable,
  files: readonly WorkerFileRow[],
  day: string,
  calendar: HolidayLookup,
): Promise<FiguredBatch> {
  const ids = files.map((f) => f.worker.id);
  const records = byWorker(await liveRegisterOfWorkers(q, ids));
  const taken = await liabilityRecordsOfWorkers(q, ids);
  const out: FiguredBatch = { watched: [], liabilities: [] };
  for (const file of files) {
    const row = watchRow(file, periodsReport(file, records.get(file.worker.id) ?? [], day).warnings, day);
    if (row) out.watched.push({ file, row });
    const owed = liabilityOn(file, taken.get(file.worker.id) ?? [], day, calendar);
    if (owed) {
      const contract = file.contracts.find((c) => c.id === owed.contract.id)!;
      out.liabilities.push({ file, row: { subgerenciaId: contract.subgerenciaId, value: owed.value, advance: owed.advance } });
    }
  }
  return out;
}

/** PostgreSQL's literal of a text array, each element quoted. */
const arrayLiteral = (values: Iterable<string>) => `{${[...values].map((v) => `"${v.replace(/[\\"]/g, '\\$&')}"`).join(',')}}`;

interface SweepRow {
  figured_on: string | null;
  reference_version: string | null;
  finished_at: Date | null;
  sweeping_on: string | null;
  sweep_reference_version: string | null;
  swept_up_to: string | null;
  lease_owner: string | null;
  lease_live: boolean;
  stale: boolean;
}

/** The statutory holidays, where no calendar with an operator's corrections is given. */
const STATUTORY = new HolidayCalendar();

/** Below every worker id: where a sweep starts. */
const FIRST = Number.MIN_SAFE_INTEGER;

/** 'refreshed': the workers whose records changed figured again, not a whole sweep. */
export type SweepStep = 'idle' | 'busy-elsewhere' | 'worked' | 'finished' | 'refreshed';

/**
 * One step of the sweep for `today`, by the instance `owner`: figures the next batch of workers
 * and replaces their rows in one transaction with the sweep's progress, or starts a sweep when
 * one is due, or answers that none is due ('idle') or that another instance holds it.
 */
export async function sweepStep(
  db: Db,
  today: string,
  owner: string,
  opts: { batch?: number; force?: boolean; calendar?: HolidayLookup } = {},
): Promise<SweepStep> {
  const batch = opts.batch ?? SWEEP_BATCH;
  const calendar = opts.calendar ?? STATUTORY;
  return db.transaction(async (tx) => {
    const r = await tx.query<SweepRow>(
      `SELECT to_char(figured_on, 'YYYY-MM-DD') AS figured_on, reference_version::text, finished_at,
              to_char(sweeping_on, 'YYYY-MM-DD') AS sweeping_on, sweep_reference_version::text, swept_up_to::text, lease_owner,
              lease_until > now() AS lease_live, finished_at < now() - make_interval(mins => $1) AS stale
         FROM ${PERIOD_SWEEP_TABLE} WHERE id = 1 FOR UPDATE`,
      [SWEEP_EVERY_MINUTES],
    );
    const s = r.rows[0]!;
    const version = (await tx.query<{ v: string }>('SELECT version::text AS v FROM ref_version WHERE id = 1')).rows[0]?.v ?? '0';
    if (s.lease_live && s.lease_owner !== owner) return 'busy-elsewhere';
    let after = FIRST;
    if (s.sweeping_on === today && s.sweep_reference_version === version && s.swept_up_to !== null) after = Number(s.swept_up_to);
    else if (s.sweeping_on === null && !opts.force && s.figured_on === today && s.reference_version === version) {
      if (s.stale !== true) return 'idle';
      // The day before too: a booking of a day's last minutes may reach the register after the
      // next day's sweep has passed its worker.
      const changed = await workersRecordedSince(tx, addDays(today, -1));
      // More than a batch: a whole sweep, a batch a transaction with pauses between, rather than
      // one long transaction beside the requests.
      if (changed.length <= batch) {
        if (changed.length > 0) {
          for (const table of [PERIOD_WATCH_TABLE, LIABILITY_WATCH_TABLE])
            await tx.query(`DELETE FROM ${table} WHERE worker_id = ANY($1::bigint[])`, [changed]);
          await writeWatchRows(tx, await figureBatch(tx, await workerFilesByIds(tx, changed), today, calendar), today);
        }
        await tx.query(`UPDATE ${PERIOD_SWEEP_TABLE} SET finished_at = now() WHERE id = 1`);
        return 'refreshed';
      }
    }
    const files = await workerFilesPage(tx, after, batch);
    const last = files.length === batch ? files[files.length - 1]!.worker.id : null;
    // The rows of the workers this batch spans, those no longer in the reference data included.
    for (const table of [PERIOD_WATCH_TABLE, LIABILITY_WATCH_TABLE])
      await tx.query(`DELETE FROM ${table} WHERE worker_id > $1 AND ($2::bigint IS NULL OR worker_id <= $2)`, [after, last]);
    await writeWatchRows(tx, await figureBatch(tx, files, today, calendar), today);
    if (last === null) {
      await tx.query(
        `UPDATE ${PERIOD_SWEEP_TABLE} SET figured_on = $1, reference_version = $2, finished_at = now(),
                sweeping_on = NULL, sweep_reference_version = NULL, swept_up_to = NULL, lease_owner = NULL, lease_until = NULL
          WHERE id = 1`,
        [today, version],
      );
      return 'finished';
    }
    await tx.query(
      `UPDATE ${PERIOD_SWEEP_TABLE} SET sweeping_on = $1, sweep_reference_version = $2, swept_up_to = $3,
              lease_owner = $4, lease_until = now() + make_interval(secs => $5) WHERE id = 1`,
      [today, version, last, owner, LEASE_SECONDS],
    );
    return 'worked';
  });
}

/**
 * Writes the watch rows of a figured batch (the workers' old rows already deleted), each under the
 * subgerencia of the worker's standing contract on `today`: the one whose area head sees the
 * worker (a contract the worker left names no one's).
 */
async function writeWatchRows(tx: Queryable, batch: FiguredBatch, today: string): Promise<void> {
  const owed = batch.liabilities;
  if (owed.length > 0) {
    await tx.query(
      `INSERT INTO ${LIABILITY_WATCH_TABLE} (worker_id, subgerencia_id, value, advance)
         SELECT * FROM unnest($1::bigint[], $2::text[], $3::bigint[], $4::bigint[])`,
      [
        owed.map(({ file }) => file.worker.id),
        owed.map(({ row }) => row.subgerenciaId),
        owed.map(({ row }) => row.value),
        owed.map(({ row }) => row.advance),
      ],
    );
  }
  const rows = batch.watched;
  if (rows.length === 0) return;
  await tx.query(
    `INSERT INTO ${PERIOD_WATCH_TABLE} (worker_id, document_number, name, subgerencias, owed, owed_limit, extended, prescribes_on, six_days)
       SELECT u.worker_id, u.document_number, u.name, u.subgerencias::text[], u.owed, u.owed_limit, u.extended, u.prescribes_on, u.six_days
         FROM unnest($1::bigint[], $2::text[], $3::text[], $4::text[], $5::integer[], $6::integer[], $7::boolean[], $8::date[], $9::integer[])
              AS u(worker_id, document_number, name, subgerencias, owed, owed_limit, extended, prescribes_on, six_days)`,
    [
      rows.map(({ file }) => file.worker.id),
      rows.map(({ row }) => row.documentNumber),
      rows.map(({ row }) => row.name),
      // A text[] per worker travels as its literal: unnest of a 2-D array would flatten it.
      rows.map(({ file }) => {
        const unit = standingContract(file.contracts, today)?.subgerenciaId;
        return arrayLiteral(unit === undefined ? [] : [unit]);
      }),
      rows.map(({ row }) => row.accumulation?.owed ?? null),
      rows.map(({ row }) => row.accumulation?.limit ?? null),
      rows.map(({ row }) => row.accumulation?.extended ?? false),
      rows.map(({ row }) => row.prescribesOn),
      rows.map(({ row }) => row.sixDays),
    ],
  );
}

/** Sweeps to the end in this process, whether a sweep is due or not (tests, and an operator's command). */
export async function sweepAll(db: Db, today: string, batch = SWEEP_BATCH, calendar: HolidayLookup = STATUTORY): Promise<void> {
  const owner = randomUUID();
  for (let first = true; ; first = false) {
    const step = await sweepStep(db, today, owner, { batch, force: first, calendar });
    if (step !== 'worked') return;
  }
}

export interface SweeperOptions {
  today: () => string;
  /** The calendar the liability counts business days with (the service's, with the operator's corrections). */
  calendar?: HolidayLookup;
  onError: (err: unknown) => void;
  /** Told when this instance ends a sweep, with how long it took since its first batch here. */
  onFinished?: (ms: number) => void;
  /** Pause between batches, so that a sweep of a large company leaves room for requests. */
  pauseMs?: number;
  /** How often to look whether a sweep is due. */
  checkMs?: number;
}

/** Runs the sweeps in the background of a service, one instance at a time (a lease in the sweep's row). */
export class PeriodWatchSweeper {
  private readonly owner = randomUUID();
  private stopped = false;
  private timer: NodeJS.Timeout | undefined;
  private running: Promise<void> | undefined;
  private since: number | undefined;

  constructor(
    private readonly db: Db,
    private readonly opts: SweeperOptions,
  ) {}

  start(): void {
    this.schedule(0);
  }

  private schedule(ms: number): void {
    if (this.stopped) return;
    this.timer = setTimeout(() => {
      this.running = this.tick().finally(() => (this.running = undefined));
    }, ms);
    this.timer.unref();
  }

  private async tick(): Promise<void> {
    let next = this.opts.checkMs ?? 30_000;
    try {
      const step = await sweepStep(this.db, this.opts.today(), this.owner, { calendar: this.opts.calendar });
      if (step === 'worked') {
        this.since ??= performance.now();
        next = this.opts.pauseMs ?? 20;
      } else if (step === 'finished') {
        this.opts.onFinished?.(performance.now() - (this.since ?? performance.now()));
        this.since = undefined;
      }
    } catch (err) {
      this.opts.onError(err);
    }
    this.schedule(next);
  }

  async stop(): Promise<void> {
    this.stopped = true;
    clearTimeout(this.timer);
    await this.running;
  }
}

export interface WatchList {
  total: number;
  workers: WatchedWorker[];
}

export interface PeriodWatch {
  accumulating: WatchList;
  prescribing: WatchList;
  /** Workers with periods whose year passed without 6 continuous business days enjoyed, by name. */
  continuous: WatchList;
  /** The day the last complete sweep figured the periods on, and when it ended; null before the first. */
  figuredOn: string | null;
  finishedAt: Date | null;
  /** Workers the sweep under way has figured, when one is under way. */
  sweeping: boolean;
}

const watchedOf = (row: Record<string, unknown>): WatchedWorker => ({
  documentNumber: row.document_number as string,
  name: row.name as string,
  accumulation: row.owed === null ? null : { owed: toNumber(row.owed), limit: toNumber(row.owed_limit), extended: row.extended === true },
  prescribesOn: (row.prescribes_on as string | null) ?? null,
  sixDays: row.six_days === null || row.six_days === undefined ? null : toNumber(row.six_days),
});

const WATCH_COLUMNS = `document_number, name, owed, owed_limit, extended, to_char(prescribes_on, 'YYYY-MM-DD') AS prescribes_on, six_days`;

/**
 * The workers of these subgerencias (all when null) whose periods need heeding on `today`: those
 * accumulating beyond the limit, most periods owed first, and those whose pending days prescribe
 * from today to PRESCRIPTION_WATCH_DAYS ahead, soonest first; `limit` of each and how many in all.
 */
export async function periodWatch(q: Queryable, units: readonly string[] | null, today: string, limit: number): Promise<PeriodWatch> {
  const scope = `($1::text[] IS NULL OR subgerencias && $1::text[])`;
  const prescribing = `prescribes_on BETWEEN $2::date AND $2::date + $3::int AND ${scope}`;
  const [acc, accN, pre, preN, six, sixN, sweep] = await Promise.all([
    q.query<Record<string, unknown>>(
      `SELECT ${WATCH_COLUMNS} FROM ${PERIOD_WATCH_TABLE} WHERE owed IS NOT NULL AND ${scope} ORDER BY owed DESC, name, worker_id LIMIT $2`,
      [units, limit],
    ),
    q.query<{ n: unknown }>(`SELECT count(*) AS n FROM ${PERIOD_WATCH_TABLE} WHERE owed IS NOT NULL AND ${scope}`, [units]),
    q.query<Record<string, unknown>>(
      `SELECT ${WATCH_COLUMNS} FROM ${PERIOD_WATCH_TABLE} WHERE ${prescribing} ORDER BY prescribes_on, name, worker_id LIMIT $4`,
      [units, today, PRESCRIPTION_WATCH_DAYS, limit],
    ),
    q.query<{ n: unknown }>(`SELECT count(*) AS n FROM ${PERIOD_WATCH_TABLE} WHERE ${prescribing}`, [
      units,
      today,
      PRESCRIPTION_WATCH_DAYS,
    ]),
    q.query<Record<string, unknown>>(
      `SELECT ${WATCH_COLUMNS} FROM ${PERIOD_WATCH_TABLE} WHERE six_days IS NOT NULL AND ${scope} ORDER BY name, worker_id LIMIT $2`,
      [units, limit],
    ),
    q.query<{ n: unknown }>(`SELECT count(*) AS n FROM ${PERIOD_WATCH_TABLE} WHERE six_days IS NOT NULL AND ${scope}`, [units]),
    q.query<{ figured_on: string | null; finished_at: Date | null; sweeping: boolean }>(
      `SELECT to_char(figured_on, 'YYYY-MM-DD') AS figured_on, finished_at, sweeping_on IS NOT NULL AS sweeping
         FROM ${PERIOD_SWEEP_TABLE} WHERE id = 1`,
    ),
  ]);
  const s = sweep.rows[0];
  return {
    accumulating: { total: toNumber(accN.rows[0]?.n ?? 0), workers: acc.rows.map(watchedOf) },
    prescribing: { total: toNumber(preN.rows[0]?.n ?? 0), workers: pre.rows.map(watchedOf) },
    continuous: { total: toNumber(sixN.rows[0]?.n ?? 0), workers: six.rows.map(watchedOf) },
    figuredOn: s?.figured_on ?? null,
    finishedAt: s?.finished_at ?? null,
    sweeping: s?.sweeping === true,
  };
}

/** What the workers of these subgerencias (all when null) owed in vacations on the last sweep's day. */
export async function liabilityWatch(
  q: Queryable,
  units: readonly string[] | null,
): Promise<{ workers: number; value: number; advance: number }> {
  const r = await q.query<Record<string, unknown>>(
    `SELECT count(*) AS workers, coalesce(sum(value), 0) AS value, coalesce(sum(advance), 0) AS advance
       FROM ${LIABILITY_WATCH_TABLE} WHERE $1::text[] IS NULL OR subgerencia_id = ANY($1::text[])`,
    [units],
  );
  const row = r.rows[0]!;
  return { workers: toNumber(row.workers), value: toNumber(row.value), advance: toNumber(row.advance) };
}
