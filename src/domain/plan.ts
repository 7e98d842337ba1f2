/**
 * The annual vacation plan (programación anual de vacaciones): for a year and the workers who owe
 * days, a proposed start and length for each, in one continuous block, that breaks no booking rule:
 * the start is one of the worker's business days, the line ends within the year and the worker's
 * contract, it overlaps none of the worker's own bookings or closures, and on no calendar day are
 * more of a subgerencia's people away than its limit allows. A proposal only: nothing is booked.
 *
 * Workers are served in order of need (days that would prescribe, then days that would pile up a
 * third period, then the rest), each taking the place nearest its target that still fits, so the
 * ones whose days are most at risk choose first. Targets spread a subgerencia's people over the
 * year rather than piling them on its first weeks (see `placeGroup`).
 */
import { isBusinessDayNumber, type HolidayLookup } from './calendar.ts';
import { assertValidDate, fromDayNumber, toDayNumber, weekdayOfNumber } from './dates.ts';
import { CONTINUOUS_DAYS } from './periods.ts';

/** Both dates included. */
export interface Span {
  startDate: string;
  endDate: string;
}

/**
 * Why a worker is in the plan: `prescribe`, days that would prescribe (CST art. 488); `acumula`,
 * days that would leave more than two periods pending (CST art. 190); `pendiente`, the rest.
 */
export type PlanNeed = 'prescribe' | 'acumula' | 'pendiente';

export interface PlanWorker {
  workerId: number;
  subgerenciaId: string;
  worksSaturday: boolean;
  /** Whole business days to propose, in one continuous block (at least 1). */
  daysOwed: number;
  /** The contract's minimum of days enjoyed at a time; a line is never shorter than this or CONTINUOUS_DAYS. */
  minimumDays: number;
  need: PlanNeed;
  /** Pending days ×360, a whole number: within a need, more pending goes first. */
  pendingUnits: number;
  /** The line must end by this date; null for an open-ended contract. */
  contractEnd: string | null;
  /** The line may not start before this date (its days are earned the day before); null: any day of the window. */
  earliest: string | null;
  /** The worker's own live enjoyed bookings and closures: a line never overlaps them. */
  busy: readonly Span[];
}

export interface PlanSubgerencia {
  id: string;
  /** People away at once (any calendar day), counting existing bookings and the plan's lines; null for no limit. */
  limit: number | null;
  /**
   * Every live enjoyed booking or closure of the subgerencia's workers, one span per booking and
   * worker (the workers' own busy spans included), counted per calendar day against the limit.
   */
  occupied: readonly Span[];
}

export interface PlanInput {
  year: number;
  /** The first day a line may start; a day before 1 January of `year` counts as 1 January. */
  from: string;
  workers: readonly PlanWorker[];
  subgerencias: readonly PlanSubgerencia[];
  calendar: HolidayLookup;
}

export interface PlanLine {
  workerId: number;
  subgerenciaId: string;
  startDate: string;
  endDate: string;
  days: number;
  need: PlanNeed;
}

/**
 * Why a worker got no line, checked in this order: `sinSubgerencia`, its subgerencia is not in the
 * input; `pocosDias`, it owes fewer days than the shortest line allowed; `finContrato`, not even
 * the first start of the window ends by the worker's last day (its contract's end, or the year's:
 * the window is too short); `sinCupo`, every start that would fit overlaps the worker's bookings
 * or finds a day of the subgerencia already at its limit.
 */
export type Unplaced = 'sinCupo' | 'finContrato' | 'pocosDias' | 'sinSubgerencia';

export interface PlanLeftOut {
  workerId: number;
  subgerenciaId: string;
  reason: Unplaced;
  need: PlanNeed;
}

export interface Plan {
  /** By start date, then worker. */
  lines: PlanLine[];
  /** In order of need. */
  leftOut: PlanLeftOut[];
  /** `prescribingDaysLeft`: days owed by the `prescribe` workers left out, whatever the reason. */
  totals: { placed: number; leftOut: number; prescribingDaysLeft: number };
}

const NEED_RANK: Readonly<Record<PlanNeed, number>> = { prescribe: 0, acumula: 1, pendiente: 2 };

/** The business days of one kind of worker over the window, as offsets from its first day. */
interface BusinessTable {
  /** Offsets of the business days, ascending; a line of d days from rank r ends at `days[r + d - 1]`. */
  days: Int32Array;
  /** For each offset 0..length, the rank of the first business day at or after it (`days.length` past the last). */
  nextRank: Int32Array;
}

interface Candidate {
  worker: PlanWorker;
  table: BusinessTable;
  /** The earliest rank a line can start from: the first business day on or after the worker's earliest. */
  firstRank: number;
  /** The latest rank a line can start from and still end by the worker's last day. */
  lastRank: number;
  /** The worker's busy spans within the window, as pairs of offsets. */
  busy: number[];
}

export function planYear(input: PlanInput): Plan {
  const { year, calendar } = input;
  if (!Number.isInteger(year) || year < 1 || year > 9999) throw new RangeError(`year ${year} is not a whole number from 1 to 9999`);
  assertValidDate(input.from, 'from');
  const yearStart = toDayNumber(`${String(year).padStart(4, '0')}-01-01`);
  const first = Math.max(toDayNumber(input.from), yearStart);
  const length = Math.max(0, toDayNumber(`${String(year).padStart(4, '0')}-12-31`) - first + 1);

  const subgerencias = new Map<string, PlanSubgerencia>();
  for (const sub of input.subgerencias) {
    if (subgerencias.has(sub.id)) throw new RangeError(`subgerencia ${JSON.stringify(sub.id)} is given twice`);
    if (sub.limit !== null && (!Number.isSafeInteger(sub.limit) || sub.limit < 0)) {
      throw new RangeError(`subgerencia ${JSON.stringify(sub.id)} has limit ${sub.limit}, not a whole number of at least 0`);
    }
    subgerencias.set(sub.id, sub);
  }
  const seen = new Set<number>();
  for (const worker of input.workers) {
    assertWorker(worker);
    if (seen.has(worker.workerId)) throw new RangeError(`worker ${worker.workerId} is given twice`);
    seen.add(worker.workerId);
  }

  // Sorted on its own keys, which workers never tie on, so the input's order cannot show through.
  const ordered = [...input.workers].sort(byNeed);
  const tables = businessTables(first, length, calendar);
  const lines: PlanLine[] = [];
  const leftOut: PlanLeftOut[] = [];
  const groups = new Map<string, Candidate[]>();

  for (const worker of ordered) {
    const leave = (reason: Unplaced) =>
      leftOut.push({ workerId: worker.workerId, subgerenciaId: worker.subgerenciaId, reason, need: worker.need });
    if (!subgerencias.has(worker.subgerenciaId)) {
      leave('sinSubgerencia');
      continue;
    }
    if (worker.daysOwed < Math.max(worker.minimumDays, CONTINUOUS_DAYS)) {
      leave('pocosDias');
      continue;
    }
    const table = worker.worksSaturday ? tables.saturday : tables.weekday;
    const lastDay = worker.contractEnd === null ? length - 1 : Math.min(length - 1, toDayNumber(worker.contractEnd) - first);
    const lastRank = lastDay < 0 ? -1 : table.nextRank[lastDay + 1]! - worker.daysOwed;
    const firstDay = worker.earliest === null ? 0 : Math.max(0, toDayNumber(worker.earliest) - first);
    const firstRank = firstDay >= length ? table.days.length : table.nextRank[firstDay]!;
    if (lastRank < firstRank) {
      leave('finContrato');
      continue;
    }
    const busy: number[] = [];
    for (const span of worker.busy) {
      const [a, b] = spanOffsets(span, first);
      if (b >= 0 && a <= lastDay) busy.push(Math.max(a, 0), Math.min(b, lastDay));
    }
    let group = groups.get(worker.subgerenciaId);
    if (!group) groups.set(worker.subgerenciaId, (group = []));
    group.push({ worker, table, firstRank, lastRank, busy });
  }

  const scratch = { marks: new Uint8Array(length), prefix: new Int32Array(length + 1) };
  for (const [id, group] of groups) {
    const sub = subgerencias.get(id)!;
    const base = occupancy(sub.occupied, first, length);
    let starts = placeGroup(group, base, sub.limit, true, scratch);
    if (starts.includes(-1)) starts = preferred(starts, placeGroup(group, base, sub.limit, false, scratch));
    group.forEach((candidate, k) => {
      const { worker } = candidate;
      const start = starts[k]!;
      if (start < 0) {
        leftOut.push({ workerId: worker.workerId, subgerenciaId: worker.subgerenciaId, reason: 'sinCupo', need: worker.need });
        return;
      }
      const rank = candidate.table.nextRank[start]!;
      lines.push({
        workerId: worker.workerId,
        subgerenciaId: worker.subgerenciaId,
        startDate: fromDayNumber(first + start),
        endDate: fromDayNumber(first + candidate.table.days[rank + worker.daysOwed - 1]!),
        days: worker.daysOwed,
        need: worker.need,
      });
    });
  }

  lines.sort((a, b) => (a.startDate < b.startDate ? -1 : a.startDate > b.startDate ? 1 : a.workerId - b.workerId));
  const position = new Map(ordered.map((worker, i) => [worker.workerId, i]));
  leftOut.sort((a, b) => position.get(a.workerId)! - position.get(b.workerId)!);
  let prescribingDaysLeft = 0;
  for (const entry of leftOut) {
    if (entry.need === 'prescribe') prescribingDaysLeft += ordered[position.get(entry.workerId)!]!.daysOwed;
  }
  return { lines, leftOut, totals: { placed: lines.length, leftOut: leftOut.length, prescribingDaysLeft } };
}

function byNeed(a: PlanWorker, b: PlanWorker): number {
  return NEED_RANK[a.need] - NEED_RANK[b.need] || b.pendingUnits - a.pendingUnits || a.workerId - b.workerId;
}

function assertWorker(worker: PlanWorker): void {
  const label = `worker ${worker.workerId}`;
  if (!Number.isSafeInteger(worker.workerId)) throw new RangeError(`${label}: the id is not a whole number`);
  if (!Number.isSafeInteger(worker.daysOwed) || worker.daysOwed < 1) {
    throw new RangeError(`${label}: days owed ${worker.daysOwed} is not a whole number of at least 1`);
  }
  if (!Number.isSafeInteger(worker.minimumDays) || worker.minimumDays < 0) {
    throw new RangeError(`${label}: minimum days ${worker.minimumDays} is not a whole number of at least 0`);
  }
  if (!Number.isSafeInteger(worker.pendingUnits)) {
    throw new RangeError(`${label}: pending units ${worker.pendingUnits} is not a whole number`);
  }
  if (!Object.hasOwn(NEED_RANK, worker.need)) {
    throw new RangeError(`${label}: need ${JSON.stringify(worker.need)} is not one of the plan's`);
  }
  if (worker.contractEnd !== null) assertValidDate(worker.contractEnd, `${label}: contract end`);
  if (worker.earliest !== null) assertValidDate(worker.earliest, `${label}: earliest start`);
  // Checked for every worker, not only those who reach the search, so bad input never passes unseen.
  for (const span of worker.busy) spanOffsets(span, 0);
}

/** The span as offsets from the window's first day; either may fall outside the window. */
function spanOffsets(span: Span, first: number): [number, number] {
  const a = toDayNumber(span.startDate) - first;
  const b = toDayNumber(span.endDate) - first;
  if (b < a) throw new RangeError(`span ${span.startDate}..${span.endDate} ends before it starts`);
  return [a, b];
}

function businessTables(first: number, length: number, calendar: HolidayLookup): { weekday: BusinessTable; saturday: BusinessTable } {
  const saturdayDays: number[] = [];
  const weekdayDays: number[] = [];
  for (let i = 0; i < length; i++) {
    // One holiday lookup per day serves both kinds of worker: a weekday worker's business days are
    // a Saturday worker's less the Saturdays.
    if (!isBusinessDayNumber(first + i, true, calendar)) continue;
    saturdayDays.push(i);
    if (weekdayOfNumber(first + i) !== 6) weekdayDays.push(i);
  }
  return { weekday: tableOf(weekdayDays, length), saturday: tableOf(saturdayDays, length) };
}

function tableOf(offsets: number[], length: number): BusinessTable {
  const days = Int32Array.from(offsets);
  const nextRank = new Int32Array(length + 1);
  let rank = days.length;
  for (let i = length; i >= 0; i--) {
    if (rank > 0 && days[rank - 1] === i) rank--;
    nextRank[i] = rank;
  }
  return { days, nextRank };
}

/** People away on each day of the window from the existing bookings. */
function occupancy(spans: readonly Span[], first: number, length: number): Int32Array {
  const change = new Int32Array(length + 1);
  for (const span of spans) {
    const [a, b] = spanOffsets(span, first);
    if (b < 0 || a >= length) continue;
    change[Math.max(a, 0)]!++;
    change[Math.min(b, length - 1) + 1]!--;
  }
  const counts = new Int32Array(length);
  let running = 0;
  for (let i = 0; i < length; i++) counts[i] = running += change[i]!;
  return counts;
}

/**
 * Places a subgerencia's workers, in need order, and gives each one's start offset (-1: no place).
 *
 * Spreading: the k-th of n workers aims at k/n of the way through its own range of starts (from
 * the window's first business day to the last start that still ends by its last day), so a
 * worker whose contract ends in March is spread over January to March rather than aimed past its
 * end. From the target it takes the first start that fits going forward, then, if none, the
 * nearest going back. Being early in need order also means an early target, so the days most at
 * risk are proposed earliest in the year.
 *
 * Packing (`spread` false): each takes the earliest start that fits. `planYear` falls back to it
 * when spreading leaves someone out, because spread lines can leave gaps too short for a whole
 * line, which packing never does with lines of equal length.
 */
function placeGroup(
  group: readonly Candidate[],
  base: Int32Array,
  limit: number | null,
  spread: boolean,
  scratch: { marks: Uint8Array; prefix: Int32Array },
): Int32Array {
  const length = base.length;
  const counts = base.slice();
  // Days already at the limit, as a prefix count, so a candidate is rejected in O(1).
  const full = new Int32Array(length + 1);
  const refill = () => {
    for (let i = 0; i < length; i++) full[i + 1] = full[i]! + (limit !== null && counts[i]! >= limit ? 1 : 0);
  };
  refill();
  const starts = new Int32Array(group.length).fill(-1);
  const n = group.length;

  for (let k = 0; k < n; k++) {
    const { worker, table, firstRank, lastRank, busy } = group[k]!;
    const days = worker.daysOwed;
    const offsets = table.days;
    const blocked = busy.length > 0 ? busyPrefix(busy, scratch) : null;
    const fits = (rank: number): boolean => {
      const s = offsets[rank]!;
      const e = offsets[rank + days - 1]! + 1;
      return full[e] === full[s] && (blocked === null || blocked[e] === blocked[s]);
    };
    let found = -1;
    if (spread) {
      const firstStart = offsets[firstRank]!;
      const target = firstStart + Math.floor((k * (offsets[lastRank]! - firstStart + 1)) / n);
      const from = table.nextRank[target]!;
      for (let r = from; r <= lastRank; r++) {
        if (fits(r)) {
          found = r;
          break;
        }
      }
      for (let r = from - 1; found < 0 && r >= firstRank; r--) if (fits(r)) found = r;
    } else {
      for (let r = firstRank; r <= lastRank; r++) {
        if (fits(r)) {
          found = r;
          break;
        }
      }
    }
    if (found < 0) continue;
    const s = offsets[found]!;
    const e = offsets[found + days - 1]!;
    starts[k] = s;
    let filled = false;
    for (let i = s; i <= e; i++) if (++counts[i]! === limit) filled = true;
    // A day only joins the full ones when a line brings it to the limit, so the prefix is rebuilt
    // at most once per day of the window, not once per line.
    if (filled) refill();
  }
  return starts;
}

/** The busy days as a prefix count over the window, in the shared scratch arrays. */
function busyPrefix(busy: readonly number[], scratch: { marks: Uint8Array; prefix: Int32Array }): Int32Array {
  const { marks, prefix } = scratch;
  marks.fill(0);
  for (let j = 0; j < busy.length; j += 2) marks.fill(1, busy[j]!, busy[j + 1]! + 1);
  for (let i = 0; i < marks.length; i++) prefix[i + 1] = prefix[i]! + marks[i]!;
  return prefix;
}

/**
 * Of two placements of the same workers, the one that serves the first worker they disagree on;
 * the spread one when they place the same workers. Comparing worker by worker in need order keeps
 * the fallback from trading a worker early in the order for several later ones.
 */
function preferred(spread: Int32Array, packed: Int32Array): Int32Array {
  for (let k = 0; k < spread.length; k++) {
    const a = spread[k]! >= 0;
    if (a !== packed[k]! >= 0) return a ? spread : packed;
  }
  return spread;
}
