/** Vacation accrual from payroll sheets: days worked under main contracts, at an annual rate; the IBC. */
import type { ContractDates } from './contracts.ts';
import { assertValidDate } from './dates.ts';
import { Days360 } from './days360.ts';

export interface PayrollSheet {
  contractId: string;
  periodStart: string;
  periodEnd: string;
  daysWorked: number;
  /** Whole pesos. */
  basicCompensation: number;
}

export interface AccrualParams {
  annualDays: number;
  annualDaysHighRisk: number;
}

/** A sheet as the day count reads it; `Id` is whatever the caller's contract ids are. */
export type WorkedSheet<Id> = Pick<PayrollSheet, 'periodStart' | 'periodEnd' | 'daysWorked'> & { contractId: Id };
export type ContractRange<Id> = Pick<ContractDates, 'startDate' | 'endDate' | 'additional'> & { id: Id };

/** The date range of each main contract that has both dates, by contract id. */
export type MainContractRanges<Id> = ReadonlyMap<Id, { from: string; to: string }>;

/**
 * Only main contracts earn days worked. An additional contract runs alongside a main one, so
 * its own sheets would count the same days twice; a contract without both dates cannot place a
 * sheet in time.
 */
export function mainContractRanges<Id>(contracts: readonly ContractRange<Id>[]): MainContractRanges<Id> {
  const ranges = new Map<Id, { from: string; to: string }>();
  for (const c of contracts) {
    if (!c.additional && c.startDate !== null && c.endDate !== null) ranges.set(c.id, { from: c.startDate, to: c.endDate });
  }
  return ranges;
}

/**
 * Whether a sheet's days count by `referenceDate`: it belongs to a main contract (by its
 * contract id, whatever its dates), lies inside that contract's range, and has ended.
 */
export function countsAsWorked<Id>(sheet: WorkedSheet<Id>, ranges: MainContractRanges<Id>, referenceDate: string): boolean {
  assertValidDate(sheet.periodStart, 'sheet period start');
  assertValidDate(sheet.periodEnd, 'sheet period end');
  if (sheet.periodEnd > referenceDate) return false;
  const range = ranges.get(sheet.contractId);
  return range !== undefined && range.from <= sheet.periodStart && sheet.periodEnd <= range.to;
}

/** Days worked up to `referenceDate`: the days of every sheet that countsAsWorked. */
export function daysWorked<Id>(sheets: readonly WorkedSheet<Id>[], contracts: readonly ContractRange<Id>[], referenceDate: string): number {
  assertValidDate(referenceDate, 'reference date');
  const ranges = mainContractRanges(contracts);
  let total = 0;
  for (const sheet of sheets) {
    if (countsAsWorked(sheet, ranges, referenceDate)) total += sheet.daysWorked;
  }
  return total;
}

/** Risk levels 4 and 5 earn the high-risk rate; null means the contract lacks a level. */
export function annualDaysFor(riskLevel: number | null, params: AccrualParams): number | null {
  if (riskLevel === null) return null;
  if (!Number.isInteger(riskLevel) || riskLevel < 1 || riskLevel > 5) {
    throw new RangeError(`risk level ${riskLevel} is not one of 1, 2, 3, 4, 5`);
  }
  return riskLevel >= 4 ? params.annualDaysHighRisk : params.annualDays;
}

/** daysWorked × annualDays / 360 days, which in 360ths is the plain product. */
export function accruedDays(worked: number, annualDays: number): Days360 {
  if (!Number.isSafeInteger(worked) || !Number.isSafeInteger(annualDays)) {
    throw new RangeError(`days worked ${worked} and annual days ${annualDays} must be whole numbers`);
  }
  return Days360.fromUnits(worked * annualDays);
}

export function takenDays(days: number): Days360 {
  return Days360.fromWholeDays(days);
}

/** May be negative when more was taken than accrued. */
export function availableDays(accrued: Days360, taken: Days360): Days360 {
  return accrued.minus(taken);
}

/**
 * The latest month that has ended by `today` (its last day is before today): the month before
 * today's. A month still running is never settled, however many of its sheets are paid.
 */
export function lastSettledMonth(today: string): string {
  assertValidDate(today, 'today');
  const year = Number(today.slice(0, 4));
  const month = Number(today.slice(5, 7));
  return month === 1 ? `${String(year - 1).padStart(4, '0')}-12` : `${today.slice(0, 4)}-${String(month - 1).padStart(2, '0')}`;
}

/**
 * IBC (contribution base) of the last settled month: the compensation of every sheet, of any
 * contract, whose period ends in the latest settled month that has a sheet. Without such a sheet
 * the contract salary stands in, as for a newly hired worker.
 */
export function ibcLastMonth(
  sheets: readonly Pick<PayrollSheet, 'periodEnd' | 'basicCompensation'>[],
  latestContractSalary: number,
  today: string,
): number {
  const settled = lastSettledMonth(today);
  let latestMonth: string | null = null;
  for (const sheet of sheets) {
    assertValidDate(sheet.periodEnd, 'sheet period end');
    const month = sheet.periodEnd.slice(0, 7);
    if (month <= settled && (latestMonth === null || month > latestMonth)) latestMonth = month;
  }
  if (latestMonth === null) return latestContractSalary;
  let total = 0;
  for (const s of sheets) if (s.periodEnd.slice(0, 7) === latestMonth) total += s.basicCompensation;
  return total;
}

/**
 * A worker's payroll folded once, for every date that may be asked: the end of each period in
 * which counted sheets end, with the days worked by then (a running total), and each month in
 * which any sheet ends, with the basic compensation of its sheets. Both ascending, each kept as
 * arrays side by side rather than as pairs: a cache holds the summaries of tens of thousands of
 * workers, and a pair is an object of its own. What the per-worker read model stores, so that no
 * request walks the sheets.
 */
export interface PayrollSummary {
  /** The ends of the periods in which counted sheets end. */
  workedEnds: readonly string[];
  /** Days worked by each of `workedEnds`. */
  workedSoFar: readonly number[];
  /**
   * Beside each of `workedEnds`, the first day of the counted sheets that end on it: where the
   * accrual periods place those days. Absent from summaries kept before it was (read then as
   * running from the day after the date before).
   */
  workedFrom?: readonly string[];
  /** The months ("YYYY-MM") in which any sheet ends. */
  months: readonly string[];
  /** The basic compensation of the sheets ending in each of `months`. */
  monthPay: readonly number[];
}

/**
 * The summary of these sheets under these contracts; workedBy and ibcOf answer from it as daysWorked
 * and ibcLastMonth do from the sheets, and sheetsFromSummary gives back the counted sheets' days.
 */
export function summarizePayroll<Id>(
  sheets: readonly (WorkedSheet<Id> & Pick<PayrollSheet, 'basicCompensation'>)[],
  contracts: readonly ContractRange<Id>[],
): PayrollSummary {
  const ranges = mainContractRanges(contracts);
  const worked = new Map<string, { days: number; from: string }>();
  const months = new Map<string, number>();
  for (const sheet of sheets) {
    // Any date at or after the sheet's end: whether it counts no longer depends on the date.
    if (countsAsWorked(sheet, ranges, '9999-12-31')) {
      const held = worked.get(sheet.periodEnd);
      if (!held) worked.set(sheet.periodEnd, { days: sheet.daysWorked, from: sheet.periodStart });
      else
        worked.set(sheet.periodEnd, {
          days: held.days + sheet.daysWorked,
          from: held.from < sheet.periodStart ? held.from : sheet.periodStart,
        });
    }
    const month = sheet.periodEnd.slice(0, 7);
    months.set(month, (months.get(month) ?? 0) + sheet.basicCompensation);
  }
  let total = 0;
  const ends = [...worked].sort(([a], [b]) => (a < b ? -1 : 1));
  const paid = [...months].sort(([a], [b]) => (a < b ? -1 : 1));
  return {
    workedEnds: ends.map(([end]) => end),
    workedSoFar: ends.map(([, { days }]) => (total += days)),
    workedFrom: ends.map(([, { from }]) => from),
    months: paid.map(([month]) => month),
    monthPay: paid.map(([, pay]) => pay),
  };
}

/** Index of the last key at most `key` in a list of ascending keys, or -1. */
function lastAtMost(keys: readonly string[], key: string): number {
  let lo = 0;
  let hi = keys.length;
  while (lo < hi) {
    const mid = (lo + hi) >>> 1;
    if (keys[mid]! <= key) lo = mid + 1;
    else hi = mid;
  }
  return lo - 1;
}

/** daysWorked of the summarised sheets up to `referenceDate`. */
export function workedBy(summary: PayrollSummary, referenceDate: string): number {
  assertValidDate(referenceDate, 'reference date');
  const i = lastAtMost(summary.workedEnds, referenceDate);
  return i < 0 ? 0 : summary.workedSoFar[i]!;
}

/** ibcLastMonth of the summarised sheets. */
export function ibcOf(summary: PayrollSummary, latestContractSalary: number, today: string): number {
  const i = lastAtMost(summary.months, lastSettledMonth(today));
  return i < 0 ? latestContractSalary : summary.monthPay[i]!;
}
