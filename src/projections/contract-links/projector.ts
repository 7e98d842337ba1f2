import type { DecodedEvent } from '../../events/codec.ts';
import { insertRows, updateAllBut, type Columns } from '../sql.ts';
import type { Projector } from '../types.ts';

export const CONTRACT_LINKS_TABLE = 'rm_vacation_contract_links';

const COLUMNS: Columns = {
  codigo_pila: 'text',
  worker_id: 'bigint',
  contract_id: 'bigint',
  company_contract_id: 'bigint',
};

/** Last word of the batch on each code: the link to write, or null when the record was deleted. */
function fold(events: readonly DecodedEvent[]): Map<string, Record<string, unknown> | null> {
  const links = new Map<string, Record<string, unknown> | null>();
  for (const { event } of events) {
    if (event.type === 'VacationCreated' || event.type === 'VacationImported') {
      const d = event.data;
      links.set(d.codigoPila, {
        codigo_pila: d.codigoPila,
        worker_id: d.workerId,
        contract_id: d.contractId,
        company_contract_id: d.companyContractId,
      });
    } else if (event.type === 'VacationDeleted') {
      links.set(event.data.codigoPila, null);
    }
  }
  return links;
}

/** Which contract each live record belongs to; deleting a record removes its link. */
export const contractLinksProjector: Projector = {
  name: 'contract-links',
  handles: new Set(['VacationCreated', 'VacationImported', 'VacationDeleted']),
  tables: [CONTRACT_LINKS_TABLE],
  ddl(suffix) {
    const t = `${CONTRACT_LINKS_TABLE}${suffix}`;
    return `
      CREATE TABLE IF NOT EXISTS ${t} (
        codigo_pila         text NOT NULL,
        worker_id           bigint NOT NULL,
        contract_id         bigint,
        company_contract_id bigint,
        CONSTRAINT ${t}_pkey PRIMARY KEY (codigo_pila)
      );
      CREATE INDEX IF NOT EXISTS ${t}_worker ON ${t} (worker_id);
      CREATE INDEX IF NOT EXISTS ${t}_contract ON ${t} (contract_id);
    `;
  },
  async apply(q, events, suffix) {
    const t = `${CONTRACT_LINKS_TABLE}${suffix}`;
    const removed: string[] = [];
    const rows: Record<string, unknown>[] = [];
    for (const [code, link] of fold(events)) {
      if (link) rows.push(link);
      else removed.push(code);
    }
    if (removed.length > 0) await q.query(`DELETE FROM ${t} WHERE codigo_pila = ANY($1::text[])`, [removed]);
    await insertRows(q, t, COLUMNS, rows, `ON CONFLICT (codigo_pila) DO UPDATE SET ${updateAllBut(COLUMNS, ['codigo_pila'])}`);
  },
};
