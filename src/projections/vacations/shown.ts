import { settledContractOf, type LedgerContract } from '../../domain/index.ts';
import type { VacationView } from './queries.ts';

/** A record as the interface shows it: the read model's view, and whether it was taken under a settled contract. */
export type ShownVacation = VacationView & { underSettledContract: boolean };

/** The contracts of the worker with this document number (none when unknown). */
export type ContractsOf = (documentNumber: string) => Promise<readonly LedgerContract[]>;

/**
 * The records as the interface shows them (the read endpoints, the change feed, webhooks): each
 * marked when it was taken under a settled contract, history the balance does not take (the
 * ledger's rule, src/domain/ledger.ts), so that nobody counts it twice. Each worker's contracts
 * are asked once.
 */
export async function shownVacations(views: readonly VacationView[], contractsOf: ContractsOf): Promise<ShownVacation[]> {
  const held = new Map<string, readonly LedgerContract[]>();
  for (const v of views) if (!held.has(v.documentNumber)) held.set(v.documentNumber, await contractsOf(v.documentNumber));
  return views.map((v) => ({ ...v, underSettledContract: settledContractOf(held.get(v.documentNumber) ?? [], v) !== null }));
}
