import type { Queryable } from '../../db/types.ts';
import type { DecodedEvent } from '../../events/codec.ts';
import type { EventMetadata, VacationRecord } from '../../events/types.ts';
import { todayInBogota } from '../../domain/index.ts';
import { columnDefinitions, columnNames, loggedEvents, selectList, timestampSql, upsertRows, type Columns } from '../sql.ts';
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

/**
 * businessDateOf() in SQL, for replaySql, an empty date or time counting as none as there: the
 * date in Bogota at the time (PostgreSQL's time zone data and that of JavaScript's Intl agree on
 * it: UTC-5 all year since 1993). A time in another shape than the service writes raises, through
 * timestampSql, and the register is then replayed through apply().
 */
const BUSINESS_DATE_SQL = `coalesce(
  nullif(e.metadata->>'businessDate', '')::date,
  (${timestampSql("nullif(e.metadata->>'occurredAt', '')")} AT TIME ZONE 'America/Bogota')::date,
  (e.recorded_at AT TIME ZONE 'America/Bogota')::date)`;

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

const HANDLED = ['VacationCreated', 'VacationImported', 'VacationApproved', 'VacationInterrupted', 'VacationDeleted'];

export const registerProjector: Projector = {
  name: 'register',
  handles: new Set(HANDLED),
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
  replaySql(suffix) {
    const created = "e.type IN ('VacationCreated', 'VacationImported')";
    const cut = "e.type = 'VacationInterrupted'";
    const figures = `${created} OR ${cut}`;
    const when = (test: string, name: string, type: string, column: string) =>
      `CASE WHEN ${test} THEN (e.data->>'${name}')::${type} END AS ${column}`;
    // Each event of a code, narrowed to what apply() reads of it: a creation's record, an
    // interruption's figures, every event's business date. Worked out before the sort (OFFSET 0
    // keeps the planner from putting it off until after), so that the sort carries these and not
    // the payloads, a seventh of the bytes.
    const events = `
      SELECT e.data->>'codigoPila' AS code, e.tx_id, e.position, e.revision, ${BUSINESS_DATE_SQL} AS on_date,
             CASE WHEN ${created} THEN 'C' WHEN e.type = 'VacationApproved' THEN 'A' WHEN ${cut} THEN 'I' ELSE 'D' END AS kind,
             ${when(created, 'recordId', 'bigint', 'record_id')}, ${when(created, 'workerId', 'bigint', 'worker_id')},
             ${when(created, 'contractId', 'bigint', 'contract_id')}, ${when(created, 'subgerenciaId', 'text', 'subgerencia_id')},
             ${when(created, 'startDate', 'date', 'start_date')}, ${when(created, 'salary', 'bigint', 'salary')},
             ${when(created, 'compensated', 'boolean', 'compensated')}, ${when(created, 'advance', 'boolean', 'advance')},
             ${when(created, 'continues', 'text', 'continues')},
             CASE WHEN e.type = 'VacationImported' THEN (e.data->>'approved')::boolean
                  WHEN e.type = 'VacationCreated' THEN false END AS approved,
             ${when(figures, 'endDate', 'date', 'end_date')}, ${when(figures, 'businessDays', 'integer', 'business_days')},
             ${when(figures, 'calendarDays', 'integer', 'calendar_days')}, ${when(figures, 'totalValue', 'bigint', 'total_value')},
             ${when(cut, 'interruptedOn', 'date', 'interrupted_on')}, ${when(cut, 'reason', 'text', 'interruption_reason')}
        FROM ${loggedEvents(HANDLED)}
      OFFSET 0`;
    // A code's events in the order of the log, as apply() takes them. A creation starts a chain of
    // versions (and leaves any earlier version of the code as it was); each approval or
    // interruption closes the chain's latest version and opens the next; the chain's first
    // deletion closes the latest and ends the chain: what follows it up to the next creation
    // changes nothing. Running counts number the chains, and the groups of events that share the
    // figures of one creation or interruption (there is no "last value ignoring nulls").
    const counted = `
      SELECT x.*,
             count(*) FILTER (WHERE x.kind = 'C') OVER w AS chain,
             count(*) FILTER (WHERE x.kind IN ('C', 'I')) OVER w AS cut,
             count(*) FILTER (WHERE x.kind = 'A') OVER w AS approvals,
             count(*) FILTER (WHERE x.kind = 'D') OVER w AS deletions
        FROM (${events}) x
      WINDOW w AS (PARTITION BY x.code ORDER BY x.tx_id, x.position)`;
    const first = (column: string, window: string) => `first_value(r.${column}) OVER ${window} AS ${column}`;
    const chained = `
      SELECT r.code, r.revision, r.kind, r.chain, r.on_date, r.approvals, r.deletions,
             ${['record_id', 'worker_id', 'contract_id', 'subgerencia_id', 'start_date', 'salary', 'compensated', 'advance', 'continues']
               .map((c) => first(c, 'c'))
               .join(', ')},
             first_value(r.approved) OVER c AS created_approved, first_value(r.approvals) OVER c AS chain_approvals,
             first_value(r.deletions) OVER c AS chain_deletions, lead(r.on_date) OVER c AS next_on,
             ${['end_date', 'business_days', 'calendar_days', 'total_value', 'interrupted_on', 'interruption_reason']
               .map((c) => first(c, 'i'))
               .join(', ')}
        FROM (${counted}) r
      WINDOW c AS (PARTITION BY r.code, r.chain ORDER BY r.tx_id, r.position),
             i AS (PARTITION BY r.code, r.cut ORDER BY r.tx_id, r.position)`;
    return [
      `INSERT INTO ${REGISTER_TABLE}${suffix} (${columnNames(REGISTER_COLUMNS)})
       SELECT v.code, v.revision, v.worker_id, v.record_id, v.contract_id, v.subgerencia_id, v.start_date, v.end_date,
              v.business_days, v.calendar_days, v.salary, v.total_value, v.compensated, v.advance,
              v.created_approved OR v.approvals > v.chain_approvals, v.interrupted_on, v.interruption_reason, v.continues,
              v.on_date, v.next_on
         FROM (${chained}) v
        -- A version opens on every event of a chain up to its first deletion, which opens none.
        WHERE v.chain > 0 AND v.kind <> 'D' AND v.deletions = v.chain_deletions`,
      // One code at one revision of two streams, which the service never writes: apply() keeps
      // the later version; this raises as for a time it cannot read, and apply() does the work.
      `SELECT ('one code at one revision of two streams: ' || codigo_pila)::date FROM ${REGISTER_TABLE}${suffix}
        GROUP BY codigo_pila, revision HAVING count(*) > 1 LIMIT 1`,
    ];
  },
};
