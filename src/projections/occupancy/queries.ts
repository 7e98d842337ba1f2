import type { Queryable } from '../../db/types.ts';
import { toNumber } from '../sql.ts';
import { VACATIONS_TABLE } from '../vacations/projector.ts';
import { OCCUPANCY_TABLE } from './projector.ts';

export interface DayCount {
  day: string;
  count: number;
}

/** People away on enjoyed vacation in a subgerencia, for every day from `from` to `to` inclusive. */
export async function occupancyCounts(q: Queryable, subgerenciaId: string, from: string, to: string): Promise<DayCount[]> {
  const r = await q.query<{ day: string; count: unknown }>(
    `SELECT to_char(d, 'YYYY-MM-DD') AS day, count(o.codigo_pila) AS count
     FROM generate_series($2::date, $3::date, interval '1 day') AS d
     LEFT JOIN ${OCCUPANCY_TABLE} o ON o.subgerencia_id = $1 AND o.start_date <= d::date AND o.end_date >= d::date
     GROUP BY d ORDER BY d`,
    [subgerenciaId, from, to],
  );
  return r.rows.map((row) => ({ day: row.day, count: toNumber(row.count) }));
}

export interface Absence {
  codigoPila: string;
  workerId: number;
  documentNumber: string;
  name: string;
  startDate: string;
  endDate: string;
  approved: boolean;
  /** The first day not enjoyed, once interrupted (the span ends with the last day enjoyed). */
  interruptedOn: string | null;
}

/**
 * Longest calendar span one vacation can have: 360 business days (the most a request may ask) run
 * well under 600 calendar days. Spans starting earlier cannot reach the window, which bounds the
 * index range read.
 */
const LONGEST_SPAN_DAYS = 600;

/**
 * Live enjoyed vacations that keep people of a subgerencia away on some day from `from` to `to`, with
 * each worker's name (the panel's occupancy grid).
 */
export async function absencesIn(q: Queryable, subgerenciaId: string, from: string, to: string): Promise<Absence[]> {
  const r = await q.query<Record<string, unknown>>(
    `SELECT o.codigo_pila, o.worker_id, to_char(o.start_date, 'YYYY-MM-DD') AS start_date, to_char(o.end_date, 'YYYY-MM-DD') AS end_date,
            w.document_number, w.first_names, w.last_names, coalesce(v.approved, false) AS approved,
            to_char(v.interrupted_on, 'YYYY-MM-DD') AS interrupted_on
       FROM ${OCCUPANCY_TABLE} o
       JOIN ref_workers w ON w.id = o.worker_id
       LEFT JOIN ${VACATIONS_TABLE} v ON v.codigo_pila = o.codigo_pila
      WHERE o.subgerencia_id = $1 AND o.start_date <= $3::date AND o.start_date >= $2::date - $4::int AND o.end_date >= $2::date
      ORDER BY o.start_date, w.last_names, w.first_names`,
    [subgerenciaId, from, to, LONGEST_SPAN_DAYS],
  );
  return r.rows.map((row) => ({
    codigoPila: row.codigo_pila as string,
    workerId: toNumber(row.worker_id),
    documentNumber: row.document_number as string,
    name: `${row.first_names as string} ${row.last_names as string}`,
    startDate: row.start_date as string,
    endDate: row.end_date as string,
    approved: row.approved === true,
    interruptedOn: (row.interrupted_on as string | null) ?? null,
  }));
}
