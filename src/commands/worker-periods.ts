import {
  accrualPeriods,
  allocateAcrossContracts,
  annualDaysFor,
  companyContractOf,
  periodsOverHalfCompensated,
  sheetsFromSummary,
  type AccrualPeriod,
  type Allocation,
  type PeriodContract,
  type TakenRecord,
  type WorkedSheet,
} from '../domain/index.ts';
import type { ContractRef, WorkerFile } from './types.ts';

/** Each contract with the annual days its company contract's rules and its risk level give it. */
export function periodContractsOf(file: Pick<WorkerFile, 'contracts' | 'companyContracts'>): PeriodContract<number>[] {
  return file.contracts.map((c: ContractRef) => {
    const params = companyContractOf(file, c)?.vacationParams ?? null;
    return { ...c, annualDays: params ? annualDaysFor(c.riskLevel, params) : null };
  });
}

/** A vacation as the allocation to periods reads it. */
export interface TakenVacation {
  codigoPila: string;
  recordId: number;
  startDate: string;
  businessDays: number;
  compensated: boolean;
}

export const takenRecord = (v: TakenVacation): TakenRecord => ({
  key: v.codigoPila,
  startDate: v.startDate,
  days: v.businessDays,
  compensated: v.compensated,
  order: v.recordId,
});

export interface WorkerPeriods {
  contracts: PeriodContract<number>[];
  periods: AccrualPeriod<number>[];
  allocation: Allocation;
}

/**
 * A worker's periods as of `asOf` and how the given live vacations are spread over them. `extra`
 * sheets count beside the payroll's (the settlement's days worked after the last sheet).
 */
export function workerPeriods(
  file: Pick<WorkerFile, 'contracts' | 'companyContracts' | 'payroll'>,
  vacations: readonly TakenVacation[],
  asOf: string,
  extra: readonly WorkedSheet<number>[] = [],
): WorkerPeriods {
  const contracts = periodContractsOf(file);
  const periods = accrualPeriods(contracts, [...sheetsFromSummary(file.contracts, file.payroll), ...extra], asOf);
  return { contracts, periods, allocation: allocateAcrossContracts(periods, vacations.map(takenRecord), contracts) };
}

/** A period that a compensated request would put over half its days paid in money. */
export interface OverHalf {
  period: AccrualPeriod<number>;
  compensatedUnits: number;
}

const REQUEST_KEY = '\u0000request';

/**
 * The periods over the limit of half their days paid in money once the request's days are applied
 * with the others (by start date, oldest pending period first), among those the request adds days
 * in money to.
 */
export function compensationOverHalf(
  file: Pick<WorkerFile, 'contracts' | 'companyContracts' | 'payroll'>,
  others: readonly TakenVacation[],
  request: { startDate: string; days: number },
): OverHalf[] {
  const { contracts, periods, allocation: before } = workerPeriods(file, others, request.startDate);
  const asked: TakenRecord = {
    key: REQUEST_KEY,
    startDate: request.startDate,
    days: request.days,
    compensated: true,
    order: Number.MAX_SAFE_INTEGER,
  };
  const after = allocateAcrossContracts(periods, [...others.map(takenRecord), asked], contracts);
  return periodsOverHalfCompensated(periods, before, after).map((i) => ({
    period: periods[i]!,
    compensatedUnits: after.periods[i]!.compensatedUnits,
  }));
}
