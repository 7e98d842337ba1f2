/**
 * Accrual periods (CST arts. 186, 187, 190, 488): the days worked under each main contract, from
 * its start, cut into consecutive periods of 360 days worked. Each full period earns the annual
 * vacation days; the period in progress has earned its proportional part. Days taken are applied
 * to the oldest period that still has days pending.
 */
import {
  accruingDays,
  countsAsWorked,
  deductedDays,
  mainContractRanges,
  type ContractRange,
  type DeductedDays,
  type WorkedSheet,
} from './accrual.ts';
import { calendarDays } from './calendar.ts';
import { addDays, assertValidDate } from './dates.ts';

/** Days worked in a full period: a year of service on 30-day payroll months. */
export const DAYS_PER_PERIOD = 360;

export interface PeriodContract<Id> extends ContractRange<Id> {
  /** A settled contract earns nothing more, whatever its end date says. */
  settled?: boolean;
  /** Days earned by a full period under this contract; null when the contract has no rules to say. */
  annualDays: number | null;
}

export interface AccrualPeriod<Id> {
  contractId: Id;
  /** 1 for the contract's first period. */
  number: number;
  /** First day of the period: the contract's start, or the day after the period before was earned. */
  from: string;
  /** The day the period's 360th day was worked; null while it is in progress. */
  earnedOn: string | null;
  /**
   * Days of this period so far, 0 to 360: the days of its sheets that accrue (worked, sick leave,
   * paid leave, paid vacation); without leave on the sheets, the days worked.
   */
  daysWorked: number;
  /** Days of its sheets that accrue nothing (unpaid leave, suspension), each sheet's in the period its last accruing day fell in. */
  deducted: DeductedDays;
  annualDays: number | null;
  /** Its contract was settled: what the period had pending was paid then, and it takes no later days. */
  settled: boolean;
  /**
   * Its contract earns nothing more on the reference date (it has ended, or was settled): a period
   * not earned by then never will be, and keeps its proportional part.
   */
  closed: boolean;
  /** What the full period earns, in 360ths of a day. */
  entitlementUnits: number;
  /** What it has earned so far, in 360ths: the entitlement once earned. */
  accruedUnits: number;
}

/**
 * The day inside a payroll sheet on which its `needed`-th day worked falls, in proportion to its
 * calendar length: payroll counts 30-day months, so a 16-day fortnight holds 15 days worked.
 */
function dayWithin(sheet: Pick<WorkedSheet<unknown>, 'periodStart' | 'periodEnd'>, accruing: number, needed: number): string {
  const length = calendarDays(sheet.periodStart, sheet.periodEnd);
  const offset = Math.min(length - 1, Math.max(0, Math.ceil((needed * length) / accruing) - 1));
  return addDays(sheet.periodStart, offset);
}

/**
 * The periods of every main contract that has started by `asOf`, oldest contract first: each
 * contract's full periods, then the one in progress (also when empty, while the contract may still
 * earn days: it is where days taken in advance go). Sheets count as for days worked: those of the
 * contract, inside its dates, ended by `asOf`.
 */
export function accrualPeriods<Id>(
  contracts: readonly PeriodContract<Id>[],
  sheets: readonly WorkedSheet<Id>[],
  asOf: string,
): AccrualPeriod<Id>[] {
  assertValidDate(asOf, 'reference date');
  const ranges = mainContractRanges(contracts);
  const byContract = new Map<Id, WorkedSheet<Id>[]>();
  for (const s of sheets) {
    if (!countsAsWorked(s, ranges, asOf)) continue;
    const list = byContract.get(s.contractId);
    if (list) list.push(s);
    else byContract.set(s.contractId, [s]);
  }
  const mains = contracts
    .filter((c) => ranges.has(c.id) && c.startDate! <= asOf)
    .sort((a, b) => (a.startDate! < b.startDate! ? -1 : a.startDate! > b.startDate! ? 1 : 0));
  const periods: AccrualPeriod<Id>[] = [];
  for (const c of mains) {
    const annual = c.annualDays;
    // A contract over (ended or settled by asOf) earns nothing more.
    const over = c.endDate! < asOf || c.settled === true;
    const open = (number: number, from: string): AccrualPeriod<Id> => ({
      contractId: c.id,
      number,
      from,
      earnedOn: null,
      daysWorked: 0,
      deducted: { unpaidLeave: 0, suspension: 0 },
      annualDays: annual,
      settled: c.settled === true,
      closed: over,
      entitlementUnits: (annual ?? 0) * DAYS_PER_PERIOD,
      accruedUnits: 0,
    });
    let current = open(1, c.startDate!);
    const own = (byContract.get(c.id) ?? []).sort((a, b) => (a.periodStart < b.periodStart ? -1 : a.periodStart > b.periodStart ? 1 : 0));
    for (const s of own) {
      const accruing = accruingDays(s.daysWorked, s.leave);
      let left = accruing;
      let usedInSheet = 0;
      let holder = current;
      while (left > 0) {
        holder = current;
        const room = DAYS_PER_PERIOD - current.daysWorked;
        const taken = Math.min(room, left);
        current.daysWorked += taken;
        usedInSheet += taken;
        left -= taken;
        if (current.daysWorked === DAYS_PER_PERIOD) {
          current.earnedOn = dayWithin(s, accruing, usedInSheet);
          periods.push(current);
          current = open(current.number + 1, addDays(current.earnedOn, 1));
        }
      }
      const deducted = deductedDays(s.leave);
      holder.deducted.unpaidLeave += deducted.unpaidLeave;
      holder.deducted.suspension += deducted.suspension;
    }
    // An empty last period of a contract that is over is none.
    if (current.daysWorked > 0 || !over) periods.push(current);
  }
  for (const p of periods) p.accruedUnits = (p.annualDays ?? 0) * p.daysWorked;
  return periods;
}

/** A live vacation as the allocation reads it. */
export interface TakenRecord {
  key: string;
  startDate: string;
  /** Business days taken (enjoyed, or paid in money when compensated). */
  days: number;
  compensated: boolean;
  /** Orders records that start on the same day: the numeric record id. */
  order: number;
}

export interface PeriodUse {
  enjoyedUnits: number;
  compensatedUnits: number;
  /** Accrued minus what was taken; negative when days were taken in advance. */
  pendingUnits: number;
}

export interface Allocation {
  /** One per period, in the periods' order. */
  periods: PeriodUse[];
  /** Where each record's days went: period index and 360ths, by record key. */
  byRecord: Map<string, { period: number; units: number }[]>;
}

const byStart = (a: TakenRecord, b: TakenRecord): number =>
  a.startDate < b.startDate ? -1 : a.startDate > b.startDate ? 1 : a.order - b.order;

/**
 * Applies the records' days, in order of start, to the oldest period with days pending. What no
 * period has earned yet goes to the last period, which then shows a negative balance (days in
 * advance). Without any period, nothing can be placed and every use is empty.
 */
export function allocateTaken(periods: readonly AccrualPeriod<unknown>[], records: readonly TakenRecord[]): Allocation {
  const uses: PeriodUse[] = periods.map((p) => ({ enjoyedUnits: 0, compensatedUnits: 0, pendingUnits: p.accruedUnits }));
  const byRecord = new Map<string, { period: number; units: number }[]>();
  let oldest = 0;
  for (const r of [...records].sort(byStart)) {
    const parts: { period: number; units: number }[] = [];
    byRecord.set(r.key, parts);
    if (uses.length === 0) continue;
    let left = r.days * 360;
    const place = (i: number, units: number) => {
      const use = uses[i]!;
      if (r.compensated) use.compensatedUnits += units;
      else use.enjoyedUnits += units;
      use.pendingUnits -= units;
      const last = parts.at(-1);
      if (last?.period === i) last.units += units;
      else parts.push({ period: i, units });
    };
    while (left > 0 && oldest < uses.length) {
      const room = uses[oldest]!.pendingUnits;
      if (room <= 0) {
        oldest++;
        continue;
      }
      const units = Math.min(room, left);
      place(oldest, units);
      left -= units;
    }
    if (left > 0) place(uses.length - 1, left);
  }
  return { periods: uses, byRecord };
}

/**
 * allocateTaken, each settled contract on its own: the records `settledOf` names a settled
 * contract for were taken under it (what it had pending was paid when it was settled, what it gave
 * in advance deducted then), so they go to its periods alone, and to none when it has no period;
 * every other record goes to the periods of the unsettled contracts, oldest first.
 */
export function allocateAcrossContracts<Id>(
  periods: readonly AccrualPeriod<Id>[],
  records: readonly TakenRecord[],
  settledOf: (record: TakenRecord) => Id | null,
): Allocation {
  const pools = new Map<Id | null, { periods: number[]; records: TakenRecord[] }>([[null, { periods: [], records: [] }]]);
  periods.forEach((p, i) => {
    const key = p.settled ? p.contractId : null;
    const pool = pools.get(key);
    if (pool) pool.periods.push(i);
    else pools.set(key, { periods: [i], records: [] });
  });
  for (const r of records) pools.get(settledOf(r))?.records.push(r);
  const uses: PeriodUse[] = new Array<PeriodUse>(periods.length);
  const byRecord = new Map<string, { period: number; units: number }[]>();
  for (const pool of pools.values()) {
    const a = allocateTaken(
      pool.periods.map((i) => periods[i]!),
      pool.records,
    );
    a.periods.forEach((use, j) => (uses[pool.periods[j]!] = use));
    for (const [key, parts] of a.byRecord)
      byRecord.set(
        key,
        parts.map((part) => ({ period: pool.periods[part.period]!, units: part.units })),
      );
  }
  return { periods: uses, byRecord };
}

/** A year after the period was earned, the employer must have granted it (CST art. 187). */
export function enforceableFrom(earnedOn: string): string {
  return addYears(earnedOn, 1);
}

/** Business days a worker enjoys at a stretch each year, at least (CST art. 190): they cannot be accumulated. */
export const CONTINUOUS_DAYS = 6;

/** The end of the year in which a period's vacation, enforceable from `enforceable`, must give its continuous days (CST art. 190). */
export function continuousDaysDue(enforceable: string): string {
  return addYears(enforceable, 1);
}

/** Three years after the vacation became enforceable, the right to it prescribes (CST art. 488). */
export function prescribesOn(earnedOn: string): string {
  return addYears(enforceableFrom(earnedOn), 3);
}

/** The same day `years` later; 29 February falls on 28 February of a common year. Throws past 9999. */
export function addYears(date: string, years: number): string {
  assertValidDate(date);
  const y = Number(date.slice(0, 4)) + years;
  const md = date.slice(4);
  const leap = (y % 4 === 0 && y % 100 !== 0) || y % 400 === 0;
  const result = `${String(y).padStart(4, '0')}${md === '-02-29' && !leap ? '-02-28' : md}`;
  assertValidDate(result, `${years} years after ${date}`);
  return result;
}
