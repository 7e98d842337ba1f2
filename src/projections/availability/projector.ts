import type { VacationRecord } from '../../events/types.ts';
import { lastWordPerCode } from '../last-word.ts';
import { LATEST_FIRST, columnDefinitions, columnNames, loggedEvents, updateAllBut, upsertRows, type Columns } from '../sql.ts';
import type { Projector } from '../types.ts';

export const AVAILABILITY_TABLE = 'rm_availability';
export const AVAILABILITY_RECORDS_TABLE = 'rm_availability_records';

export const AVAILABILITY_COLUMNS: Columns = {
  worker_id: 'bigint NOT NULL',
  days_taken: 'integer NOT NULL',
  days_enjoyed: 'integer NOT NULL',
  days_compensated: 'integer NOT NULL',
  live_records: 'integer NOT NULL',
};

const RECORD_COLUMNS: Columns = {
  codigo_pila: 'text NOT NULL',
  worker_id: 'bigint NOT NULL',
  business_days: 'integer NOT NULL',
  compensated: 'boolean NOT NULL',
  live: 'boolean NOT NULL',
};

const recordRow = (r: VacationRecord, live: boolean) => ({
  codigo_pila: r.codigoPila,
  worker_id: r.workerId,
  business_days: r.businessDays,
  compensated: r.compensated,
  live,
});

/** The start of the statement that writes workers' totals from their records (a WHERE and GROUP BY follow). */
const totals = (suffix: string) => `
  INSERT INTO ${AVAILABILITY_TABLE}${suffix} (${columnNames(AVAILABILITY_COLUMNS)})
  SELECT worker_id,
         coalesce(sum(business_days) FILTER (WHERE live), 0),
         coalesce(sum(business_days) FILTER (WHERE live AND NOT compensated), 0),
         coalesce(sum(business_days) FILTER (WHERE live AND compensated), 0),
         count(*) FILTER (WHERE live)
    FROM ${AVAILABILITY_RECORDS_TABLE}${suffix}`;

/**
 * Days already taken per worker. The per-record table is what makes it idempotent: a worker's
 * totals are recomputed from their records rather than incremented.
 */
export const availabilityProjector: Projector = {
  name: 'availability',
  handles: new Set(['VacationCreated', 'VacationImported', 'VacationInterrupted', 'VacationDeleted']),
  tables: [AVAILABILITY_TABLE, AVAILABILITY_RECORDS_TABLE],
  ddl(suffix) {
    const a = `${AVAILABILITY_TABLE}${suffix}`;
    const r = `${AVAILABILITY_RECORDS_TABLE}${suffix}`;
    return `
      CREATE TABLE IF NOT EXISTS ${r} (
${columnDefinitions(RECORD_COLUMNS)},
        CONSTRAINT ${r}_pkey PRIMARY KEY (codigo_pila)
      );
      CREATE INDEX IF NOT EXISTS ${r}_worker ON ${r} (worker_id);
      CREATE TABLE IF NOT EXISTS ${a} (
${columnDefinitions(AVAILABILITY_COLUMNS)},
        CONSTRAINT ${a}_pkey PRIMARY KEY (worker_id)
      );
    `;
  },
  async apply(q, events, suffix) {
    const last = lastWordPerCode(
      events,
      (r) => recordRow(r, true),
      // The snapshot carries the days, so a deletion is a full row too and the order of
      // batches never leaves a half-known record behind.
      (d) => recordRow(d.snapshot, false),
    );
    const rows = [...last.values()];
    if (rows.length === 0) return;
    const records = `${AVAILABILITY_RECORDS_TABLE}${suffix}`;
    await upsertRows(q, records, RECORD_COLUMNS, rows, ['codigo_pila']);
    const workers = [...new Set(rows.map((r) => r.worker_id as number))];
    await q.query(
      `${totals(suffix)} WHERE worker_id = ANY($1::bigint[]) GROUP BY worker_id
       ON CONFLICT (worker_id) DO UPDATE SET ${updateAllBut(AVAILABILITY_COLUMNS, ['worker_id'])}`,
      [workers],
    );
  },
  replaySql(suffix) {
    // The last word on each code is its record's row (a deletion's from its snapshot); then the
    // totals of every worker that has one.
    return [
      `INSERT INTO ${AVAILABILITY_RECORDS_TABLE}${suffix} (codigo_pila, worker_id, business_days, compensated, live)
       SELECT w.codigo_pila, w.worker_id, w.business_days, w.compensated, w.live
         FROM (SELECT DISTINCT ON (e.data->>'codigoPila') x.r->>'codigoPila' AS codigo_pila, (x.r->>'workerId')::bigint AS worker_id,
                      (x.r->>'businessDays')::integer AS business_days, (x.r->>'compensated')::boolean AS compensated,
                      e.type <> 'VacationDeleted' AS live
                 FROM ${loggedEvents(
                   ['VacationCreated', 'VacationImported', 'VacationInterrupted', 'VacationDeleted'],
                   "CROSS JOIN LATERAL (SELECT CASE WHEN e.type = 'VacationDeleted' THEN e.data->'snapshot' ELSE e.data END AS r) x",
                 )}
                ORDER BY e.data->>'codigoPila', ${LATEST_FIRST}) w`,
      `${totals(suffix)} GROUP BY worker_id`,
    ];
  },
};
