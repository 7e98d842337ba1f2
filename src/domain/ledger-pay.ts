/**
 * What the ledger says in pesos: the salary a vacation is paid at, the IBC of the last settled
 * month, and what a settlement on a leaving date owes. Pure, as the rest of the ledger.
 */
import { latestContract } from './contracts.ts';
import { addDays, assertValidDate } from './dates.ts';
import { payrollDays } from './days360.ts';
import { addYears } from './periods.ts';

import {
  periodsOn,
  sheetsOf,
  type LedgerContract,
  type LedgerFile,
  type LedgerRecord,
  annualDaysOf,
  type LedgerPeriods,
} from './ledger.ts';

/**
 * The monthly salary a vacation starting on `date` under `contract` is paid at: the base salary;
 * for a variable salary (CST art. 192 §2), the average of the year before: the pay of that
 * contract's sheets ending in the twelve months before the date over their days worked, times 30,
 * rounded half up to a whole peso (the base salary when no such sheet holds a day worked).
 */
export function salaryOn(file: Pick<LedgerFile, 'contracts' | 'payroll'>, contract: LedgerContract, date: string): number {
  if (!contract.variableSalary) return contract.baseSalary;
  const from = addYears(date, -1);
  let pay = 0n;
  let days = 0n;
  for (const s of sheetsOf(file)) {
    if (s.contractId !== contract.id || s.periodEnd < from || s.periodEnd >= date) continue;
    pay += BigInt(s.pay);
    days += BigInt(s.daysWorked);
  }
  if (days === 0n) return contract.baseSalary;
  // pay × 30 / days, half up: (2 × pay × 30 + days) div (2 × days).
  return Number((pay * 60n + days) / (2n * days));
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
 * the salary of the contract that started last stands in, as for a newly hired worker.
 */
export function ibcOn(file: Pick<LedgerFile, 'contracts' | 'payroll'>, today: string): number {
  const settled = lastSettledMonth(today);
  const p = file.payroll;
  let month: string | null = null;
  for (const end of p.ends) {
    const m = end.slice(0, 7);
    if (m <= settled && (month === null || m > month)) month = m;
  }
  if (month === null) {
    return latestContract(file.contracts)?.baseSalary ?? 0;
  }
  let total = 0;
  for (let i = 0; i < p.ends.length; i++) if (p.ends[i]!.startsWith(month)) total += p.pay[i]!;
  return total;
}

/** The days worked from the day after the contract's last payroll sheet through the leaving date. */
export interface Unpaid {
  /** The end of the contract's last payroll sheet ended by the leaving date (a sheet of 0 days too); null without one. */
  payrollThrough: string | null;
  /** The first of those days (the day after `payrollThrough`, or the contract's start). */
  from: string;
  /** Days worked, as payroll counts them (30-day months). */
  days: number;
  /** What they accrue at the contract's annual days, in 360ths. */
  accruedUnits: number;
}

export interface LedgerSettlement {
  contract: LedgerContract;
  unpaid: Unpaid;
  periods: LedgerPeriods;
  /** Days owed on the leaving date, in 360ths (negative: days given in advance). */
  pendingUnits: number;
  /** The monthly salary they are valued at (salaryOn the leaving date). */
  salary: number;
}

/**
 * What a settlement on `leavingDate` under `contract` (the one governing that date) owes: the
 * balance on that date, with the days worked after the contract's last payroll sheet counted from
 * the contract as payroll will count them (payroll comes after the work). A sheet of 0 days worked
 * (unpaid leave) is payroll run: nothing is projected for it. An additional contract earns no days.
 */
export function settlementOn(file: LedgerFile, records: readonly LedgerRecord[], contract: LedgerContract, leavingDate: string) {
  let payrollThrough: string | null = null;
  for (const s of sheetsOf(file)) {
    if (s.contractId === contract.id && s.periodEnd <= leavingDate && (payrollThrough === null || s.periodEnd > payrollThrough))
      payrollThrough = s.periodEnd;
  }
  const from = payrollThrough === null ? contract.startDate! : addDays(payrollThrough, 1);
  const days = contract.additional ? 0 : payrollDays(from, leavingDate);
  const unpaid: Unpaid = { payrollThrough, from, days, accruedUnits: days * (annualDaysOf(file, contract) ?? 0) };
  const extra = days > 0 ? [{ contractId: contract.id, periodStart: from, periodEnd: leavingDate, daysWorked: days }] : [];
  const periods = periodsOn(file, records, leavingDate, extra);
  return {
    contract,
    unpaid,
    periods,
    pendingUnits: periods.balance.availableUnits,
    salary: salaryOn(file, contract, leavingDate),
  } satisfies LedgerSettlement;
}
