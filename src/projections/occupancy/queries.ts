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

/** Who is away and when: all the grid's counts need, without names or joins. */
export interface Span {
  workerId: number;
  startDate: string;
  endDate: string;
}

/** The spans of live enjoyed vacations of a subgerencia that reach some day from `from` to `to` (the grid's counts). */
export async function spansIn(q: Queryable, subgerenciaId: string, from: string, to: string): Promise<Span[]> {
  const r = await q.query<Record<string, unknown>>(
    `SELECT o.worker_id, to_char(o.start_date, 'YYYY-MM-DD') AS start_date, to_char(o.end_date, 'YYYY-MM-DD') AS end_date
       FROM ${OCCUPANCY_TABLE} o
      WHERE o.subgerencia_id = $1 AND o.start_date <= $3::date AND o.start_date >= $2::date - $4::int AND o.end_date >= $2::date`,
    [subgerenciaId, from, to, LONGEST_SPAN_DAYS],
  );
  return r.rows.map((row) => ({ workerId: toNumber(row.worker_id), startDate: row.start_date as string, endDate: row.end_date as string }));
}

/**
 * Live enjoyed vacations that keep people of a subgerencia away on some day from `from` to `to`, with
 * each worker's name (the panel's occupancy grid), the first `limit` by start date.
 */
export async function absencesIn(q: Queryable, subgerenciaId: string, from: string, to: string, limit = 10_000): Promise<Absence[]> {
  const r = await q.query<Record<string, unknown>>(
    `SELECT o.codigo_pila, o.worker_id, to_char(o.start_date, 'YYYY-MM-DD') AS start_date, to_char(o.end_date, 'YYYY-MM-DD') AS end_date,
            w.document_number, w.first_names, w.last_names, coalesce(v.approved, false) AS approved,
            to_char(v.interrupted_on, 'YYYY-MM-DD') AS interrupted_on
       FROM ${OCCUPANCY_TABLE} o
       JOIN ref_workers w ON w.id = o.worker_id
       LEFT JOIN ${VACATIONS_TABLE} v ON v.codigo_pila = o.codigo_pila
      WHERE o.subgerencia_id = $1 AND o.start_date <= $3::date AND o.start_date >= $2::date - $4::int AND o.end_date >= $2::date
      ORDER BY o.start_date, w.last_names, w.first_names
      LIMIT $5`,
    [subgerenciaId, from, to, LONGEST_SPAN_DAYS, limit],
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

/** A vacation's days as the range the GiST index of the spans holds (spelt as in the projector's DDL). */
const DAYS = `daterange(o.start_date, o.end_date, '[]')`;

export interface AbsenceWithUnit extends Absence {
  subgerenciaId: string;
  businessDays: number;
}

const absenceOf = (row: Record<string, unknown>): AbsenceWithUnit => ({
  codigoPila: row.codigo_pila as string,
  workerId: toNumber(row.worker_id),
  subgerenciaId: row.subgerencia_id as string,
  documentNumber: row.document_number as string,
  name: `${row.first_names as string} ${row.last_names as string}`,
  startDate: row.start_date as string,
  endDate: row.end_date as string,
  businessDays: toNumber(row.business_days ?? 0),
  approved: row.approved === true,
  interruptedOn: (row.interrupted_on as string | null) ?? null,
});

const ABSENCE_COLUMNS = `o.codigo_pila, o.worker_id, o.subgerencia_id, to_char(o.start_date, 'YYYY-MM-DD') AS start_date,
  to_char(o.end_date, 'YYYY-MM-DD') AS end_date, w.document_number, w.first_names, w.last_names,
  coalesce(v.approved, false) AS approved, coalesce(v.business_days, 0) AS business_days,
  to_char(v.interrupted_on, 'YYYY-MM-DD') AS interrupted_on`;

/**
 * People of these subgerencias (every one when `units` is null) away on some day from `from` to
 * `to`: how many, and the first `limit` vacations by start date. The days are read through the
 * GiST index of the spans, so the cost follows the people away, not the size of the company.
 */
export async function awayBetween(
  q: Queryable,
  units: readonly string[] | null,
  from: string,
  to: string,
  limit: number,
): Promise<{ people: number; absences: AbsenceWithUnit[] }> {
  const where = `${DAYS} && daterange($2::date, $3::date, '[]') AND ($1::text[] IS NULL OR o.subgerencia_id = ANY($1::text[]))`;
  const [count, list] = await Promise.all([
    q.query<{ n: unknown }>(`SELECT count(DISTINCT o.worker_id) AS n FROM ${OCCUPANCY_TABLE} o WHERE ${where}`, [units, from, to]),
    q.query<Record<string, unknown>>(
      `SELECT ${ABSENCE_COLUMNS}
         FROM ${OCCUPANCY_TABLE} o
         JOIN ref_workers w ON w.id = o.worker_id
         LEFT JOIN ${VACATIONS_TABLE} v ON v.codigo_pila = o.codigo_pila
        WHERE ${where}
        ORDER BY o.start_date, w.last_names, w.first_names, o.codigo_pila LIMIT $4`,
      [units, from, to, limit],
    ),
  ]);
  return { people: toNumber(count.rows[0]?.n ?? 0), absences: list.rows.map(absenceOf) };
}

export interface CalendarPerson {
  subgerenciaId: string;
  workerId: number;
  documentNumber: string;
  name: string;
  absences: AbsenceWithUnit[];
}

/**
 * A page of the team calendar: the people of these subgerencias away on some day from `from` to
 * `to`, by subgerencia then name (`offset`, at most `limit` of them), each with their vacations
 * in the window, and how many such people there are in all. Two indexed reads, whatever the size.
 */
export async function calendarPage(
  q: Queryable,
  units: readonly string[],
  from: string,
  to: string,
  limit: number,
  offset: number,
): Promise<{ total: number; people: CalendarPerson[] }> {
  const window = `${DAYS} && daterange($2::date, $3::date, '[]') AND o.subgerencia_id = ANY($1::text[])`;
  const page = await q.query<Record<string, unknown>>(
    `WITH people AS (SELECT DISTINCT o.subgerencia_id, o.worker_id FROM ${OCCUPANCY_TABLE} o WHERE ${window})
     SELECT p.subgerencia_id, p.worker_id, w.document_number, w.first_names, w.last_names, count(*) OVER () AS total
       FROM people p JOIN ref_workers w ON w.id = p.worker_id
      ORDER BY array_position($1::text[], p.subgerencia_id), w.last_names, w.first_names, p.worker_id
      LIMIT $4 OFFSET $5`,
    [units, from, to, limit, offset],
  );
  const people: CalendarPerson[] = page.rows.map((row) => ({
    subgerenciaId: row.subgerencia_id as string,
    workerId: toNumber(row.worker_id),
    documentNumber: row.document_number as string,
    name: `${row.first_names as string} ${row.last_names as string}`,
    absences: [],
  }));
  if (people.length === 0) return { total: 0, people };
  const spans = await q.query<Record<string, unknown>>(
    `SELECT ${ABSENCE_COLUMNS}
       FROM ${OCCUPANCY_TABLE} o
       JOIN ref_workers w ON w.id = o.worker_id
       LEFT JOIN ${VACATIONS_TABLE} v ON v.codigo_pila = o.codigo_pila
      WHERE ${window} AND o.worker_id = ANY($4::bigint[])
      ORDER BY o.start_date`,
    [units, from, to, people.map((p) => p.workerId)],
  );
  const byKey = new Map(people.map((p) => [`${p.subgerenciaId}\n${p.workerId}`, p]));
  for (const row of spans.rows) {
    const a = absenceOf(row);
    byKey.get(`${a.subgerenciaId}\n${a.workerId}`)?.absences.push(a);
  }
  return { total: toNumber(page.rows[0]!.total), people };
}
