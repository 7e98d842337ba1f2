import type { Queryable } from '../../db/types.ts';
import { selectList, toNumber, toNumberOrNull } from '../sql.ts';
import { CONTRACT_LINK_COLUMNS, CONTRACT_LINKS_TABLE } from './projector.ts';

export interface ContractLinkView {
  codigoPila: string;
  workerId: number;
  contractId: number | null;
  companyContractId: number | null;
}

const toView = (r: Record<string, unknown>): ContractLinkView => ({
  codigoPila: r.codigo_pila as string,
  workerId: toNumber(r.worker_id),
  contractId: toNumberOrNull(r.contract_id),
  companyContractId: toNumberOrNull(r.company_contract_id),
});

/** Links of a worker's live records, by code. */
export async function contractLinksOfWorker(q: Queryable, workerId: number): Promise<ContractLinkView[]> {
  const r = await q.query<Record<string, unknown>>(
    `SELECT ${selectList(CONTRACT_LINK_COLUMNS)} FROM ${CONTRACT_LINKS_TABLE}
     WHERE worker_id = $1 ORDER BY codigo_pila`,
    [workerId],
  );
  return r.rows.map(toView);
}

/** Links of the live records charged to one contract. */
