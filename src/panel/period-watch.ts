import { addDays } from '../domain/index.ts';
import { periodsReport, type PeriodWarning } from '../projections/law/periods.ts';
import { liveRegisterOfWorkers, type RegisterEntry } from '../projections/register/queries.ts';
import { workerFilesPage, type WorkerFileRow } from '../reference/worker-files.ts';
import type { PanelDeps } from './context.ts';

/**
 * Workers whose accrual periods need the employer's attention (CST art. 190: more periods pending
 * than a worker may accumulate; art. 488: pending days that prescribe soon). The periods are the
 * register's own report (periodsReport, as the periods endpoint figures them), so they need every
 * worker's payroll and records: the home page reviews the company a bounded batch of workers at a
 * time, in worker order, and links to the next batch, so that no page ever walks 50,000 workers.
 */
export const PERIOD_WATCH_BATCH = 500;
/** Pending days that prescribe within this many days are named on the home page. */
export const PRESCRIPTION_WATCH_DAYS = 90;

export interface WatchedWorker {
  documentNumber: string;
  name: string;
  /** Periods with days pending beyond the limit of art. 190, when so. */
  accumulation: Extract<PeriodWarning, { kind: 'accumulation' }> | null;
  /** The earliest date on which pending days prescribe within PRESCRIPTION_WATCH_DAYS, when so. */
  prescribesOn: string | null;
}

export interface WatchBatch {
  workers: WatchedWorker[];
  /** Workers reviewed in this batch. */
  reviewed: number;
  /** The worker id to start the next batch after; null when this batch reached the last worker. */
  next: number | null;
}

/** Reviews the batch of workers after `afterWorkerId`: those with a contract in these subgerencias, or all when null. */
export async function watchPeriods(deps: PanelDeps, afterWorkerId: number, units: readonly string[] | null): Promise<WatchBatch> {
  if (units?.length === 0) return { workers: [], reviewed: 0, next: null };
  const today = deps.today();
  const until = addDays(today, PRESCRIPTION_WATCH_DAYS);
  const { page, files, records } = await deps.readSide.fresh(async () => {
    const page = await workerFilesPage(deps.db, afterWorkerId, PERIOD_WATCH_BATCH, units?.length === 1 ? units[0] : undefined);
    const files = units ? page.filter((f) => f.contracts.some((c) => units.includes(c.subgerenciaId))) : page;
    const records = await liveRegisterOfWorkers(
      deps.db,
      files.map((f) => f.worker.id),
    );
    return { page, files, records };
  });
  const byWorker = new Map<number, RegisterEntry[]>();
  for (const r of records) {
    const list = byWorker.get(r.workerId);
    if (list) list.push(r);
    else byWorker.set(r.workerId, [r]);
  }
  const workers: WatchedWorker[] = [];
  for (const file of files) {
    const w = watched(file, periodsReport(file, byWorker.get(file.worker.id) ?? [], today).warnings, until);
    if (w) workers.push(w);
  }
  return {
    workers,
    reviewed: files.length,
    next: page.length === PERIOD_WATCH_BATCH ? page[page.length - 1]!.worker.id : null,
  };
}

function watched(file: WorkerFileRow, warnings: readonly PeriodWarning[], until: string): WatchedWorker | null {
  let accumulation: WatchedWorker['accumulation'] = null;
  let prescribesOn: string | null = null;
  for (const w of warnings) {
    if (w.kind === 'accumulation') accumulation = w;
    else if (w.kind === 'aboutToPrescribe' && w.on <= until && (prescribesOn === null || w.on < prescribesOn)) prescribesOn = w.on;
  }
  if (!accumulation && !prescribesOn) return null;
  const { worker } = file;
  return { documentNumber: worker.documentNumber, name: `${worker.firstNames} ${worker.lastNames}`, accumulation, prescribesOn };
}
