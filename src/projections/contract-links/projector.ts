import type { VacationRecord } from '../../events/types.ts';
import { lastWordPerCode } from '../last-word.ts';
import { LATEST_FIRST, columnDefinitions, loggedEvents, upsertRows, type Columns } from '../sql.ts';
import type { Projector } from '../types.ts';

export const CONTRACT_LINKS_TABLE = 'rm_vacation_contract_links';

export const CONTRACT_LINK_COLUMNS: Columns = {
  codigo_pila: 'text NOT NULL',
  worker_id: 'bigint NOT NULL',
  contract_id: 'bigint',
  company_contract_id: 'bigint',
};

const linkRow = (r: VacationRecord) => ({
  codigo_pila: r.codigoPila,
  worker_id: r.workerId,
  contract_id: r.contractId,
  company_contract_id: r.companyContractId,
});

/** Which contract each live record belongs to; deleting a record removes its link. */
export const contractLinksProjector: Projector = {
  name: 'contract-links',
  handles: new Set(['VacationCreated', 'VacationImported', 'VacationInterrupted', 'VacationDeleted']),
  tables: [CONTRACT_LINKS_TABLE],
  ddl(suffix) {
    const t = `${CONTRACT_LINKS_TABLE}${suffix}`;
    return `
      CREATE TABLE IF NOT EXISTS ${t} (
${columnDefinitions(CONTRACT_LINK_COLUMNS)},
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
    for (const [code, link] of lastWordPerCode(events, linkRow, () => null)) {
      if (link) rows.push(link);
      else removed.push(code);
    }
    if (removed.length > 0) await q.query(`DELETE FROM ${t} WHERE codigo_pila = ANY($1::text[])`, [removed]);
    await upsertRows(q, t, CONTRACT_LINK_COLUMNS, rows, ['codigo_pila']);
  },
  replaySql(suffix) {
    // The last word on each code: its record's link, or none when that is a deletion.
    return [
      `INSERT INTO ${CONTRACT_LINKS_TABLE}${suffix} (codigo_pila, worker_id, contract_id, company_contract_id)
       SELECT w.codigo_pila, w.worker_id, w.contract_id, w.company_contract_id
         FROM (SELECT DISTINCT ON (e.data->>'codigoPila') e.type, e.data->>'codigoPila' AS codigo_pila,
                      (e.data->>'workerId')::bigint AS worker_id, (e.data->>'contractId')::bigint AS contract_id,
                      (e.data->>'companyContractId')::bigint AS company_contract_id
                 FROM ${loggedEvents(['VacationCreated', 'VacationImported', 'VacationInterrupted', 'VacationDeleted'])}
                ORDER BY e.data->>'codigoPila', ${LATEST_FIRST}) w
        WHERE w.type <> 'VacationDeleted'`,
    ];
  },
};
