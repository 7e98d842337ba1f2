import type { VacationRecord } from '../../events/types.ts';
import { lastWordPerCode } from '../last-word.ts';
import { LATEST_FIRST, columnDefinitions, columnNames, loggedEvents, upsertRows, type Columns } from '../sql.ts';
import type { Projector } from '../types.ts';

/**
 * One row per live enjoyed vacation and the days it spans. Until migration 16 it was one row per
 * calendar day (rm_occupancy): fourteen rows for a two-week vacation, most of a rebuild's writes.
 */
export const OCCUPANCY_TABLE = 'rm_occupancy_spans';

export const OCCUPANCY_COLUMNS: Columns = {
  codigo_pila: 'text NOT NULL',
  subgerencia_id: 'text NOT NULL',
  worker_id: 'bigint NOT NULL',
  start_date: 'date NOT NULL',
  end_date: 'date NOT NULL',
};

interface Span {
  subgerencia_id: string;
  codigo_pila: string;
  worker_id: number;
  start_date: string;
  end_date: string;
}

/**
 * Only enjoyed time away takes a place in the unit; compensated days are paid, not taken, and a
 * vacation interrupted on its first day (its end before its start) took none.
 */
const span = (r: VacationRecord): Span | null =>
  !r.compensated && r.subgerenciaId !== null && r.endDate >= r.startDate
    ? { subgerencia_id: r.subgerenciaId, codigo_pila: r.codigoPila, worker_id: r.workerId, start_date: r.startDate, end_date: r.endDate }
    : null;

/** The days each live enjoyed vacation keeps its worker away from their subgerencia. */
export const occupancyProjector: Projector = {
  name: 'occupancy',
  handles: new Set(['VacationCreated', 'VacationImported', 'VacationInterrupted', 'VacationDeleted']),
  tables: [OCCUPANCY_TABLE],
  ddl(suffix) {
    const t = `${OCCUPANCY_TABLE}${suffix}`;
    return `
      CREATE TABLE IF NOT EXISTS ${t} (
${columnDefinitions(OCCUPANCY_COLUMNS)},
        CONSTRAINT ${t}_pkey PRIMARY KEY (codigo_pila)
      );
      CREATE INDEX IF NOT EXISTS ${t}_unit ON ${t} (subgerencia_id, start_date, end_date);
      -- Who is away on some days, in any subgerencia (the panel's home page and calendar).
      CREATE INDEX IF NOT EXISTS ${t}_days ON ${t} USING gist (daterange(start_date, end_date, '[]'));
    `;
  },
  async apply(q, events, suffix) {
    const t = `${OCCUPANCY_TABLE}${suffix}`;
    const spans = lastWordPerCode(events, span, () => null);
    const freed = [...spans].filter(([, s]) => s === null).map(([code]) => code);
    if (freed.length > 0) await q.query(`DELETE FROM ${t} WHERE codigo_pila = ANY($1::text[])`, [freed]);
    const occupied = [...spans.values()].filter((s): s is Span => s !== null);
    await upsertRows(q, t, OCCUPANCY_COLUMNS, occupied as unknown as Record<string, unknown>[], ['codigo_pila']);
  },
  replaySql(suffix) {
    // The last word on each code, then span() of it.
    return [
      `INSERT INTO ${OCCUPANCY_TABLE}${suffix} (${columnNames(OCCUPANCY_COLUMNS)})
       SELECT w.code, w.subgerencia_id, w.worker_id, w.start_date, w.end_date
         FROM (SELECT DISTINCT ON (e.data->>'codigoPila') e.data->>'codigoPila' AS code, e.type,
                      e.data->>'subgerenciaId' AS subgerencia_id, (e.data->>'workerId')::bigint AS worker_id,
                      (e.data->>'startDate')::date AS start_date, (e.data->>'endDate')::date AS end_date,
                      (e.data->>'compensated')::boolean AS compensated
                 FROM ${loggedEvents(['VacationCreated', 'VacationImported', 'VacationInterrupted', 'VacationDeleted'])}
                ORDER BY e.data->>'codigoPila', ${LATEST_FIRST}) w
        WHERE w.type <> 'VacationDeleted' AND NOT w.compensated AND w.subgerencia_id IS NOT NULL AND w.end_date >= w.start_date`,
    ];
  },
};
