import { Days360, governingContract, toDecimal2, valueOfUnits } from '../../domain/index.ts';
import type { WorkerFile } from '../../commands/types.ts';
import type { Contract } from '../../reference/repository.ts';
import { periodsReport, type PeriodReport, type PeriodWarning } from './periods.ts';
import type { RegisterEntry } from './queries.ts';

/** What a clerk must heed in a settlement (src/http/law-messages.ts words each). */
export type SettlementWarning =
  | PeriodWarning
  /** A live record that ends after the leaving date: its days count as taken. */
  | { kind: 'endsAfterLeaving'; codigoPila: string; startDate: string; endDate: string };

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
  warnings: SettlementWarning[];
}

/**
 * What a worker leaving on `leavingDate` would be owed for vacations (CST art. 189 §2): the accrual
 * periods on that date, the proportional part of the last one included, less every live record,
 * valued at the salary of the contract that governs that date. Nothing is stored. Null when no
 * contract governs the leaving date.
 */
export function settlementPreview(
  file: Pick<WorkerFile, 'contracts' | 'companyContracts' | 'payroll'>,
  records: readonly RegisterEntry[],
  leavingDate: string,
): Settlement | null {
  const contract = governingContract(file.contracts, leavingDate);
  if (!contract) return null;
  const report = periodsReport(file, records, leavingDate);
  const warnings: SettlementWarning[] = [...report.warnings];
  for (const r of records) {
    if (r.endDate > leavingDate)
      warnings.push({ kind: 'endsAfterLeaving', codigoPila: r.codigoPila, startDate: r.startDate, endDate: r.endDate });
  }
  const pendingUnits = report.totals.pendingUnits;
  return {
    leavingDate,
    contract,
    pendingUnits,
    pending: toDecimal2(Days360.fromUnits(pendingUnits)),
    value: valueOfUnits(contract.baseSalary, pendingUnits),
    periods: report.periods.filter((p) => p.pendingUnits !== 0),
    warnings,
  };
}
