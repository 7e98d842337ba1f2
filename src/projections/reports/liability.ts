import type { Queryable } from '../../db/types.ts';
import {
  lastDayOfMonth,
  liabilityOn,
  movementOf,
  type HolidayLookup,
  type LiabilityRecord,
  type WorkerLiability,
  type WorkerMovement,
} from '../../domain/index.ts';
import type { Contract } from '../../reference/types.ts';
import { workerFilesByIds, workerFilesPage, type WorkerFileRow } from '../../reference/worker-files.ts';
import { liabilityRecordsOfWorkers } from '../register/queries.ts';

/**
 * The vacation liability (pasivo vacacional) of a company, a subgerencia, a company contract or
 * one worker: each worker's figure is the domain's (src/domain/liability.ts), from the per-worker
 * read model and the register's live records, read a page of workers at a time (two indexed
 * queries a page), so that the company's size never sits in memory. The totals are sums of the
 * workers' rounded figures, gathered as the workers go by.
 */

export interface LiabilityScope {
  subgerenciaId?: string;
  companyContractId?: number;
  workerId?: number;
  /** Only the workers counted in one of these subgerencias (an area head's). */
  units?: readonly string[];
}

/** Workers read per query. */
const PAGE = 500;

/** Below every worker id: where the first page starts. */
export const FIRST_WORKER = Number.MIN_SAFE_INTEGER;

export const LIABILITY_PAGE_SIZE = 500;

export interface LiabilityLine {
  file: WorkerFileRow;
  /** The contract the worker is valued and counted under (DOMAIN: governing on the date, else the latest). */
  contract: Contract;
  liability: WorkerLiability;
}

export interface MovementLine {
  file: WorkerFileRow;
  contract: Contract;
  movement: WorkerMovement;
}

/** The figured contract as the worker's file holds it, with its subgerencia. */
const contractOf = (file: WorkerFileRow, id: number): Contract => file.contracts.find((c) => c.id === id)!;

const inScope = (c: Contract, scope: LiabilityScope) =>
  (scope.subgerenciaId === undefined || c.subgerenciaId === scope.subgerenciaId) &&
  (scope.companyContractId === undefined || c.companyContractId === scope.companyContractId) &&
  (scope.units === undefined || scope.units.includes(c.subgerenciaId));

interface Batch {
  files: WorkerFileRow[];
  records: Map<number, LiabilityRecord[]>;
}

/** The scope's next `size` workers after `after`, with their live records. */
async function batchAfter(q: Queryable, scope: LiabilityScope, after: number, size: number): Promise<Batch> {
  const files =
    scope.workerId !== undefined
      ? after < scope.workerId
        ? await workerFilesByIds(q, [scope.workerId])
        : []
      : await workerFilesPage(q, after, size, scope.subgerenciaId);
  const records = await liabilityRecordsOfWorkers(
    q,
    files.map((f) => f.worker.id),
  );
  return { files, records };
}

/**
 * Each worker of the scope after `after`, in worker order, with what `figure` makes of the worker's
 * file and live records; workers it gives nothing for, or counted under a contract outside the
 * scope, are left out. Workers are read `size` at a time, the next batch while this one is
 * figured, so that the database and the figuring overlap.
 */
async function* figured<T>(
  q: Queryable,
  scope: LiabilityScope,
  after: number,
  size: number,
  figure: (file: WorkerFileRow, records: LiabilityRecord[]) => { contractId: number; value: T } | null,
): AsyncGenerator<{ file: WorkerFileRow; contract: Contract; value: T }> {
  let next = batchAfter(q, scope, after, size);
  for (;;) {
    const { files, records } = await next;
    if (files.length === 0) return;
    const more = scope.workerId === undefined && files.length === size;
    if (more) {
      next = batchAfter(q, scope, files[files.length - 1]!.worker.id, size);
      // A reader that stops early leaves this read behind: its failure must not go unhandled.
      next.catch(() => {});
    }
    for (const file of files) {
      const out = figure(file, records.get(file.worker.id) ?? []);
      if (out === null) continue;
      const contract = contractOf(file, out.contractId);
      if (inScope(contract, scope)) yield { file, contract, value: out.value };
    }
    if (!more) return;
  }
}

/** Where lines start and how many workers a read takes: a page's reads take just past the page. */
export interface LinesFrom {
  after?: number;
  /** Workers read at a time (a page's size and one more, for a page). */
  size?: number;
}

/** The liability of each worker of the scope on `date`, after worker `after`. */
export async function* liabilityLines(
  q: Queryable,
  calendar: HolidayLookup,
  scope: LiabilityScope,
  date: string,
  { after = FIRST_WORKER, size = PAGE }: LinesFrom = {},
): AsyncGenerator<LiabilityLine> {
  const lines = figured(q, scope, after, size, (file, records) => {
    const l = liabilityOn(file, records, date, calendar);
    return l && { contractId: l.contract.id, value: l };
  });
  for await (const { file, contract, value } of lines) yield { file, contract, liability: value };
}

/** The movement of month `month` (YYYY-MM) of each worker of the scope, after worker `after`. */
export async function* movementLines(
  q: Queryable,
  calendar: HolidayLookup,
  scope: LiabilityScope,
  month: string,
  { after = FIRST_WORKER, size = PAGE }: LinesFrom = {},
): AsyncGenerator<MovementLine> {
  const first = `${month}-01`;
  const last = lastDayOfMonth(month);
  const lines = figured(q, scope, after, size, (file, records) => {
    const m = movementOf(file, records, first, last, calendar);
    return m && { contractId: (m.closing ?? m.opening)!.contract.id, value: m };
  });
  for await (const { file, contract, value } of lines) yield { file, contract, movement: value };
}

/** Up to `limit` lines, and the worker to continue after when more follow (null on the last page). */
export async function pageOf<L extends { file: WorkerFileRow }>(
  lines: AsyncIterable<L>,
  limit: number,
): Promise<{ lines: L[]; last: number | null }> {
  const out: L[] = [];
  for await (const line of lines) {
    // One line past the page tells whether another page follows, so that none is empty.
    if (out.length === limit) return { lines: out, last: out[limit - 1]!.file.worker.id };
    out.push(line);
  }
  return { lines: out, last: null };
}

/** Sums of the liability of some workers: what is owed and what was prepaid, never netted. */
export interface LiabilitySum {
  workers: number;
  /** In 360ths: the positive pending balances. */
  pendingUnits: number;
  /** In 360ths: the magnitudes of the negative ones (days taken in advance). */
  advanceUnits: number;
  value: number;
  advance: number;
}

/** Sums of the month's movement of some workers, each line a sum of the workers' rounded pesos. */
export interface MovementSum {
  workers: number;
  accruedUnits: number;
  takenDays: number;
  opening: number;
  accrued: number;
  taken: number;
  revaluation: number;
  closing: number;
}

export interface Totals<S> {
  company: S;
  bySubgerencia: Map<string, S>;
  byCompanyContract: Map<number | null, S>;
}

const emptyLiability = (): LiabilitySum => ({ workers: 0, pendingUnits: 0, advanceUnits: 0, value: 0, advance: 0 });
const emptyMovement = (): MovementSum => ({
  workers: 0,
  accruedUnits: 0,
  takenDays: 0,
  opening: 0,
  accrued: 0,
  taken: 0,
  revaluation: 0,
  closing: 0,
});

function addLiability(s: LiabilitySum, l: WorkerLiability): void {
  s.workers++;
  if (l.pendingUnits >= 0) s.pendingUnits += l.pendingUnits;
  else s.advanceUnits -= l.pendingUnits;
  s.value += l.value;
  s.advance += l.advance;
}

function addMovement(s: MovementSum, m: WorkerMovement): void {
  s.workers++;
  s.accruedUnits += m.accruedUnits;
  s.takenDays += m.takenDays;
  s.opening += m.openingValue;
  s.accrued += m.accruedValue;
  s.taken += m.takenValue;
  s.revaluation += m.revaluation;
  s.closing += m.closingValue;
}

/** Totals per subgerencia, company contract and company, kept up as lines pass through. */
class Tally<S, V> {
  readonly totals: Totals<S>;

  constructor(
    private readonly empty: () => S,
    private readonly add: (s: S, v: V) => void,
  ) {
    this.totals = { company: empty(), bySubgerencia: new Map(), byCompanyContract: new Map() };
  }

  take(contract: Contract, v: V): void {
    const { totals } = this;
    this.add(totals.company, v);
    this.add(slot(totals.bySubgerencia, contract.subgerenciaId, this.empty), v);
    this.add(slot(totals.byCompanyContract, contract.companyContractId, this.empty), v);
  }
}

function slot<K, S>(m: Map<K, S>, k: K, empty: () => S): S {
  let s = m.get(k);
  if (s === undefined) m.set(k, (s = empty()));
  return s;
}

export const liabilityTally = () => new Tally<LiabilitySum, WorkerLiability>(emptyLiability, addLiability);
export const movementTally = () => new Tally<MovementSum, WorkerMovement>(emptyMovement, addMovement);

/**
 * The first page of lines and the totals of them all, in one pass: the page is the first `limit`
 * lines, `last` the worker to continue after when more follow.
 */
export async function firstPageAndTotals<L extends { file: WorkerFileRow; contract: Contract }, S, V>(
  lines: AsyncIterable<L>,
  limit: number,
  tally: Tally<S, V>,
  valueOf: (l: L) => V,
): Promise<{ lines: L[]; last: number | null; totals: Totals<S> }> {
  const out: L[] = [];
  let more = false;
  for await (const l of lines) {
    tally.take(l.contract, valueOf(l));
    if (out.length < limit) out.push(l);
    else more = true;
  }
  return { lines: out, last: more ? out[limit - 1]!.file.worker.id : null, totals: tally.totals };
}

export type { Tally };
