import type { DecodedEvent } from '../../events/codec.ts';
import type { VacationRecord } from '../../events/types.ts';
import { columnDefinitions, timestamp, type Columns } from '../sql.ts';
import { defineProjector, oneRow, recordCode, type Projector, type Row } from '../types.ts';

export const VACATIONS_TABLE = 'rm_vacations';

export const VACATION_COLUMNS: Columns = {
  record_id: 'bigint NOT NULL',
  codigo_pila: 'text NOT NULL',
  worker_id: 'bigint NOT NULL',
  document_number: 'text NOT NULL',
  contract_id: 'bigint',
  company_contract_id: 'bigint',
  subgerencia_id: 'text',
  start_date: 'date NOT NULL',
  end_date: 'date NOT NULL',
  business_days: 'integer NOT NULL',
  calendar_days: 'integer NOT NULL',
  salary: 'bigint NOT NULL',
  total_value: 'bigint NOT NULL',
  advance: 'boolean NOT NULL',
  works_saturday: 'boolean NOT NULL',
  compensated: 'boolean NOT NULL',
  social_security_in_payroll: 'boolean',
  approved: 'boolean NOT NULL',
  approved_at: 'timestamptz',
  approved_by: 'bigint',
  status: "text NOT NULL CHECK (status IN ('live', 'deleted'))",
  deleted_reason: 'text',
  deleted_at: 'timestamptz',
  deleted_by: 'bigint',
  replaces: 'text',
  replaced_by: 'text',
  created_at: 'timestamptz',
  interrupted_on: 'date',
  interruption_reason: 'text',
  continues: 'text',
};

function recordRow(r: VacationRecord, approved: boolean): Row {
  return {
    record_id: r.recordId,
    codigo_pila: r.codigoPila,
    worker_id: r.workerId,
    document_number: r.documentNumber,
    contract_id: r.contractId,
    company_contract_id: r.companyContractId,
    subgerencia_id: r.subgerenciaId,
    start_date: r.startDate,
    end_date: r.endDate,
    business_days: r.businessDays,
    calendar_days: r.calendarDays,
    salary: r.salary,
    total_value: r.totalValue,
    advance: r.advance,
    works_saturday: r.worksSaturday,
    compensated: r.compensated,
    social_security_in_payroll: r.socialSecurityInPayroll,
    approved,
    approved_at: null,
    approved_by: null,
    status: 'live',
    deleted_reason: null,
    deleted_at: null,
    deleted_by: null,
    replaces: r.replaces,
    replaced_by: null,
    created_at: timestamp(r.createdAt),
    interrupted_on: null,
    interruption_reason: null,
    continues: r.continues ?? null,
  };
}

/**
 * A record's row after its events, in the log's order: a creation (or import) writes it afresh,
 * an approval, an interruption or a deletion changes the row there is (none: nothing). Also how
 * the change feed shows a record as of one of its events.
 */
export function evolveRecord(row: Row | undefined, events: readonly DecodedEvent[]): Row | undefined {
  let out = row;
  for (const { event } of events) {
    switch (event.type) {
      case 'VacationCreated':
        out = recordRow(event.data, false);
        break;
      case 'VacationImported':
        out = recordRow(event.data, event.data.approved);
        break;
      case 'VacationApproved':
        if (out) out = { ...out, approved: true, approved_at: timestamp(event.data.approvedAt), approved_by: event.data.approvedByUserId };
        break;
      case 'VacationInterrupted':
        if (out)
          out = {
            ...out,
            interrupted_on: event.data.interruptedOn,
            interruption_reason: event.data.reason,
            end_date: event.data.endDate,
            business_days: event.data.businessDays,
            calendar_days: event.data.calendarDays,
            total_value: event.data.totalValue,
          };
        break;
      case 'VacationDeleted':
        if (out)
          out = {
            ...out,
            status: 'deleted',
            deleted_reason: event.data.reason,
            deleted_at: timestamp(event.data.deletedAt),
            deleted_by: event.data.deletedByUserId,
            replaced_by: event.data.replacedBy,
          };
        break;
      default:
        break;
    }
  }
  return out;
}

/** One row per record (its code), as it stands after its last event. */
export const vacationsProjector: Projector = defineProjector<Row>({
  name: 'vacations',
  label: 'Registros de vacaciones',
  readBy: 'api',
  handles: new Set(['VacationCreated', 'VacationImported', 'VacationDeleted', 'VacationApproved', 'VacationInterrupted']),
  table: VACATIONS_TABLE,
  columns: VACATION_COLUMNS,
  keyColumn: 'codigo_pila',
  unitOf: recordCode,
  evolve: evolveRecord,
  ...oneRow,
  ddl(suffix) {
    const t = `${VACATIONS_TABLE}${suffix}`;
    return `
      CREATE TABLE IF NOT EXISTS ${t} (
${columnDefinitions(VACATION_COLUMNS)},
        CONSTRAINT ${t}_pkey PRIMARY KEY (codigo_pila)
      );
      -- Tables made before interruptions existed (CST art. 188) gain their columns, empty. Asked
      -- first, so that a start finding them there takes no lock on a table others are reading.
      DO $$ BEGIN
        IF NOT EXISTS (SELECT 1 FROM information_schema.columns
                        WHERE table_schema = current_schema() AND table_name = '${t}' AND column_name = 'continues') THEN
          ALTER TABLE ${t} ADD COLUMN IF NOT EXISTS interrupted_on date, ADD COLUMN IF NOT EXISTS interruption_reason text,
            ADD COLUMN IF NOT EXISTS continues text;
        END IF;
      END $$;
      CREATE INDEX IF NOT EXISTS ${t}_worker ON ${t} (worker_id);
      CREATE INDEX IF NOT EXISTS ${t}_record ON ${t} (record_id);
      -- Records waiting for approval, soonest first (the panel's home page), in the order it lists
      -- them, so that the first fifteen are read off the index however many wait. It replaces an
      -- index of the start date alone, under which 17,500 records starting on one day were sorted.
      DROP INDEX IF EXISTS ${t}_pending;
      CREATE INDEX IF NOT EXISTS ${t}_awaiting ON ${t} (start_date, record_id) WHERE status = 'live' AND NOT approved;
    `;
  },
});
