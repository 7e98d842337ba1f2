import type { Queryable } from '../../db/types.ts';
import type { DecodedEvent } from '../../events/codec.ts';
import type { VacationRecord } from '../../events/types.ts';
import { LATEST_FIRST, columnDefinitions, loggedEvents, timestamp, timestampSql, upsertRows, type Columns } from '../sql.ts';
import type { Projector } from '../types.ts';

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

type Row = Record<keyof typeof VACATION_COLUMNS, unknown>;

interface Approval {
  approved_at: string | null;
  approved_by: number;
}
interface Deletion {
  deleted_reason: string;
  deleted_at: string | null;
  deleted_by: number;
  replaced_by: string | null;
}

/** An interruption's new figures of the record. */
interface Shortening {
  interrupted_on: string;
  interruption_reason: string;
  end_date: string;
  business_days: number;
  calendar_days: number;
  total_value: number;
}

/** What a batch does to one code: a whole row when the batch created it, else changes to an existing row. */
export type Change = { row: Row } | { approval?: Approval; deletion?: Deletion; shortening?: Shortening };

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

/** What a batch of events does to each code: also how the change feed shows a record as of one of its events. */
export function fold(events: readonly DecodedEvent[]): Map<string, Change> {
  const changes = new Map<string, Change>();
  for (const { event } of events) {
    switch (event.type) {
      case 'VacationCreated':
        changes.set(event.data.codigoPila, { row: recordRow(event.data, false) });
        break;
      case 'VacationImported':
        changes.set(event.data.codigoPila, { row: recordRow(event.data, event.data.approved) });
        break;
      case 'VacationApproved': {
        const approval = { approved_at: timestamp(event.data.approvedAt), approved_by: event.data.approvedByUserId };
        const c = changes.get(event.data.codigoPila) ?? {};
        if ('row' in c) Object.assign(c.row, { approved: true, ...approval });
        else changes.set(event.data.codigoPila, { ...c, approval });
        break;
      }
      case 'VacationInterrupted': {
        const shortening = {
          interrupted_on: event.data.interruptedOn,
          interruption_reason: event.data.reason,
          end_date: event.data.endDate,
          business_days: event.data.businessDays,
          calendar_days: event.data.calendarDays,
          total_value: event.data.totalValue,
        };
        const c = changes.get(event.data.codigoPila) ?? {};
        if ('row' in c) Object.assign(c.row, shortening);
        else changes.set(event.data.codigoPila, { ...c, shortening });
        break;
      }
      case 'VacationDeleted': {
        const deletion = {
          deleted_reason: event.data.reason,
          deleted_at: timestamp(event.data.deletedAt),
          deleted_by: event.data.deletedByUserId,
          replaced_by: event.data.replacedBy,
        };
        const c = changes.get(event.data.codigoPila) ?? {};
        if ('row' in c) Object.assign(c.row, { status: 'deleted', ...deletion });
        else changes.set(event.data.codigoPila, { ...c, deletion });
        break;
      }
      default:
        break;
    }
  }
  return changes;
}

export const vacationsProjector: Projector = {
  name: 'vacations',
  handles: new Set(['VacationCreated', 'VacationImported', 'VacationDeleted', 'VacationApproved', 'VacationInterrupted']),
  tables: [VACATIONS_TABLE],
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
  async apply(q: Queryable, events, suffix) {
    const t = `${VACATIONS_TABLE}${suffix}`;
    const rows: Row[] = [];
    const updates: Record<string, unknown>[] = [];
    for (const [code, c] of fold(events)) {
      if ('row' in c) rows.push(c.row);
      else
        updates.push({
          codigo_pila: code,
          approve: !!c.approval,
          remove: !!c.deletion,
          shorten: !!c.shortening,
          ...c.approval,
          ...c.deletion,
          ...c.shortening,
        });
    }
    await upsertRows(q, t, VACATION_COLUMNS, rows, ['codigo_pila']);
    if (updates.length === 0) return;
    await q.query(
      `UPDATE ${t} v SET
         approved       = v.approved OR u.approve,
         approved_at    = CASE WHEN u.approve THEN u.approved_at ELSE v.approved_at END,
         approved_by    = CASE WHEN u.approve THEN u.approved_by ELSE v.approved_by END,
         status         = CASE WHEN u.remove THEN 'deleted' ELSE v.status END,
         deleted_reason = CASE WHEN u.remove THEN u.deleted_reason ELSE v.deleted_reason END,
         deleted_at     = CASE WHEN u.remove THEN u.deleted_at ELSE v.deleted_at END,
         deleted_by     = CASE WHEN u.remove THEN u.deleted_by ELSE v.deleted_by END,
         replaced_by    = CASE WHEN u.remove THEN u.replaced_by ELSE v.replaced_by END,
         end_date       = CASE WHEN u.shorten THEN u.end_date ELSE v.end_date END,
         business_days  = CASE WHEN u.shorten THEN u.business_days ELSE v.business_days END,
         calendar_days  = CASE WHEN u.shorten THEN u.calendar_days ELSE v.calendar_days END,
         total_value    = CASE WHEN u.shorten THEN u.total_value ELSE v.total_value END,
         interrupted_on = CASE WHEN u.shorten THEN u.interrupted_on ELSE v.interrupted_on END,
         interruption_reason = CASE WHEN u.shorten THEN u.interruption_reason ELSE v.interruption_reason END
       FROM jsonb_to_recordset($1::jsonb) AS u(codigo_pila text, approve boolean, remove boolean,
         approved_at timestamptz, approved_by bigint, deleted_reason text, deleted_at timestamptz,
         deleted_by bigint, replaced_by text, shorten boolean, end_date date, business_days integer,
         calendar_days integer, total_value bigint, interrupted_on date, interruption_reason text)
       WHERE v.codigo_pila = u.codigo_pila`,
      [JSON.stringify(updates)],
    );
  },
  replaySql(suffix) {
    // Each code's last record, and the last approval and the last deletion after it: what fold()
    // makes of a batch, and the UPDATE of a later one, make of them too.
    const field = (name: string, type: string) => `(e.data->>'${name}')::${type} AS ${name}`;
    const record = [
      field('recordId', 'bigint'),
      field('workerId', 'bigint'),
      field('documentNumber', 'text'),
      field('contractId', 'bigint'),
      field('companyContractId', 'bigint'),
      field('subgerenciaId', 'text'),
      field('startDate', 'date'),
      field('endDate', 'date'),
      field('businessDays', 'integer'),
      field('calendarDays', 'integer'),
      field('salary', 'bigint'),
      field('totalValue', 'bigint'),
      field('advance', 'boolean'),
      field('worksSaturday', 'boolean'),
      field('compensated', 'boolean'),
      field('socialSecurityInPayroll', 'boolean'),
      field('replaces', 'text'),
      field('continues', 'text'),
      `${timestampSql("e.data->>'createdAt'")} AS created_at`,
      `e.type = 'VacationImported' AND (e.data->>'approved')::boolean AS approved`,
    ].join(', ');
    // The last approval and the last deletion of each code in one read of the log, side by side.
    const approved = "l.type = 'VacationApproved'";
    const deleted = "l.type = 'VacationDeleted'";
    const later = `
      SELECT l.code,
             max(l.tx) FILTER (WHERE ${approved}) AS a_tx, max(l.position) FILTER (WHERE ${approved}) AS a_position,
             max(l.approved_at) FILTER (WHERE ${approved}) AS approved_at,
             max(l.approvedByUserId) FILTER (WHERE ${approved}) AS approved_by,
             max(l.tx) FILTER (WHERE ${deleted}) AS d_tx, max(l.position) FILTER (WHERE ${deleted}) AS d_position,
             max(l.reason) FILTER (WHERE ${deleted}) AS reason, max(l.deleted_at) FILTER (WHERE ${deleted}) AS deleted_at,
             max(l.deletedByUserId) FILTER (WHERE ${deleted}) AS deleted_by, max(l.replacedBy) FILTER (WHERE ${deleted}) AS replaced_by
        FROM (SELECT DISTINCT ON (e.data->>'codigoPila', e.type) e.data->>'codigoPila' AS code, e.type,
                     e.tx_id::text::bigint AS tx, e.position,
                     ${timestampSql("e.data->>'approvedAt'")} AS approved_at, ${field('approvedByUserId', 'bigint')},
                     ${field('reason', 'text')}, ${timestampSql("e.data->>'deletedAt'")} AS deleted_at,
                     ${field('deletedByUserId', 'bigint')}, ${field('replacedBy', 'text')}
                FROM ${loggedEvents(['VacationApproved', 'VacationDeleted'])}
               ORDER BY e.data->>'codigoPila', e.type, ${LATEST_FIRST}) l
       GROUP BY l.code`;
    // The figures of each code's last interruption (which only an approved live record can have),
    // when it follows the record's creation, as apply() would leave them.
    const interrupted = `
      SELECT DISTINCT ON (e.data->>'codigoPila') e.data->>'codigoPila' AS code, e.tx_id::text::bigint AS tx, e.position,
             ${field('endDate', 'date')},
             ${field('interruptedOn', 'date')}, ${field('reason', 'text')},
             ${field('businessDays', 'integer')}, ${field('calendarDays', 'integer')}, ${field('totalValue', 'bigint')}
        FROM ${loggedEvents(['VacationInterrupted'])}
       ORDER BY e.data->>'codigoPila', ${LATEST_FIRST}`;
    const after = (tx: string, position: string) => `(x.${tx}, x.${position}) > (c.tx, c.position)`;
    return [
      `INSERT INTO ${VACATIONS_TABLE}${suffix} (${Object.keys(VACATION_COLUMNS).join(', ')})
       SELECT c.recordId, c.code, c.workerId, c.documentNumber, c.contractId, c.companyContractId, c.subgerenciaId,
              c.startDate, coalesce(i.endDate, c.endDate), coalesce(i.businessDays, c.businessDays),
              coalesce(i.calendarDays, c.calendarDays), c.salary, coalesce(i.totalValue, c.totalValue), c.advance, c.worksSaturday,
              c.compensated, c.socialSecurityInPayroll,
              c.approved OR coalesce(${after('a_tx', 'a_position')}, false),
              CASE WHEN ${after('a_tx', 'a_position')} THEN x.approved_at END,
              CASE WHEN ${after('a_tx', 'a_position')} THEN x.approved_by END,
              CASE WHEN ${after('d_tx', 'd_position')} THEN 'deleted' ELSE 'live' END,
              CASE WHEN ${after('d_tx', 'd_position')} THEN x.reason END,
              CASE WHEN ${after('d_tx', 'd_position')} THEN x.deleted_at END,
              CASE WHEN ${after('d_tx', 'd_position')} THEN x.deleted_by END,
              c.replaces,
              CASE WHEN ${after('d_tx', 'd_position')} THEN x.replaced_by END,
              c.created_at, i.interruptedOn, i.reason, c.continues
         FROM (SELECT DISTINCT ON (e.data->>'codigoPila') e.data->>'codigoPila' AS code, e.tx_id::text::bigint AS tx, e.position, ${record}
                 FROM ${loggedEvents(['VacationCreated', 'VacationImported'])}
                ORDER BY e.data->>'codigoPila', ${LATEST_FIRST}) c
         LEFT JOIN (${later}) x ON x.code = c.code
         LEFT JOIN (${interrupted}) i ON i.code = c.code AND (i.tx, i.position) > (c.tx, c.position)`,
    ];
  },
};
