import type { Queryable } from '../../db/types.ts';
import { workerFileByDocument, workerFilesPage, type WorkerFileRow } from '../../reference/worker-files.ts';
import { periodsReport, type PeriodReport, type PeriodsReport } from './periods.ts';
import { byWorker, liveRegisterOfWorkers, registerAsOf, type RegisterEntry } from '../register/queries.ts';

/** Whose register: every worker, the workers holding a contract of one subgerencia, or one worker. */
export type BookScope =
  { kind: 'empresa' } | { kind: 'subgerencia'; subgerenciaId: string } | { kind: 'trabajador'; documentNumber: string };

export interface BookOptions {
  scope: BookScope;
  /** The register as it stood at the end of this business day; the periods count payroll ended by then. */
  asOf: string;
  /**
   * `asOf` is the service's today (or later): the records as they stand now, every version written
   * so far included (events written before imports recorded a business date are dated by the real
   * clock, which may run ahead of a pinned today).
   */
  current?: boolean;
  /** Periods and vacations that share a day with [from, to] (either end open when null). */
  from: string | null;
  to: string | null;
  /** Workers read per page. */
  pageSize?: number;
}

/** One worker's lines of the register (CST art. 187 §3). */
export interface BookWorker {
  file: WorkerFileRow;
  /** The earliest start of the worker's main contracts begun by the cut-off date; null without one. */
  hireDate: string | null;
  periods: PeriodReport[];
  totals: PeriodsReport['totals'];
  vacations: RegisterEntry[];
  /** The records taken under a settled contract (history, not taken from the balance), with its id. */
  settledRecords: ReadonlyMap<string, number>;
}

export const BOOK_PAGE_SIZE = 250;

/**
 * The worker's date of hire as the register stood on `asOf`: the earliest start of the main
 * contracts begun by then; null when none had begun (the register of that day did not know them).
 */
export function hireDateOf(file: Pick<WorkerFileRow, 'contracts'>, asOf: string): string | null {
  let first: string | null = null;
  for (const c of file.contracts) {
    if (!c.additional && c.startDate !== null && c.startDate <= asOf && (first === null || c.startDate < first)) first = c.startDate;
  }
  return first;
}

const inRange = (start: string, end: string, o: Pick<BookOptions, 'from' | 'to'>) =>
  (o.to === null || start <= o.to) && (o.from === null || end >= o.from);

/**
 * A worker's lines: the periods on `asOf` with the records live at the end of that day applied to
 * them (so the figures are the periods endpoint's on that date), then the periods and vacations that
 * fall in the range. Undefined when a worker of a wider scope has nothing to show.
 */
export function bookLinesOf(
  file: WorkerFileRow,
  records: readonly RegisterEntry[],
  o: Omit<BookOptions, 'scope'>,
  always: boolean,
): BookWorker | undefined {
  const report = periodsReport(file, records, o.asOf);
  const periods = report.periods.filter((p) => inRange(p.from, p.earnedOn ?? o.asOf, o));
  // A vacation interrupted on its first day ends before it starts: it is shown on its start day.
  const vacations = records.filter((r) => inRange(r.startDate, r.endDate < r.startDate ? r.startDate : r.endDate, o));
  if (!always && periods.length === 0 && vacations.length === 0) return undefined;
  return { file, hireDate: hireDateOf(file, o.asOf), periods, totals: report.totals, vacations, settledRecords: report.settledRecords };
}

const recordsOf = (q: Queryable, workerIds: number[], o: Pick<BookOptions, 'asOf' | 'current'>) =>
  o.current ? liveRegisterOfWorkers(q, workerIds) : registerAsOf(q, workerIds, o.asOf);

/**
 * The vacation register of a scope, worker by worker in worker order, read a page of workers at a
 * time from the per-worker read model and the register read model (one indexed query each per
 * page): whatever the company's size, only one page is held, and the caller writes each worker out
 * before the next page is read. Workers of the company or a subgerencia with no period and no
 * vacation in the range are left out; the one worker asked for by document is always there.
 */
export async function* registerBook(q: Queryable, o: BookOptions): AsyncGenerator<BookWorker> {
  const { scope } = o;
  if (scope.kind === 'trabajador') {
    const file = await workerFileByDocument(q, scope.documentNumber);
    if (!file) return;
    yield bookLinesOf(file, await recordsOf(q, [file.worker.id], o), o, true)!;
    return;
  }
  const size = o.pageSize ?? BOOK_PAGE_SIZE;
  let after = Number.MIN_SAFE_INTEGER;
  for (;;) {
    const files = await workerFilesPage(q, after, size, scope.kind === 'subgerencia' ? scope.subgerenciaId : undefined);
    if (files.length === 0) return;
    after = files[files.length - 1]!.worker.id;
    const records = byWorker(
      await recordsOf(
        q,
        files.map((f) => f.worker.id),
        o,
      ),
    );
    for (const file of files) {
      const lines = bookLinesOf(file, records.get(file.worker.id) ?? [], o, false);
      if (lines) yield lines;
    }
    if (files.length < size) return;
  }
}
