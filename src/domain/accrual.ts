/** Vacation accrual from payroll sheets: days worked under main contracts, at an annual rate; the IBC. */
import type { ContractDates } from './contracts.ts';
import { assertValidDate } from './dates.ts';

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

/**
 * The days of a sheet that were not worked, by kind (DOMAIN.md, "Leave on a payroll sheet"): sick
 * leave, paid leave and paid vacation accrue as days worked do; unpaid leave and suspension
 * (CST arts. 51, 53) accrue nothing and are deducted.
 */
export interface SheetLeave {
  sick: number;
  paidLeave: number;
  vacation: number;
  unpaidLeave: number;
  suspension: number;
}

/** The kinds of leave that accrue nothing: what the register and the periods show as deducted. */
export interface DeductedDays {
  unpaidLeave: number;
  suspension: number;
}

/** A sheet as the day count reads it; `Id` is whatever the caller's contract ids are. Without `leave`, every day is worked. */
export type WorkedSheet<Id> = Pick<PayrollSheet, 'periodStart' | 'periodEnd' | 'daysWorked'> & { contractId: Id; leave?: SheetLeave };

/** The days of a sheet that accrue vacation: worked, sick leave, paid leave and paid vacation; the one place that says so. */
export function accruingDays(daysWorked: number, leave: SheetLeave | undefined): number {
  return leave === undefined ? daysWorked : daysWorked + leave.sick + leave.paidLeave + leave.vacation;
}

/** The days of a sheet that accrue nothing, by kind. */
export function deductedDays(leave: SheetLeave | undefined): DeductedDays {
  return leave === undefined ? { unpaidLeave: 0, suspension: 0 } : { unpaidLeave: leave.unpaidLeave, suspension: leave.suspension };
}
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
  return sheetCounts(sheet.contractId, sheet.periodStart, sheet.periodEnd, ranges, referenceDate);
}

/** countsAsWorked of a sheet given by its parts, for a walk over payroll's lists that makes no sheet objects. */
export function sheetCounts<Id>(
  contractId: Id,
  periodStart: string,
  periodEnd: string,
  ranges: MainContractRanges<Id>,
  referenceDate: string,
): boolean {
  assertValidDate(periodStart, 'sheet period start');
  assertValidDate(periodEnd, 'sheet period end');
  if (periodEnd > referenceDate) return false;
  const range = ranges.get(contractId);
  return range !== undefined && range.from <= periodStart && periodEnd <= range.to;
}

/** Risk levels 4 and 5 earn the high-risk rate; null means the contract lacks a level. */
export function annualDaysFor(riskLevel: number | null, params: AccrualParams): number | null {
  if (riskLevel === null) return null;
  if (!Number.isInteger(riskLevel) || riskLevel < 1 || riskLevel > 5) {
    throw new RangeError(`risk level ${riskLevel} is not one of 1, 2, 3, 4, 5`);
  }
  return riskLevel >= 4 ? params.annualDaysHighRisk : params.annualDays;
}
