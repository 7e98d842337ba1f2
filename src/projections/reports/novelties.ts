import type { Queryable } from '../../db/types.ts';
import { lastDayOfMonth, type Amortization } from '../../domain/index.ts';
import { decode } from '../../events/codec.ts';
import { workerStream } from '../../events/streams.ts';
import { ReferenceRepository, type Worker } from '../../reference/repository.ts';
import { positionToString, type EventStore } from '../../store/types.ts';
import { VersionedMemo } from '../../caching/versioned-memo.ts';
import { readCheckpoints } from '../runtime/checkpoints.ts';
import { amortizationsProjector } from '../amortizations/projector.ts';
import { registerProjector } from '../register/projector.ts';
import { vacationsProjector } from '../vacations/projector.ts';
import type { RegisterEntry } from '../register/queries.ts';
import {
  creationRevisions,
  noveltyPage,
  noveltyTotals,
  type NoveltyFilter,
  type NoveltyRow,
  type NoveltyTotals,
} from './novelty-queries.ts';

/** One record's novelty in the month: its part of the amortization, and its dates within the month. */
export interface NoveltyLine {
  record: RegisterEntry;
  replaces: string | null;
  part: Amortization;
  /** The record's first and last days within the month. */
  from: string;
  to: string;
}

export interface WorkerNovelties {
  worker: Worker;
  lines: NoveltyLine[];
  totals: Omit<NoveltyTotals, 'workers'>;
}

export const NOVELTY_PAGE_SIZE = 500;

/** Below every worker id: where the first page starts. */
export const FIRST_WORKER = Number.MIN_SAFE_INTEGER;

/**
 * The plan of each version the read model no longer holds (interrupted after the cut): that of
 * the event that created the record, read from the worker's stream at its revision.
 */
async function earlierPlans(q: Queryable, store: EventStore, rows: readonly NoveltyRow[]): Promise<Map<string, Amortization[]>> {
  const codes = rows.filter((r) => r.part === null).map((r) => r.record.codigoPila);
  const revisions = await creationRevisions(q, codes);
  const out = new Map<string, Amortization[]>();
  for (const row of rows) {
    const revision = revisions.get(row.record.codigoPila);
    if (row.part !== null || revision === undefined) continue;
    const [stored] = await store.readStream(workerStream(row.record.workerId), { fromRevision: revision });
    const event = stored && decode(stored)?.event;
    if (event && (event.type === 'VacationCreated' || event.type === 'VacationImported'))
      out.set(row.record.codigoPila, event.data.amortizations);
  }
  return out;
}

/** The rows as lines, each with its month's part; a version whose plan does not reach the month has none. */
async function linesOf(q: Queryable, store: EventStore, month: string, rows: readonly NoveltyRow[]): Promise<NoveltyLine[]> {
  const plans = await earlierPlans(q, store, rows);
  const first = `${month}-01`;
  const last = lastDayOfMonth(month);
  const lines: NoveltyLine[] = [];
  for (const row of rows) {
    const part = row.part ?? plans.get(row.record.codigoPila)?.find((a) => a.periodo === month);
    if (!part) continue;
    const { startDate, endDate } = row.record;
    lines.push({
      record: row.record,
      replaces: row.replaces,
      part,
      from: startDate > first ? startDate : first,
      to: endDate < last ? endDate : last,
    });
  }
  return lines;
}

const sum = (lines: readonly NoveltyLine[]) => ({
  lines: lines.length,
  businessDays: lines.reduce((n, l) => n + l.part.diasHabiles, 0),
  calendarDays: lines.reduce((n, l) => n + l.part.diasCalendario, 0),
  value: lines.reduce((n, l) => n + l.part.valor, 0),
});

/**
 * One page of the month's novelties: the workers with a novelty in the month among the next
 * `limit` after `afterWorker`, in worker order, each with their lines and totals, and the last
 * worker of the page when more follow (null on the last page). Two indexed queries a page, and the
 * worker rows in one more. A page may hold fewer workers than asked when a version's plan does not
 * reach the month.
 */
export async function noveltiesPage(
  q: Queryable,
  store: EventStore,
  f: NoveltyFilter,
  afterWorker: number,
  limit: number,
): Promise<{ workers: WorkerNovelties[]; last: number | null }> {
  // One worker more than asked tells whether another page follows; its lines are left for it.
  const read = await noveltyPage(q, f, afterWorker, limit + 1);
  const ids = [...new Set(read.map((r) => r.record.workerId))];
  const more = ids.length > limit;
  const rows = more ? read.filter((r) => r.record.workerId !== ids[limit]) : read;
  const lines = await linesOf(q, store, f.month, rows);
  const workers = await new ReferenceRepository(q).workersByIds([...new Set(lines.map((l) => l.record.workerId))]);
  const byWorker = new Map<number, NoveltyLine[]>();
  for (const l of lines) {
    const list = byWorker.get(l.record.workerId);
    if (list) list.push(l);
    else byWorker.set(l.record.workerId, [l]);
  }
  return {
    workers: workers.map((worker) => {
      const mine = byWorker.get(worker.id)!;
      return { worker, lines: mine, totals: sum(mine) };
    }),
    last: more ? ids[limit - 1]! : null,
  };
}

/** Every page of the month, one after another, for the CSV and XLSX writers. */
export async function* monthNovelties(
  q: Queryable,
  store: EventStore,
  f: NoveltyFilter,
  pageSize = NOVELTY_PAGE_SIZE,
): AsyncGenerator<WorkerNovelties> {
  let after: number | null = FIRST_WORKER;
  while (after !== null) {
    const page = await noveltiesPage(q, store, f, after, pageSize);
    yield* page.workers;
    after = page.last;
  }
}

/** Read models the month's totals are figured from: while their checkpoints stand still, so do the totals. */
const TOTALS_SOURCES = [registerProjector.name, amortizationsProjector.name, vacationsProjector.name];
/** The month's totals last figured on each database, a few filters of each. */
const totalsHeld = new WeakMap<Queryable, VersionedMemo<NoveltyTotals>>();

/**
 * The month's totals under the filter (figureTotals), as every JSON page of the month carries
 * them: figured once for the read models as they stand and given again to the next pages while no
 * batch has changed them (their checkpoints move with every batch that writes them), so that
 * walking a month of 50,000 workers figures them once rather than once per page.
 */
export async function monthTotals(q: Queryable, store: EventStore, f: NoveltyFilter): Promise<NoveltyTotals> {
  let memo = totalsHeld.get(q);
  if (!memo) totalsHeld.set(q, (memo = new VersionedMemo(16)));
  const version = [...(await readCheckpoints(q, TOTALS_SOURCES)).values()].map(positionToString).join(' ');
  return memo.get(JSON.stringify(f), version, () => figureTotals(q, store, f));
}

/**
 * The month's totals under the filter: the read model's sums, and the lines of versions
 * interrupted after the cut counted from their own plan.
 */
async function figureTotals(q: Queryable, store: EventStore, f: NoveltyFilter): Promise<NoveltyTotals> {
  const t = await noveltyTotals(q, f);
  if (t.unplanned === 0) return t;
  // Rare (records interrupted since the cut): their lines are read whole and added up here.
  let totals = { workers: 0, lines: 0, businessDays: 0, calendarDays: 0, value: 0 };
  for await (const w of monthNovelties(q, store, f)) {
    totals = {
      workers: totals.workers + 1,
      lines: totals.lines + w.totals.lines,
      businessDays: totals.businessDays + w.totals.businessDays,
      calendarDays: totals.calendarDays + w.totals.calendarDays,
      value: totals.value + w.totals.value,
    };
  }
  return totals;
}
