import type { DecodedEvent } from '../../events/codec.ts';
import type { VacationRecord } from '../../events/types.ts';
import { insertRows, updateAllBut, type Columns } from '../sql.ts';
import type { Projector } from '../types.ts';

export const AVAILABILITY_TABLE = 'rm_availability';
export const AVAILABILITY_RECORDS_TABLE = 'rm_availability_records';

const RECORD_COLUMNS: Columns = {
  codigo_pila: 'text',
  worker_id: 'bigint',
  business_days: 'integer',
  compensated: 'boolean',
  live: 'boolean',
};

const recordRow = (r: VacationRecord, live: boolean) => ({
  codigo_pila: r.codigoPila,
  worker_id: r.workerId,
  business_days: r.businessDays,
  compensated: r.compensated,
  live,
});

function fold(events: readonly DecodedEvent[]): Map<string, Record<string, unknown>> {
  const rows = new Map<string, Record<string, unknown>>();
  for (const { event } of events) {
    if (event.type === 'VacationCreated' || event.type === 'VacationImported') {
      rows.set(event.data.codigoPila, recordRow(event.data, true));
    } else if (event.type === 'VacationDeleted') {
      // The snapshot carries the days, so a deletion is a full row too and the order of
      // batches never leaves a half-known record behind.
      rows.set(event.data.codigoPila, recordRow(event.data.snapshot, false));
    }
  }
  return rows;
}

/**
 * Days already taken per worker. The per-record table is what makes it idempotent: a worker's
 * totals are recomputed from their records rather than incremented.
 */
export const availabilityProjector: Projector = {
  name: 'availability',
  handles: new Set(['VacationCreated', 'VacationImported', 'VacationDeleted']),
  tables: [AVAILABILITY_TABLE, AVAILABILITY_RECORDS_TABLE],
  ddl(suffix) {
    const a = `${AVAILABILITY_TABLE}${suffix}`;
    const r = `${AVAILABILITY_RECORDS_TABLE}${suffix}`;
    return `
      CREATE TABLE IF NOT EXISTS ${r} (
        codigo_pila   text NOT NULL,
        worker_id     bigint NOT NULL,
        business_days integer NOT NULL,
        compensated   boolean NOT NULL,
        live          boolean NOT NULL,
        CONSTRAINT ${r}_pkey PRIMARY KEY (codigo_pila)
      );
      CREATE INDEX IF NOT EXISTS ${r}_worker ON ${r} (worker_id);
      CREATE TABLE IF NOT EXISTS ${a} (
        worker_id        bigint NOT NULL,
        days_taken       integer NOT NULL,
        days_enjoyed     integer NOT NULL,
        days_compensated integer NOT NULL,
        live_records     integer NOT NULL,
        CONSTRAINT ${a}_pkey PRIMARY KEY (worker_id)
      );
    `;
  },
  async apply(q, events, suffix) {
    const rows = [...fold(events).values()];
    if (rows.length === 0) return;
    const records = `${AVAILABILITY_RECORDS_TABLE}${suffix}`;
    await insertRows(q, records, RECORD_COLUMNS, rows, `ON CONFLICT (codigo_pila) DO UPDATE SET ${updateAllBut(RECORD_COLUMNS, ['codigo_pila'])}`);
    const workers = [...new Set(rows.map((r) => r.worker_id as number))];
    await q.query(
      `INSERT INTO ${AVAILABILITY_TABLE}${suffix} (worker_id, days_taken, days_enjoyed, days_compensated, live_records)
       SELECT worker_id,
              coalesce(sum(business_days) FILTER (WHERE live), 0),
              coalesce(sum(business_days) FILTER (WHERE live AND NOT compensated), 0),
              coalesce(sum(business_days) FILTER (WHERE live AND compensated), 0),
              count(*) FILTER (WHERE live)
       FROM ${records} WHERE worker_id = ANY($1::bigint[]) GROUP BY worker_id
       ON CONFLICT (worker_id) DO UPDATE SET days_taken = EXCLUDED.days_taken, days_enjoyed = EXCLUDED.days_enjoyed,
         days_compensated = EXCLUDED.days_compensated, live_records = EXCLUDED.live_records`,
      [workers],
    );
  },
};
