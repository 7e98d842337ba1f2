import {
  CONTINUOUS_DAYS,
  Days360,
  addDays,
  consultContract,
  continuousDaysDue,
  enforceableFrom,
  periodsOn,
  prescribesOn,
  toDecimal2,
  type AccrualPeriod,
  type LedgerRecord,
  type LedgerPeriods,
  type WorkedSheet,
} from '../../domain/index.ts';
import { accrualCheck, type AccrualProblem } from './balance.ts';
import type { CompanyContractRef } from '../../reference/types.ts';
import type { WorkerFile } from '../../reference/types.ts';
import type { RegisterEntry } from '../register/queries.ts';

/** A pending period this close to prescribing is named in the warnings. */
export const PRESCRIPTION_NOTICE_DAYS = 180;
/** Periods with days pending a worker may hold (CST art. 190), and technical or trusted staff. */
export const ACCUMULATION_LIMIT = 2;
export const ACCUMULATION_LIMIT_EXTENDED = 4;

/** A ledger period as the report shows it: the ledger's own fields (src/domain/periods.ts), and what was taken of it. */
export interface PeriodReport extends Pick<
  AccrualPeriod<number>,
  'contractId' | 'number' | 'from' | 'earnedOn' | 'daysWorked' | 'deducted' | 'annualDays' | 'settled'
> {
  /** Not earned, and its contract earns nothing more on the cut-off date: its proportional part is final. */
  closed: boolean;
  /** Days, to two decimals. */
  accrued: number;
  enjoyed: number;
  compensated: number;
  pending: number;
  enforceableFrom: string | null;
  prescribesOn: string | null;
  prescribed: boolean;
  /** Where the days of each record went. */
  records: { codigoPila: string; days: number }[];
  /** Exact pending balance in 360ths, for sums and values. */
  pendingUnits: number;
  /** Its year for enjoying passed without one enjoyed record of 6 business days charged to it (CST art. 190). */
  sixDays: boolean;
}

/** A period as a warning names it. */
export interface PeriodRef {
  contractId: number;
  number: number;
}

/** What an employer must heed about a worker's periods (src/app/law-messages.ts words each). */
export type PeriodWarning =
  /** More earned periods with days pending than CST art. 190 lets a worker accumulate. */
  | { kind: 'accumulation'; owed: number; limit: number; extended: boolean }
  /** A period's pending days prescribe within PRESCRIPTION_NOTICE_DAYS (CST art. 488). */
  | { kind: 'aboutToPrescribe'; period: PeriodRef; pendingUnits: number; on: string }
  | { kind: 'prescribed'; period: PeriodRef; pendingUnits: number; on: string }
  /** A year has passed since the period became enforceable without one enjoyed record of 6 business days or more charged to it (CST art. 190). */
  | { kind: 'sixDays'; period: PeriodRef; enforceableFrom: string; due: string };

export interface PeriodsReport {
  asOf: string;
  periods: PeriodReport[];
  /** Records taken under a settled contract (history: not taken from the balance), with that contract's id. */
  settledRecords: Map<string, number>;
  totals: { accrued: number; enjoyed: number; compensated: number; pending: number; pendingUnits: number };
  warnings: PeriodWarning[];
}

/** How many periods with days pending a worker may hold on `asOf` (CST art. 190): four for technical or trusted staff. */
export function accumulationLimit(file: Pick<WorkerFile, 'contracts'>, asOf: string): { extended: boolean; limit: number } {
  const extended = file.contracts.some(
    (c) =>
      !c.additional && c.technicalOrTrusted && c.startDate !== null && c.startDate <= asOf && (c.endDate === null || c.endDate >= asOf),
  );
  return { extended, limit: extended ? ACCUMULATION_LIMIT_EXTENDED : ACCUMULATION_LIMIT };
}

/** 360ths of a day as days with two decimals, as every answer shows them. */
export const days = (units: number) => toDecimal2(Days360.fromUnits(units));

/**
 * Why a worker's periods cannot be figured on `asOf`: the contract a consult would read (the
 * worker's unsettled contract that ranks first) fails one of the consult's checks. Null when it
 * passes them, and when every contract is settled or there is none (the periods are then history).
 */
export function periodsProblem(
  file: Pick<WorkerFile, 'contracts' | 'companyContracts'>,
  asOf: string,
): AccrualProblem<CompanyContractRef> | null {
  const contract = consultContract(file.contracts, asOf);
  if (!contract) return null;
  const checked = accrualCheck(file, contract);
  return checked.ok ? null : checked.problem;
}

/** A register entry as the ledger reads it. */
export const entryRecord = (r: RegisterEntry): LedgerRecord => ({
  key: r.codigoPila,
  order: r.recordId,
  startDate: r.startDate,
  days: r.businessDays,
  compensated: r.compensated,
});

/**
 * A worker's accrual periods on `asOf` as the ledger gives them (src/domain/ledger.ts): each main
 * contract's periods of 360 days worked (payroll ended by `asOf`, and any `extra` sheets), the live
 * records' days applied to the oldest pending period first, the dates each period becomes
 * enforceable and prescribes, and the warnings an employer must heed. The totals are those of the
 * unsettled contracts: their pending days are the worker's balance on `asOf`.
 */
export function periodsReport(
  file: Pick<WorkerFile, 'contracts' | 'companyContracts' | 'payroll'>,
  records: readonly RegisterEntry[],
  asOf: string,
  extra: readonly WorkedSheet<number>[] = [],
): PeriodsReport {
  return reportOf(file, records, periodsOn(file, records.map(entryRecord), asOf, extra));
}

/** The report of periods the ledger figured (periodsOn), for these records. */
export function reportOf(file: Pick<WorkerFile, 'contracts'>, records: readonly RegisterEntry[], ledger: LedgerPeriods): PeriodsReport {
  const { periods, allocation, balance } = ledger;
  const asOf = balance.date;
  const reports: PeriodReport[] = periods.map((p, i) => {
    const use = allocation.periods[i]!;
    const prescribes = p.earnedOn ? prescribesOn(p.earnedOn) : null;
    return {
      contractId: p.contractId,
      number: p.number,
      from: p.from,
      earnedOn: p.earnedOn,
      daysWorked: p.daysWorked,
      deducted: p.deducted,
      annualDays: p.annualDays,
      settled: p.settled,
      closed: p.earnedOn === null && p.closed,
      accrued: days(p.accruedUnits),
      enjoyed: days(use.enjoyedUnits),
      compensated: days(use.compensatedUnits),
      pending: days(use.pendingUnits),
      enforceableFrom: p.earnedOn ? enforceableFrom(p.earnedOn) : null,
      prescribesOn: prescribes,
      prescribed: prescribes !== null && prescribes <= asOf && use.pendingUnits > 0,
      records: [],
      pendingUnits: use.pendingUnits,
      sixDays: false,
    };
  });
  for (const r of records) {
    for (const part of allocation.byRecord.get(r.codigoPila) ?? []) {
      reports[part.period]!.records.push({ codigoPila: r.codigoPila, days: days(part.units) });
    }
  }
  // The totals are the balance's: the unsettled contracts' periods (a settled one's are history).
  const open = allocation.periods.filter((_, i) => !periods[i]!.settled);
  const sum = (pick: (u: (typeof allocation.periods)[number]) => number) => open.reduce((s, u) => s + pick(u), 0);
  const warnings = warningsOf(file, reports, asOf, new Map(records.map((r) => [r.codigoPila, r])));
  for (const w of warnings) {
    if (w.kind === 'sixDays') reports.find((p) => p.contractId === w.period.contractId && p.number === w.period.number)!.sixDays = true;
  }
  return {
    asOf,
    periods: reports,
    settledRecords: balance.settledRecords,
    totals: {
      accrued: days(balance.accruedUnits),
      enjoyed: days(sum((u) => u.enjoyedUnits)),
      compensated: days(sum((u) => u.compensatedUnits)),
      pending: days(balance.availableUnits),
      pendingUnits: balance.availableUnits,
    },
    warnings,
  };
}

function warningsOf(
  file: Pick<WorkerFile, 'contracts'>,
  reports: readonly PeriodReport[],
  asOf: string,
  records: ReadonlyMap<string, RegisterEntry>,
): PeriodWarning[] {
  const warnings: PeriodWarning[] = [];
  // A settled contract's periods were paid off when it was settled: nothing of them is owed.
  const owed = reports.filter((p) => p.earnedOn !== null && p.pendingUnits > 0 && !p.settled);
  const { extended, limit } = accumulationLimit(file, asOf);
  if (owed.length > limit) warnings.push({ kind: 'accumulation', owed: owed.length, limit, extended });
  const notice = addDays(asOf, PRESCRIPTION_NOTICE_DAYS);
  for (const p of owed) {
    const period = { contractId: p.contractId, number: p.number };
    const on = p.prescribesOn!;
    if (p.prescribed) warnings.push({ kind: 'prescribed', period, pendingUnits: p.pendingUnits, on });
    else if (on <= notice) warnings.push({ kind: 'aboutToPrescribe', period, pendingUnits: p.pendingUnits, on });
  }
  for (const p of reports) {
    if (p.settled || p.enforceableFrom === null) continue;
    const due = continuousDaysDue(p.enforceableFrom);
    if (due >= asOf) continue;
    const stretch = p.records.some((part) => {
      const r = records.get(part.codigoPila);
      return r !== undefined && !r.compensated && r.businessDays >= CONTINUOUS_DAYS;
    });
    if (!stretch)
      warnings.push({ kind: 'sixDays', period: { contractId: p.contractId, number: p.number }, enforceableFrom: p.enforceableFrom, due });
  }
  return warnings;
}
