import { Days360, consultContract, governingContract, toDecimal2, valueOfUnits } from '../../domain/index.ts';
import { accrualCheck, type AccrualProblem } from '../availability/balance.ts';
import type { CompanyContractRef } from '../../commands/types.ts';
import type { WorkerFile } from '../../commands/types.ts';
import type { Contract } from '../../reference/repository.ts';
import { periodsReport, type PeriodReport, type PeriodWarning } from './periods.ts';
import type { RegisterEntry } from './queries.ts';

/** What a clerk must heed in a settlement (src/http/law-messages.ts words each). */
export type SettlementWarning =
  | PeriodWarning
  /** A live record that ends after the leaving date: its days count as taken. */
  | { kind: 'endsAfterLeaving'; codigoPila: string; startDate: string; endDate: string }
  /** The days a settled contract's periods show pending, left out: they were paid when it was settled. */
  | { kind: 'settledContract'; contractId: number; pendingUnits: number };

/** Why no settlement can be figured (src/http/law-messages.ts words each). */
export type SettlementProblem = AccrualProblem<CompanyContractRef> | { kind: 'no_contract_on_leaving'; leavingDate: string };

export type SettlementOutcome = { ok: true; settlement: Settlement } | { ok: false; problem: SettlementProblem };

export interface Settlement {
  leavingDate: string;
  /** The contract that governs the leaving date: its salary values the days. */
  contract: Omit<Contract, 'workerId'>;
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
 * before are left out (they were paid then) and listed apart. Nothing is stored. Refused, as the
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
  const report = periodsReport(file, records, leavingDate);
  const warnings: SettlementWarning[] = [...report.warnings];
  for (const r of records) {
    if (r.endDate > leavingDate)
      warnings.push({ kind: 'endsAfterLeaving', codigoPila: r.codigoPila, startDate: r.startDate, endDate: r.endDate });
  }
  const excluded = report.periods.filter((p) => p.settled && p.pendingUnits !== 0);
  const bySettled = new Map<number, number>();
  for (const p of excluded) bySettled.set(p.contractId, (bySettled.get(p.contractId) ?? 0) + p.pendingUnits);
  for (const [contractId, units] of bySettled) warnings.push({ kind: 'settledContract', contractId, pendingUnits: units });
  // What every period has pending (records no period could hold included), less the settled ones'.
  const pendingUnits = report.totals.pendingUnits - excluded.reduce((sum, p) => sum + p.pendingUnits, 0);
  return {
    ok: true,
    settlement: {
      leavingDate,
      contract,
      pendingUnits,
      pending: toDecimal2(Days360.fromUnits(pendingUnits)),
      value: valueOfUnits(contract.baseSalary, pendingUnits),
      periods: report.periods.filter((p) => !p.settled && p.pendingUnits !== 0),
      excluded,
      warnings,
    },
  };
}
