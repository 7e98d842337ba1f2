import type { DomainEvent } from '../../events/types.ts';
import type { DecodedEvent } from '../../events/codec.ts';
import { columnDefinitions, timestamp, type Columns } from '../sql.ts';
import { defineProjector, oneRow, type Projector, type Row } from '../types.ts';

export const AUDIT_TABLE = 'rm_audit';
/** The Spanish label a deletion's history copy carries beside its action DELETE. */
export const DELETE_LABEL = 'ELIMINACION';

export type AuditAction =
  | 'CREACION'
  | 'EDICION'
  | 'IMPORTACION'
  | 'DELETE'
  | 'EDICION_INICIO'
  | 'EDICION_BAJA'
  | 'ERROR_EDICION'
  | 'APROBACION'
  | 'INTERRUPCION'
  | 'CONSULTA_DATOS'
  | 'VERIFICACION_CONTRATO';

export const AUDIT_COLUMNS: Columns = {
  event_id: 'uuid NOT NULL',
  commit_pos: 'bigint NOT NULL',
  prepare_pos: 'bigint NOT NULL',
  worker_id: 'bigint NOT NULL',
  codigo_pila: 'text',
  action: 'text NOT NULL',
  user_id: 'bigint',
  user_email: 'text',
  api_key_name: 'text',
  request_id: 'text',
  correlation_id: 'text',
  occurred_at: 'timestamptz',
  // json, kept as written: only ever read whole, never searched inside by SQL. Taking jsonb cost the
  // database a third of its work on the table's rows (a rebuild writes 450,000 of them at 50,000
  // workers), and its output had to be made again on every read.
  details: 'json NOT NULL',
};

interface Entry {
  action: AuditAction;
  codigoPila: string | null;
  details: Record<string, unknown>;
}

/**
 * A record's facts with the number of its amortization periods in place of the plan. The copy
 * the destructuring makes is the details: spread into one more object, the copy and its JSON
 * took twice as long (a rebuild makes 250,000 of them at 50,000 workers).
 */
function withoutPlan(record: { amortizations: readonly unknown[] }): Record<string, unknown> {
  const { amortizations, ...rest } = record;
  const details: Record<string, unknown> = rest;
  details.periods = amortizations.length;
  return details;
}

/**
 * What the audit trail shows of each event: the facts a reviewer asks about (dates, days, flags,
 * values, codes, the answer given) without the amortization plan or the deleted record's copy.
 */
function entry(e: DomainEvent): Entry | undefined {
  switch (e.type) {
    case 'VacationCreated':
      return { action: e.data.replaces ? 'EDICION' : 'CREACION', codigoPila: e.data.codigoPila, details: withoutPlan(e.data) };
    case 'VacationImported':
      return { action: 'IMPORTACION', codigoPila: e.data.codigoPila, details: withoutPlan(e.data) };
    case 'VacationInterrupted':
      return { action: 'INTERRUPCION', codigoPila: e.data.codigoPila, details: withoutPlan(e.data) };
    case 'VacationDeleted': {
      const { snapshot: s, ...rest } = e.data;
      const edit = e.data.reason === 'edit';
      return {
        // The history copy of a deletion names its action DELETE, with the Spanish label beside it.
        action: edit ? 'EDICION_BAJA' : 'DELETE',
        codigoPila: e.data.codigoPila,
        details: {
          ...(edit ? {} : { etiqueta: DELETE_LABEL }),
          ...rest,
          recordId: s.recordId,
          startDate: s.startDate,
          endDate: s.endDate,
          businessDays: s.businessDays,
          calendarDays: s.calendarDays,
          totalValue: s.totalValue,
          compensated: s.compensated,
          approved: s.approved,
        },
      };
    }
    case 'VacationEditStarted':
      return { action: 'EDICION_INICIO', codigoPila: e.data.codigoPila, details: e.data };
    case 'VacationEditFailed':
      return { action: 'ERROR_EDICION', codigoPila: e.data.codigoPila, details: e.data };
    case 'VacationApproved':
      return { action: 'APROBACION', codigoPila: e.data.codigoPila, details: e.data };
    case 'VacationDataConsulted':
      return { action: 'CONSULTA_DATOS', codigoPila: null, details: e.data };
    case 'ContractStatusChecked':
      return { action: 'VERIFICACION_CONTRATO', codigoPila: null, details: e.data };
    default:
      return undefined;
  }
}

const HANDLED = [
  'VacationCreated',
  'VacationImported',
  'VacationDeleted',
  'VacationApproved',
  'VacationInterrupted',
  'VacationEditStarted',
  'VacationEditFailed',
  'VacationDataConsulted',
  'ContractStatusChecked',
] as const;

/** The row of one event, or none for an event the trail does not show. */
function rowOf({ event, metadata, stored }: DecodedEvent): Row | undefined {
  const e = entry(event);
  if (!e) return undefined;
  return {
    event_id: stored.id,
    commit_pos: stored.position.commit.toString(),
    prepare_pos: stored.position.prepare.toString(),
    worker_id: (event.data as { workerId: number }).workerId,
    codigo_pila: e.codigoPila,
    action: e.action,
    user_id: metadata.userId ?? null,
    user_email: metadata.userEmail ?? null,
    api_key_name: metadata.apiKeyName ?? null,
    request_id: metadata.requestId ?? null,
    correlation_id: metadata.correlationId ?? null,
    occurred_at: timestamp(metadata.occurredAt) ?? timestamp(stored.recordedAt),
    details: e.details,
  };
}

/** Who did what to which worker and record, one row per event, never updated. */
export const auditProjector: Projector = defineProjector<Row>({
  name: 'audit',
  label: 'Auditoría',
  readBy: 'api',
  handles: new Set(HANDLED),
  table: AUDIT_TABLE,
  columns: AUDIT_COLUMNS,
  keyColumn: 'event_id',
  appendOnly: true,
  unitOf: (e) => e.stored.id,
  // A unit is one event: the same event twice in a batch is still one row.
  evolve: (unit, events) => unit ?? rowOf(events[0]!),
  ...oneRow,
  ddl(suffix) {
    const t = `${AUDIT_TABLE}${suffix}`;
    return `
      CREATE TABLE IF NOT EXISTS ${t} (
${columnDefinitions(AUDIT_COLUMNS)},
        CONSTRAINT ${t}_pkey PRIMARY KEY (event_id)
      );
      CREATE INDEX IF NOT EXISTS ${t}_worker ON ${t} (worker_id, commit_pos, prepare_pos);
      CREATE INDEX IF NOT EXISTS ${t}_code ON ${t} (codigo_pila, commit_pos, prepare_pos) WHERE codigo_pila IS NOT NULL;
    `;
  },
});
