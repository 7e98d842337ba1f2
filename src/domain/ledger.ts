/**
 * The vacation ledger of one worker: the one place that turns contracts, payroll sheets and live
 * vacation records into days accrued, taken and available, the accrual periods they fall in, the
 * salary a vacation is paid at, and what a settlement on a date owes. Consult, calculate, add,
 * edit, the periods, the settlement, the register and the panel all read it, so that one worker
 * has one balance on one date. Pure: no I/O, no clock.
 */
import {
  accruingDays,
  annualDaysFor,
  countsAsWorked,
  mainContractRanges,
  sheetCounts,
  type AccrualParams,
  type SheetLeave,
  type WorkedSheet,
} from './accrual.ts';
import type { ContractDates } from './contracts.ts';
import { assertValidDate } from './dates.ts';
import { accrualPeriods, allocateAcrossContracts, type AccrualPeriod, type Allocation, type PeriodContract } from './periods.ts';

/** A worker's contract as the ledger reads it. */
export interface LedgerContract extends ContractDates {
  id: number;
  companyContractId: number | null;
  riskLevel: number | null;
  /** Whole pesos a month. */
  baseSalary: number;
  /** Paid vacations at the average of the year before (CST art. 192 §2); absent: false. */
  variableSalary?: boolean;
}

/**
 * A worker's payroll sheets as they were paid, one entry a sheet, ascending by end then start,
 * kept as lists side by side (a cache holds tens of thousands of workers, and a sheet as an
 * object of its own costs more than its cells). Nothing is judged here: which sheets count is
 * the ledger's to say.
 */
export interface Payroll {
  /** Index into the worker's contracts of the contract each sheet names; -1 when none of them. */
  contract: readonly number[];
  starts: readonly string[];
  ends: readonly string[];
  days: readonly number[];
  /** Basic compensation, whole pesos. */
  pay: readonly number[];
  /** The days of each sheet not worked, by kind; absent when no sheet of the worker has any. */
  leave?: PayrollLeave;
}

/** SheetLeave as lists side by side, one entry a sheet, as the rest of Payroll. */
export type PayrollLeave = { readonly [K in keyof SheetLeave]: readonly number[] };

export const LEAVE_KINDS = ['sick', 'paidLeave', 'vacation', 'unpaidLeave', 'suspension'] as const satisfies readonly (keyof SheetLeave)[];

/** The leave of sheet `i`, or undefined when the worker's payroll holds none. */
export function leaveAt(p: Payroll, i: number): SheetLeave | undefined {
  const l = p.leave;
  if (l === undefined) return undefined;
  return {
    sick: l.sick[i]!,
    paidLeave: l.paidLeave[i]!,
    vacation: l.vacation[i]!,
    unpaidLeave: l.unpaidLeave[i]!,
    suspension: l.suspension[i]!,
  };
}

export interface LedgerFile {
  contracts: readonly LedgerContract[];
  companyContracts: ReadonlyMap<number, { vacationParams: AccrualParams | null }>;
  payroll: Payroll;
}

/** A live vacation record as the ledger reads it. */
export interface LedgerRecord {
  key: string;
  /** Orders records that start on the same day: the numeric record id. */
  order: number;
  startDate: string;
  /** Business days taken: enjoyed, or paid in money when compensated (after any interruption). */
  days: number;
  compensated: boolean;
}

export const EMPTY_PAYROLL: Payroll = Object.freeze({ contract: [], starts: [], ends: [], days: [], pay: [] });

/** A sheet as payroll wrote it, with the contract it names. */
export interface PaidSheet {
  contractId: number;
  periodStart: string;
  periodEnd: string;
  daysWorked: number;
  basicCompensation: number;
  /** The days not worked, by kind; absent: none. */
  leave?: Partial<SheetLeave>;
}

/** The payroll lists of these sheets for a worker holding these contracts (tests, the import's own checks). */
export function payrollOf(sheets: readonly PaidSheet[], contracts: readonly Pick<LedgerContract, 'id'>[]): Payroll {
  const index = new Map(contracts.map((c, i) => [c.id, i]));
  const sorted = [...sheets].sort((a, b) =>
    a.periodEnd !== b.periodEnd
      ? a.periodEnd < b.periodEnd
        ? -1
        : 1
      : a.periodStart < b.periodStart
        ? -1
        : a.periodStart > b.periodStart
          ? 1
          : 0,
  );
  const payroll: Payroll = {
    contract: sorted.map((s) => index.get(s.contractId) ?? -1),
    starts: sorted.map((s) => s.periodStart),
    ends: sorted.map((s) => s.periodEnd),
    days: sorted.map((s) => s.daysWorked),
    pay: sorted.map((s) => s.basicCompensation),
  };
  if (!sorted.some((s) => s.leave !== undefined)) return payroll;
  const list = (k: keyof SheetLeave) => sorted.map((s) => s.leave?.[k] ?? 0);
  return { ...payroll, leave: Object.fromEntries(LEAVE_KINDS.map((k) => [k, list(k)])) as unknown as PayrollLeave };
}

/** Every sheet that names one of the worker's contracts, with that contract's id. */
export function sheetsOf(file: Pick<LedgerFile, 'contracts' | 'payroll'>): (WorkedSheet<number> & { pay: number })[] {
  const p = file.payroll;
  const sheets: (WorkedSheet<number> & { pay: number })[] = [];
  for (let i = 0; i < p.ends.length; i++) {
    const c = file.contracts[p.contract[i]!];
    if (!c) continue;
    const sheet: WorkedSheet<number> & { pay: number } = {
      contractId: c.id,
      periodStart: p.starts[i]!,
      periodEnd: p.ends[i]!,
      daysWorked: p.days[i]!,
      pay: p.pay[i]!,
    };
    const leave = leaveAt(p, i);
    if (leave) sheet.leave = leave;
    sheets.push(sheet);
  }
  return sheets;
}

/** The annual days a contract earns by its company contract's rules and its risk level; null when they do not say. */
export function annualDaysOf(
  file: Pick<LedgerFile, 'companyContracts'>,
  contract: Pick<LedgerContract, 'companyContractId' | 'riskLevel'>,
) {
  const params =
    contract.companyContractId === null ? null : (file.companyContracts.get(contract.companyContractId)?.vacationParams ?? null);
  return params ? annualDaysFor(contract.riskLevel, params) : null;
}

/** Each contract with its annual days, as the accrual periods read them. */
export function periodContracts(file: Pick<LedgerFile, 'contracts' | 'companyContracts'>): PeriodContract<number>[] {
  return file.contracts.map((c) => ({
    id: c.id,
    startDate: c.startDate,
    endDate: c.endDate,
    settled: c.settled,
    additional: c.additional,
    annualDays: annualDaysOf(file, c),
  }));
}

/**
 * The settled main contract a record was taken under, or null: one whose dates hold its start
 * while no unsettled main contract's do. Such a contract was paid off, its pending vacation
 * included, so the record is history: it is not taken from the balance.
 */
export function settledContractOf<Id>(
  contracts: readonly (Pick<ContractDates, 'startDate' | 'endDate' | 'additional'> & { id: Id; settled?: boolean })[],
  record: Pick<LedgerRecord, 'startDate'>,
): Id | null {
  let settled: Id | null = null;
  for (const c of contracts) {
    if (c.additional || c.startDate === null || c.endDate === null) continue;
    if (c.startDate > record.startDate || record.startDate > c.endDate) continue;
    if (!c.settled) return null;
    settled ??= c.id;
  }
  return settled;
}

/** What a contract adds to the balance on a date. */
export interface ContractAccrual {
  contractId: number;
  annualDays: number | null;
  /** Days worked under it by the date, as payroll counts them (diasLaborados). */
  worked: number;
  /** Days that accrue under it by the date: worked, sick leave, paid leave and paid vacation. */
  accruing: number;
  accruedUnits: number;
}

export interface LedgerBalance {
  date: string;
  /** Days worked under every main contract by the date, settled ones included (the consult's figure). */
  worked: number;
  /** Each unsettled main contract's part of the accrual. */
  contracts: ContractAccrual[];
  /** In 360ths of a day. */
  accruedUnits: number;
  takenUnits: number;
  /** Of `takenUnits`, what was paid in money. */
  compensatedUnits: number;
  availableUnits: number;
  /** The records left out as history of a settled contract, by key, with that contract's id. */
  settledRecords: Map<string, number>;
}

/**
 * The balance on `date`: each unsettled main contract accrues its own annual days over the days
 * that accrue under it (accruingDays of the payroll sheets of that contract, inside its dates, ended by the date, and any
 * `extra` sheets), less the days of every live record not taken under a settled contract.
 */
export function balanceOn(
  file: LedgerFile,
  records: readonly LedgerRecord[],
  date: string,
  extra: readonly WorkedSheet<number>[] = [],
): LedgerBalance {
  assertValidDate(date, 'reference date');
  const ranges = mainContractRanges(file.contracts);
  const byContract = new Map<number, { worked: number; accruing: number }>();
  let worked = 0;
  const count = (contractId: number, days: number, accruing: number) => {
    worked += days;
    const sum = byContract.get(contractId);
    if (sum) {
      sum.worked += days;
      sum.accruing += accruing;
    } else byContract.set(contractId, { worked: days, accruing });
  };
  // The payroll's lists walked as they are: sheetsOf would make an object of every sheet of the
  // worker's history for every balance asked.
  const p = file.payroll;
  for (let i = 0; i < p.ends.length; i++) {
    const c = file.contracts[p.contract[i]!];
    if (c && sheetCounts(c.id, p.starts[i]!, p.ends[i]!, ranges, date)) count(c.id, p.days[i]!, accruingDays(p.days[i]!, leaveAt(p, i)));
  }
  for (const s of extra) if (countsAsWorked(s, ranges, date)) count(s.contractId, s.daysWorked, accruingDays(s.daysWorked, s.leave));
  const contracts: ContractAccrual[] = [];
  let accruedUnits = 0;
  for (const c of file.contracts) {
    if (c.settled || !ranges.has(c.id)) continue;
    const annualDays = annualDaysOf(file, c);
    const days = byContract.get(c.id) ?? { worked: 0, accruing: 0 };
    const units = days.accruing * (annualDays ?? 0);
    accruedUnits += units;
    contracts.push({ contractId: c.id, annualDays, worked: days.worked, accruing: days.accruing, accruedUnits: units });
  }
  let takenUnits = 0;
  let compensatedUnits = 0;
  const settledRecords = new Map<string, number>();
  for (const r of records) {
    const settled = settledContractOf(file.contracts, r);
    if (settled !== null) {
      settledRecords.set(r.key, settled);
      continue;
    }
    takenUnits += r.days * 360;
    if (r.compensated) compensatedUnits += r.days * 360;
  }
  return { date, worked, contracts, accruedUnits, takenUnits, compensatedUnits, availableUnits: accruedUnits - takenUnits, settledRecords };
}

export interface LedgerPeriods {
  contracts: PeriodContract<number>[];
  periods: AccrualPeriod<number>[];
  allocation: Allocation;
  balance: LedgerBalance;
}

/**
 * The accrual periods on `date` and where the records' days went: each main contract's periods of
 * 360 days worked, a settled contract's shown as history with the records taken under it, every
 * other record applied to the oldest unsettled period with days pending. The pending days of the
 * unsettled periods add up to the balance on that date.
 */
export function periodsOn(
  file: LedgerFile,
  records: readonly LedgerRecord[],
  date: string,
  extra: readonly WorkedSheet<number>[] = [],
): LedgerPeriods {
  const contracts = periodContracts(file);
  const periods = accrualPeriods(contracts, [...sheetsOf(file), ...extra], date);
  const balance = balanceOn(file, records, date, extra);
  const allocation = allocateAcrossContracts(
    periods,
    records.map((r) => ({ key: r.key, startDate: r.startDate, days: r.days, compensated: r.compensated, order: r.order })),
    (r) => balance.settledRecords.get(r.key) ?? null,
  );
  return { contracts, periods, allocation, balance };
}
