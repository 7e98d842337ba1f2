/** Which of a worker's contracts applies on a date. */
import { assertValidDate } from './dates.ts';

/**
 * What these rules read of a contract: its dates, whether it is settled, whether it is additional.
 * The contract itself is the reference data's (src/reference/repository.ts), which has these.
 */
export interface ContractDates {
  startDate: string | null;
  endDate: string | null;
  settled: boolean;
  /** An additional contract runs alongside the main one and never governs while a main one does. */
  additional: boolean;
}

export type ContractValidity = Pick<ContractDates, 'startDate' | 'endDate' | 'settled'>;
export type RankedContract = ContractDates;

export type ContractStatus<C> = { kind: 'none' } | { kind: 'inactive' } | { kind: 'active'; contract: C };

/** A contract without both dates cannot be placed in time, so it is never valid. */
export function isValidOn(contract: ContractValidity, date: string): boolean {
  assertValidDate(date);
  const { startDate, endDate, settled } = contract;
  if (settled || startDate === null || endDate === null) return false;
  return startDate <= date && date <= endDate;
}

/**
 * Main contracts before additional ones, then latest start first with a missing start last.
 * The sort is stable, so equal contracts keep the caller's order.
 */
function byPrecedence(a: RankedContract, b: RankedContract): number {
  if (a.additional !== b.additional) return a.additional ? 1 : -1;
  if (a.startDate === b.startDate) return 0;
  if (a.startDate === null) return 1;
  if (b.startDate === null) return -1;
  return a.startDate > b.startDate ? -1 : 1;
}

/** The contract valid on `date` that governs it, preferring a main contract; null if none. */
export function governingContract<C extends RankedContract>(contracts: readonly C[], date: string): C | null {
  const valid = contracts.filter((c) => isValidOn(c, date));
  return valid.sort(byPrecedence)[0] ?? null;
}

/** The contract that started last, a missing start counting as earliest; the first of equals. Null without contracts. */
export function latestContract<C extends Pick<ContractDates, 'startDate'>>(contracts: readonly C[]): C | null {
  let latest: C | null = null;
  for (const c of contracts) if (!latest || (c.startDate ?? '') > (latest.startDate ?? '')) latest = c;
  return latest;
}

/**
 * The contract a worker stands under on a date: the one governing it, else the one that started
 * last (between contracts, or after the last one ended). Its subgerencia is the worker's on that
 * date: a contract that gave way to a later one says nothing of where the worker is.
 */
export function standingContract<C extends RankedContract>(contracts: readonly C[], date: string): C | null {
  return governingContract(contracts, date) ?? latestContract(contracts);
}

export function contractStatus<C extends RankedContract>(contracts: readonly C[], today: string): ContractStatus<C> {
  if (contracts.length === 0) return { kind: 'none' };
  const contract = governingContract(contracts, today);
  return contract === null ? { kind: 'inactive' } : { kind: 'active', contract };
}

/**
 * The contract a vacation consultation reports: any unsettled one may still owe vacation even if
 * it is not valid `today`, so only the ranking picks it. `today` is accepted so every contract
 * query takes the same arguments; the rule does not depend on it.
 */
export function consultContract<C extends RankedContract>(contracts: readonly C[], today: string): C | null {
  assertValidDate(today);
  const unsettled = contracts.filter((c) => !c.settled);
  return unsettled.sort(byPrecedence)[0] ?? null;
}

/** The company contract whose rules a worker's contract follows, when it names one the worker's file holds. */
export function companyContractOf<C>(
  file: { companyContracts: ReadonlyMap<number, C> },
  contract: { companyContractId: number | null },
): C | undefined {
  return contract.companyContractId === null ? undefined : file.companyContracts.get(contract.companyContractId);
}
