import { Days360, annualDaysFor, balanceOn, companyContractOf, consultContract, ibcOn, type LedgerRecord } from '../../domain/index.ts';
import type { CompanyContract, Contract, VacationParams } from '../../reference/repository.ts';
import type { WorkerFileRow } from '../../reference/worker-files.ts';

/**
 * The consult's figures: a worker's vacation balance today, as the ledger (src/domain/ledger.ts)
 * gives it from the per-worker reference row (contracts and payroll) and the worker's live records.
 * The consult route and the panel's worker page both read it.
 */

/** Why a contract a worker holds cannot accrue days (src/app/rule-messages.ts has the consult's words for each). */
export type AccrualProblem<C = CompanyContract> =
  { kind: 'no_dates' } | { kind: 'no_company_contract' } | { kind: 'no_risk_level' } | { kind: 'no_params'; company: C };

/** Why a worker's vacation days cannot be figured: no contract, or one that cannot accrue. */
export type BalanceProblem = { kind: 'no_contracts' } | AccrualProblem;

export interface Balance {
  contract: Contract;
  company: CompanyContract;
  params: VacationParams;
  annualDays: number;
  worked: number;
  ibc: number;
  accrued: Days360;
  taken: Days360;
  available: Days360;
}

/**
 * The checks a consult makes on the contract it reads, in order: dates, a company contract that
 * exists, a risk level, vacation parameters. The periods and the settlement make the same checks
 * on the contract that governs them.
 */
export function accrualCheck<C extends Pick<CompanyContract, 'id' | 'vacationParams'>>(
  file: { companyContracts: ReadonlyMap<number, C> },
  contract: Pick<Contract, 'startDate' | 'endDate' | 'companyContractId' | 'riskLevel'>,
): { ok: true; company: C; params: VacationParams } | { ok: false; problem: AccrualProblem<C> } {
  const fail = (problem: AccrualProblem<C>) => ({ ok: false as const, problem });
  if (!contract.startDate || !contract.endDate) return fail({ kind: 'no_dates' });
  const company = companyContractOf(file, contract);
  if (!company) return fail({ kind: 'no_company_contract' });
  if (contract.riskLevel === null) return fail({ kind: 'no_risk_level' });
  const params = company.vacationParams;
  if (!params) return fail({ kind: 'no_params', company });
  return { ok: true, company, params };
}

/**
 * The contract a consult reads today and the checks it makes on it, in order; the figures come
 * only once they pass, from the ledger on today's date. `records` gives the worker's live records.
 */
export function vacationBalance(
  file: WorkerFileRow | null,
  today: string,
  records: () => Promise<readonly LedgerRecord[]>,
): Promise<{ ok: true; balance: Balance } | { ok: false; contract: Contract | null; problem: BalanceProblem }> {
  const contract = consultContract(file?.contracts ?? [], today);
  const fail = (problem: BalanceProblem) => Promise.resolve({ ok: false as const, contract, problem });
  if (!contract) return fail({ kind: 'no_contracts' });
  const checked = accrualCheck(file!, contract);
  if (!checked.ok) return fail(checked.problem);
  const { company, params } = checked;
  return (async () => {
    const ledger = balanceOn(file!, await records(), today);
    return {
      ok: true as const,
      balance: {
        contract,
        company,
        params,
        annualDays: annualDaysFor(contract.riskLevel, params)!,
        worked: ledger.worked,
        ibc: ibcOn(file!, today),
        accrued: Days360.fromUnits(ledger.accruedUnits),
        taken: Days360.fromUnits(ledger.takenUnits),
        available: Days360.fromUnits(ledger.availableUnits),
      },
    };
  })();
}
