import type { VacationRecord } from '../../events/types.ts';
import { lastWord } from '../last-word.ts';
import { columnDefinitions, type Columns } from '../sql.ts';
import { defineProjector, oneRow, recordCode, type Projector, type Row } from '../types.ts';

export const CONTRACT_LINKS_TABLE = 'rm_vacation_contract_links';

export const CONTRACT_LINK_COLUMNS: Columns = {
  codigo_pila: 'text NOT NULL',
  worker_id: 'bigint NOT NULL',
  contract_id: 'bigint',
  company_contract_id: 'bigint',
};

const linkRow = (r: VacationRecord): Row => ({
  codigo_pila: r.codigoPila,
  worker_id: r.workerId,
  contract_id: r.contractId,
  company_contract_id: r.companyContractId,
});

/** Which contract each live record belongs to; deleting a record removes its link. */
export const contractLinksProjector: Projector = defineProjector<Row>({
  name: 'contract-links',
  label: 'Vínculos con contratos',
  readBy: 'none',
  handles: new Set(['VacationCreated', 'VacationImported', 'VacationInterrupted', 'VacationDeleted']),
  table: CONTRACT_LINKS_TABLE,
  columns: CONTRACT_LINK_COLUMNS,
  keyColumn: 'codigo_pila',
  unitOf: recordCode,
  evolve: (unit, events) => lastWord(unit, events, linkRow),
  ...oneRow,
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
});
