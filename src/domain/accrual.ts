/** Vacation accrual from payroll sheets: days worked under main contracts, at an annual rate. */
import type { Contract } from './contracts.ts';
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

type SheetPeriod = Pick<PayrollSheet, 'periodStart' | 'periodEnd' | 'daysWorked'>;
type ContractRange = Pick<Contract, 'startDate' | 'endDate' | 'additional'>;

/**
 * Days worked up to `referenceDate`: a sheet counts once when its whole period lies inside the
 * range of some main contract. Additional contracts run alongside a main one, so counting their
 * ranges would count the same days twice.
 */
export function daysWorked(
  sheets: readonly SheetPeriod[],
  contracts: readonly ContractRange[],
  referenceDate: string,
): number {
  assertValidDate(referenceDate, 'reference date');
  const ranges = contracts.flatMap((c) =>
    c.additional || c.startDate === null || c.endDate === null ? [] : [{ from: c.startDate, to: c.endDate }],
  );
  let total = 0;
  for (const sheet of sheets) {
    assertValidDate(sheet.periodStart, 'sheet period start');
    assertValidDate(sheet.periodEnd, 'sheet period end');
    if (sheet.periodEnd > referenceDate) continue;
    if (ranges.some((r) => r.from <= sheet.periodStart && sheet.periodEnd <= r.to)) {
      total += sheet.daysWorked;
    }
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
 * IBC (contribution base) of the last month paid: the compensation of every sheet of the latest
 * month, by period end, that has a sheet ended by `today`. Without such a sheet the contract
 * salary stands in, as for a newly hired worker.
 */
export function ibcLastMonth(
  sheets: readonly Pick<PayrollSheet, 'periodEnd' | 'basicCompensation'>[],
  latestContractSalary: number,
  today: string,
): number {
  assertValidDate(today, 'today');
  let latestMonth: string | null = null;
  for (const sheet of sheets) {
    assertValidDate(sheet.periodEnd, 'sheet period end');
    const month = sheet.periodEnd.slice(0, 7);
    if (sheet.periodEnd <= today && (latestMonth === null || month > latestMonth)) latestMonth = month;
  }
  if (latestMonth === null) return latestContractSalary;
  return sheets
    .filter((s) => s.periodEnd.slice(0, 7) === latestMonth)
    .reduce((sum, s) => sum + s.basicCompensation, 0);
}
