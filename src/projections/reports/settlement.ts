import { Days360, consultContract, governingContract, settlementOn, toDecimal2, valueOfUnits, type Unpaid } from '../../domain/index.ts';
import type { CompanyContractRef, WorkerFile } from '../../reference/types.ts';
import { accrualCheck, type AccrualProblem } from './balance.ts';
import type { Contract } from '../../reference/repository.ts';
import { entryRecord, reportOf, type PeriodReport, type PeriodWarning } from './periods.ts';
import type { RegisterEntry } from '../register/queries.ts';

/** What a clerk must heed in a settlement (src/app/law-messages.ts words each). */
export type SettlementWarning =
  | PeriodWarning
  /** A live record that ends after the leaving date: its days count as taken. */
  | { kind: 'endsAfterLeaving'; codigoPila: string; startDate: string; endDate: string }
  /** The days a settled contract's periods show pending, left out: they were paid when it was settled. */
  | { kind: 'settledContract'; contractId: number; pendingUnits: number }
  /** Days worked after the last payroll sheet, counted from the contract (see Unpaid). */
  | ({ kind: 'projected'; contractId: number } & Unpaid);

export type { Unpaid };

/** Why no settlement can be figured (src/app/law-messages.ts words each). */
export type SettlementProblem = AccrualProblem<CompanyContractRef> | { kind: 'no_contract_on_leaving'; leavingDate: string };

export type SettlementOutcome = { ok: true; settlement: Settlement } | { ok: false; problem: SettlementProblem };

export interface Settlement {
  leavingDate: string;
  /** The contract that governs the leaving date: its salary values the days. */
  contract: Omit<Contract, 'workerId'>;
  /** The monthly salary the days are valued at: the base salary, or a variable salary's average of the year before. */
  salary: number;
  /** The days since its last payroll sheet, counted in the periods, the days and the value. */
  unpaid: Unpaid;
  /** Days pending on the leaving date (accrued, the last period's proportional part included, less taken). */
  pendingUnits: number;
  pending: number;
  value: number;
  /** The periods the pending days come from (and the one that owes days taken in advance). */
  periods: PeriodReport[];
  /** The periods of settled contracts that show days pending (or owed), left out of what is owed. */
  excluded: PeriodReport[];
  warnings: SettlementWarning[];
}

/**
 * What a worker leaving on `leavingDate` would be owed for vacations (CST art. 189 §2): the accrual
 * periods on that date, the proportional part of the last one included, less every live record,
 * valued at the salary of the contract that governs that date; the periods of contracts settled
 * before are left out (they were paid then) and listed apart. The days worked after the governing
 * contract's last payroll sheet are counted from the contract, as payroll will count them, and
 * named. Payroll alone counts elsewhere (the periods, the consult). Nothing is stored. Refused, as the
 * consult refuses, when no contract governs the leaving date or the one that does cannot accrue
 * days (checked in the consult's order; a contract without dates governs no date, so a worker whose
 * contract lacks them hears that).
 */
export function settlementPreview(
  file: Pick<WorkerFile, 'contracts' | 'companyContracts' | 'payroll'>,
  records: readonly RegisterEntry[],
  leavingDate: string,
): SettlementOutcome {
  const contract = governingContract(file.contracts, leavingDate);
  if (!contract) {
    const held = consultContract(file.contracts, leavingDate);
    const undated = held !== null && (held.startDate === null || held.endDate === null);
    return { ok: false, problem: undated ? { kind: 'no_dates' } : { kind: 'no_contract_on_leaving', leavingDate } };
  }
  const checked = accrualCheck(file, contract);
  if (!checked.ok) return { ok: false, problem: checked.problem };
  const ledger = settlementOn(file, records.map(entryRecord), contract, leavingDate);
  const { unpaid } = ledger;
  const report = reportOf(file, records, ledger.periods);
  const warnings: SettlementWarning[] = [...report.warnings];
  if (unpaid.days > 0) warnings.push({ kind: 'projected', contractId: contract.id, ...unpaid });
  for (const r of records) {
    if (r.endDate > leavingDate)
      warnings.push({ kind: 'endsAfterLeaving', codigoPila: r.codigoPila, startDate: r.startDate, endDate: r.endDate });
  }
  const excluded = report.periods.filter((p) => p.settled && p.pendingUnits !== 0);
  const bySettled = new Map<number, number>();
  for (const p of excluded) bySettled.set(p.contractId, (bySettled.get(p.contractId) ?? 0) + p.pendingUnits);
  // Days a settled contract gave in advance were deducted when it was settled: only days owed are named.
  for (const [contractId, units] of bySettled) if (units > 0) warnings.push({ kind: 'settledContract', contractId, pendingUnits: units });
  return {
    ok: true,
    settlement: {
      leavingDate,
      contract,
      salary: ledger.salary,
      unpaid,
      pendingUnits: ledger.pendingUnits,
      pending: toDecimal2(Days360.fromUnits(ledger.pendingUnits)),
      value: valueOfUnits(ledger.salary, ledger.pendingUnits),
      periods: report.periods.filter((p) => !p.settled && p.pendingUnits !== 0),
      excluded,
      warnings,
    },
  };
}
