/**
 * The vacation liability (pasivo vacacional) of one worker on a cut-off date, and its movement over
 * a month: what the company owes in vacations accrued and not yet enjoyed or paid. The accrual and
 * the salary come from the ledger (balanceOn, salaryOn), so that the liability moves with every
 * rule the ledger learns. Pure: no I/O, no clock.
 */
import { businessDaysBetween, type HolidayLookup } from './calendar.ts';
import { governingContract, latestContract } from './contracts.ts';
import { addDays, assertValidDate } from './dates.ts';
import { balanceOn, settledContractOf, type LedgerContract, type LedgerFile, type LedgerRecord } from './ledger.ts';
import { salaryOn } from './ledger-pay.ts';
import { valueOfUnits } from './money.ts';

/** A live record as the liability reads it: the ledger's, with the days it covers. */
export interface LiabilityRecord extends LedgerRecord {
  /** Its last day (after any interruption: the last day enjoyed). */
  endDate: string;
  worksSaturday: boolean;
}

export interface WorkerLiability {
  date: string;
  /** The contract whose subgerencia, company contract and salary the worker is valued under. */
  contract: LedgerContract;
  /** In 360ths of a day: accrued through the date (payroll run through it only). */
  accruedUnits: number;
  /** Business days of live enjoyed records that fell on or before the date. */
  enjoyedDays: number;
  /** Days of live compensated records that started on or before the date. */
  compensatedDays: number;
  /** accrued − enjoyed − compensated, in 360ths; negative: days taken in advance. */
  pendingUnits: number;
  /** The monthly salary a vacation starting on the date would be paid at. */
  salary: number;
  /** Pesos owed: pending × salary / 30, half up; 0 when pending is negative. */
  value: number;
  /** Pesos prepaid (taken in advance): the magnitude of a negative pending's value; else 0. */
  advance: number;
}

/** Whether the worker is in the liability on `date`: an unsettled contract begun by then. */
export function owesOn(file: Pick<LedgerFile, 'contracts'>, date: string): boolean {
  return file.contracts.some((c) => !c.settled && c.startDate !== null && c.startDate <= date);
}

/** The days of a record enjoyed or paid by `date`: a booking ahead counts only as its days pass. */
export function daysTakenBy(record: LiabilityRecord, date: string, calendar: HolidayLookup): number {
  if (record.startDate > date) return 0;
  if (record.compensated || record.endDate <= date) return record.days;
  return Math.min(record.days, businessDaysBetween(record.startDate, date, record.worksSaturday, calendar));
}

/** The liability of one worker on `date`; null when the worker owes nothing then (owesOn). */
export function liabilityOn(
  file: LedgerFile,
  records: readonly LiabilityRecord[],
  date: string,
  calendar: HolidayLookup,
): WorkerLiability | null {
  assertValidDate(date, 'cut-off date');
  if (!owesOn(file, date)) return null;
  const contract = (governingContract(file.contracts, date) ?? latestContract(file.contracts))!;
  const { accruedUnits } = balanceOn(file, [], date);
  let enjoyedDays = 0;
  let compensatedDays = 0;
  for (const r of records) {
    if (settledContractOf(file.contracts, r) !== null) continue;
    const days = daysTakenBy(r, date, calendar);
    if (r.compensated) compensatedDays += days;
    else enjoyedDays += days;
  }
  const pendingUnits = accruedUnits - (enjoyedDays + compensatedDays) * 360;
  const salary = salaryOn(file, contract, date);
  const signed = valueOfUnits(salary, pendingUnits);
  return {
    date,
    contract,
    accruedUnits,
    enjoyedDays,
    compensatedDays,
    pendingUnits,
    salary,
    value: Math.max(signed, 0),
    advance: Math.max(-signed, 0),
  };
}

export interface WorkerMovement {
  opening: WorkerLiability | null;
  closing: WorkerLiability | null;
  /** In 360ths: accrued during the month. */
  accruedUnits: number;
  /** Days enjoyed or paid during the month. */
  takenDays: number;
  /** Pesos, each rounded on its own; the liability net of prepaid days (owed − prepaid). */
  openingValue: number;
  accruedValue: number;
  takenValue: number;
  revaluation: number;
  closingValue: number;
}

const net = (l: WorkerLiability | null) => (l === null ? 0 : l.value - l.advance);

/**
 * The movement of month `month` (YYYY-MM, whose last day is `lastDay`): opening on the day before
 * the month, accrued and taken valued at the closing salary, the revaluation the rest; null when
 * the worker owes nothing on either end.
 */
export function movementOf(
  file: LedgerFile,
  records: readonly LiabilityRecord[],
  firstDay: string,
  lastDay: string,
  calendar: HolidayLookup,
): WorkerMovement | null {
  const opening = liabilityOn(file, records, addDays(firstDay, -1), calendar);
  const closing = liabilityOn(file, records, lastDay, calendar);
  if (opening === null && closing === null) return null;
  const taken = (l: WorkerLiability | null) => (l === null ? 0 : l.enjoyedDays + l.compensatedDays);
  const accruedUnits = (closing?.accruedUnits ?? 0) - (opening?.accruedUnits ?? 0);
  const takenDays = taken(closing) - taken(opening);
  const salary = closing?.salary ?? opening!.salary;
  const openingValue = net(opening);
  const closingValue = net(closing);
  const accruedValue = valueOfUnits(salary, accruedUnits);
  const takenValue = valueOfUnits(salary, takenDays * 360);
  return {
    opening,
    closing,
    accruedUnits,
    takenDays,
    openingValue,
    accruedValue,
    takenValue,
    revaluation: closingValue - openingValue - accruedValue + takenValue,
    closingValue,
  };
}
