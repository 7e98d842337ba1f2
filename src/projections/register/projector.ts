import type { Queryable } from '../../db/types.ts';
import type { DecodedEvent } from '../../events/codec.ts';
import type { EventMetadata, VacationRecord } from '../../events/types.ts';
import { todayInBogota } from '../../domain/index.ts';
import { columnDefinitions, selectList, upsertRows, type Columns } from '../sql.ts';
import type { Projector } from '../types.ts';

/**
 * The vacation register (libro de vacaciones): every version of every record, each with the
 * business days on which it was the record's state (from `recorded_on`, until `superseded_on`,
 * exclusive; null while current). A record's version changes when it is approved or interrupted,
 * and ends without a successor when it is deleted, so the register as it stood on any day is
 * the versions of that day, and the live records of a worker are the current versions.
 */
export const REGISTER_TABLE = 'rm_register';

export const REGISTER_COLUMNS: Columns = {
  codigo_pila: 'text NOT NULL',
  revision: 'bigint NOT NULL',
  worker_id: 'bigint NOT NULL',
  record_id: 'bigint NOT NULL',
  contract_id: 'bigint',
  subgerencia_id: 'text',
  start_date: 'date NOT NULL',
  end_date: 'date NOT NULL',
  business_days: 'integer NOT NULL',
  calendar_days: 'integer NOT NULL',
  salary: 'bigint NOT NULL',
  total_value: 'bigint NOT NULL',
  compensated: 'boolean NOT NULL',
  advance: 'boolean NOT NULL',
  approved: 'boolean NOT NULL',
  interrupted_on: 'date',
  interruption_reason: 'text',
  continues: 'text',
  recorded_on: 'date NOT NULL',
  superseded_on: 'date',
};

type Row = Record<keyof typeof REGISTER_COLUMNS, unknown>;

/** The business day an event happened on: the service's date when it was written. */
function businessDateOf(e: DecodedEvent): string {
  const m = e.metadata as Partial<EventMetadata>;
  if (m.businessDate) return m.businessDate;
  const t = Date.parse(m.occurredAt ?? e.stored.recordedAt);
  return todayInBogota(Number.isNaN(t) ? new Date(e.stored.recordedAt) : new Date(t));
}

function versionOf(r: VacationRecord, approved: boolean, revision: number, on: string): Row {
  return {
    codigo_pila: r.codigoPila,
    revision,
    worker_id: r.workerId,
    record_id: r.recordId,
    contract_id: r.contractId,
    subgerencia_id: r.subgerenciaId,
    start_date: r.startDate,
    end_date: r.endDate,
    business_days: r.businessDays,
    calendar_days: r.calendarDays,
    salary: r.salary,
    total_value: r.totalValue,
    compensated: r.compensated,
    advance: r.advance,
    approved,
    interrupted_on: null,
    interruption_reason: null,
    continues: r.continues ?? null,
    recorded_on: on,
    superseded_on: null,
  };
}

/**
 * The latest version of each code written before the given revision: what an approval, an
 * interruption or a deletion changes. Read by revision rather than by "current", so that a batch
 * applied again finds the same predecessors and writes the same rows.
 */
async function predecessors(q: Queryable, table: string, firsts: Map<string, number>): Promise<Map<string, Row>> {
  if (firsts.size === 0) return new Map();
  const r = await q.query<Row>(
    `SELECT DISTINCT ON (t.codigo_pila) ${selectList(REGISTER_COLUMNS, 't')}
       FROM ${table} t JOIN unnest($1::text[], $2::bigint[]) AS f(code, rev) ON t.codigo_pila = f.code AND t.revision < f.rev
      ORDER BY t.codigo_pila, t.revision DESC`,
    [[...firsts.keys()], [...firsts.values()]],
  );
  return new Map(r.rows.map((row) => [row.codigo_pila as string, { ...row, revision: Number(row.revision) }]));
}

export const registerProjector: Projector = {
  name: 'register',
  handles: new Set(['VacationCreated', 'VacationImported', 'VacationApproved', 'VacationInterrupted', 'VacationDeleted']),
  tables: [REGISTER_TABLE],
  ddl(suffix) {
    const t = `${REGISTER_TABLE}${suffix}`;
    return `
      CREATE TABLE IF NOT EXISTS ${t} (
${columnDefinitions(REGISTER_COLUMNS)},
        CONSTRAINT ${t}_pkey PRIMARY KEY (codigo_pila, revision)
      );
      CREATE INDEX IF NOT EXISTS ${t}_current ON ${t} (worker_id) WHERE superseded_on IS NULL;
      CREATE INDEX IF NOT EXISTS ${t}_worker ON ${t} (worker_id, start_date);
    `;
  },
  async apply(q, events, suffix) {
    const t = `${REGISTER_TABLE}${suffix}`;
    // The first revision of each code the batch changes without creating it.
    const firsts = new Map<string, number>();
    const created = new Set<string>();
    for (const e of events) {
      const { event } = e;
      if (event.type === 'VacationCreated' || event.type === 'VacationImported') created.add(event.data.codigoPila);
      else if (
        (event.type === 'VacationApproved' || event.type === 'VacationInterrupted' || event.type === 'VacationDeleted') &&
        !created.has(event.data.codigoPila)
      ) {
        if (!firsts.has(event.data.codigoPila)) firsts.set(event.data.codigoPila, e.stored.revision);
      }
    }
    const latest = await predecessors(q, t, firsts);
    const rows = new Map<string, Row>();
    const put = (row: Row) => rows.set(`${row.codigo_pila as string}\u0000${row.revision as number}`, row);
    /** Closes the latest version of a code on `on` and opens `next` (none on deletion). */
    const supersede = (code: string, on: string, next?: (previous: Row) => Row) => {
      const previous = latest.get(code);
      if (!previous) return;
      const closed = { ...previous, superseded_on: on };
      put(closed);
      if (!next) {
        latest.delete(code);
        return;
      }
      const opened = next(closed);
      put(opened);
      latest.set(code, opened);
    };
    for (const e of events) {
      const { event } = e;
      const on = businessDateOf(e);
      switch (event.type) {
        case 'VacationCreated':
        case 'VacationImported': {
          const row = versionOf(event.data, event.type === 'VacationImported' && event.data.approved, e.stored.revision, on);
          put(row);
          latest.set(event.data.codigoPila, row);
          break;
        }
        case 'VacationApproved':
          supersede(event.data.codigoPila, on, (p) => ({
            ...p,
            approved: true,
            revision: e.stored.revision,
            recorded_on: on,
            superseded_on: null,
          }));
          break;
        case 'VacationInterrupted': {
          const d = event.data;
          supersede(d.codigoPila, on, (p) => ({
            ...p,
            end_date: d.endDate,
            business_days: d.businessDays,
            calendar_days: d.calendarDays,
            total_value: d.totalValue,
            interrupted_on: d.interruptedOn,
            interruption_reason: d.reason,
            revision: e.stored.revision,
            recorded_on: on,
            superseded_on: null,
          }));
          break;
        }
        case 'VacationDeleted':
          supersede(event.data.codigoPila, on);
          break;
        default:
          break;
      }
    }
    await upsertRows(q, t, REGISTER_COLUMNS, [...rows.values()], ['codigo_pila', 'revision']);
  },
};
