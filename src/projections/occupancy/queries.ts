import type { Queryable } from '../../db/types.ts';
import { toNumber } from '../sql.ts';
import { VACATIONS_TABLE } from '../vacations/projector.ts';
import { OCCUPANCY_TABLE } from './projector.ts';

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
 * People away on each of `days` (consecutive, in order) by these spans, each person once whatever
 * their records, and the records on it: the one count of people away per day, for Ocupación and
 * the calendar alike. Each span is walked over the days it covers only.
 */
export function dailyCounts(days: readonly string[], spans: readonly Span[]): Map<string, { people: number; records: number }> {
  const people = days.map(() => new Set<number>());
  const records = days.map(() => 0);
  const index = new Map(days.map((d, i) => [d, i]));
  const first = days[0];
  const last = days[days.length - 1];
  if (first !== undefined && last !== undefined) {
    for (const s of spans) {
      if (s.endDate < first || s.startDate > last) continue;
      const from = index.get(s.startDate < first ? first : s.startDate)!;
      const to = index.get(s.endDate > last ? last : s.endDate)!;
      for (let i = from; i <= to; i++) {
        people[i]!.add(s.workerId);
        records[i]!++;
      }
    }
  }
  return new Map(days.map((d, i) => [d, { people: people[i]!.size, records: records[i]! }]));
}

/**
 * Live enjoyed vacations that keep people of a subgerencia away on some day from `from` to `to`, with
 * each worker's name (the panel's occupancy grid), the first `limit` by start date.
 */
export async function absencesIn(q: Queryable, subgerenciaId: string, from: string, to: string, limit = 10_000): Promise<Absence[]> {
  // The first `limit` are chosen before the records read model is joined: a crowded month of a
  // subgerencia of 2,500 looked up every record to show 200 of them.
  const r = await q.query<Record<string, unknown>>(
    `SELECT o.codigo_pila, o.worker_id, to_char(o.start_date, 'YYYY-MM-DD') AS start_date, to_char(o.end_date, 'YYYY-MM-DD') AS end_date,
            o.document_number, o.first_names, o.last_names, coalesce(v.approved, false) AS approved,
            to_char(v.interrupted_on, 'YYYY-MM-DD') AS interrupted_on
       FROM (SELECT o.codigo_pila, o.worker_id, o.start_date, o.end_date, w.document_number, w.first_names, w.last_names
               FROM ${OCCUPANCY_TABLE} o
               JOIN ref_workers w ON w.id = o.worker_id
              WHERE o.subgerencia_id = $1 AND o.start_date <= $3::date AND o.start_date >= $2::date - $4::int AND o.end_date >= $2::date
              ORDER BY o.start_date, w.last_names, w.first_names, o.codigo_pila
              LIMIT $5) o
       LEFT JOIN ${VACATIONS_TABLE} v ON v.codigo_pila = o.codigo_pila
      ORDER BY o.start_date, o.last_names, o.first_names, o.codigo_pila`,
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
 * People of a subgerencia away on some day from `from` to `to` (spansIn's spans), by name: at
 * most `limit` of them after the first `offset`. The subgerencia's spans only, through its index.
 */
async function peopleAwayIn(
  q: Queryable,
  subgerenciaId: string,
  from: string,
  to: string,
  limit: number,
  offset: number,
): Promise<CalendarPerson[]> {
  const r = await q.query<Record<string, unknown>>(
    `WITH people AS (
       SELECT DISTINCT o.worker_id FROM ${OCCUPANCY_TABLE} o
        WHERE o.subgerencia_id = $1 AND o.start_date <= $3::date AND o.start_date >= $2::date - $4::int AND o.end_date >= $2::date)
     SELECT p.worker_id, w.document_number, w.first_names, w.last_names
       FROM people p JOIN ref_workers w ON w.id = p.worker_id
      ORDER BY w.last_names, w.first_names, p.worker_id
      LIMIT $5 OFFSET $6`,
    [subgerenciaId, from, to, LONGEST_SPAN_DAYS, limit, offset],
  );
  return r.rows.map((row) => ({
    subgerenciaId,
    workerId: toNumber(row.worker_id),
    documentNumber: row.document_number as string,
    name: `${row.first_names as string} ${row.last_names as string}`,
    absences: [],
  }));
}

/** Fills each person's vacations (of their subgerencia) that reach some day from `from` to `to`, by start date. */
async function withAbsences(q: Queryable, people: CalendarPerson[], from: string, to: string): Promise<CalendarPerson[]> {
  if (people.length === 0) return people;
  const units = [...new Set(people.map((p) => p.subgerenciaId))];
  const spans = await q.query<Record<string, unknown>>(
    `SELECT ${ABSENCE_COLUMNS}
       FROM ${OCCUPANCY_TABLE} o
       JOIN ref_workers w ON w.id = o.worker_id
       LEFT JOIN ${VACATIONS_TABLE} v ON v.codigo_pila = o.codigo_pila
      WHERE o.worker_id = ANY($4::bigint[]) AND o.subgerencia_id = ANY($1::text[]) AND ${DAYS} && daterange($2::date, $3::date, '[]')
      ORDER BY o.start_date`,
    [units, from, to, people.map((p) => p.workerId)],
  );
  const byKey = new Map(people.map((p) => [`${p.subgerenciaId}\n${p.workerId}`, p]));
  for (const row of spans.rows) {
    const a = absenceOf(row);
    byKey.get(`${a.subgerenciaId}\n${a.workerId}`)?.absences.push(a);
  }
  return people;
}

export interface CalendarPage {
  people: CalendarPerson[];
  /** The subgerencias of the people shown, with their spans in the window and how many people those are. */
  units: { id: string; spans: Span[]; people: number }[];
  /** People away in all the subgerencias asked; null when the page was found without counting them all. */
  total: number | null;
  /** Whether a next page has people. */
  more: boolean;
}

/**
 * A page of the team calendar: the people of these subgerencias away on some day from `from` to
 * `to`, by subgerencia in the order given then by name, `size` of them after the first `skip`, each
 * with their vacations in the window. The subgerencias are counted in order, each from its own
 * spans (one indexed read), only until the page is full: a page costs the subgerencias up to it,
 * not the whole company (50,000 people away in a quarter were sorted for every page before).
 */
export async function calendarPage(
  q: Queryable,
  units: readonly string[],
  from: string,
  to: string,
  size: number,
  skip: number,
): Promise<CalendarPage> {
  const people: CalendarPerson[] = [];
  const shown: CalendarPage['units'] = [];
  const done = async (total: number | null, more: boolean): Promise<CalendarPage> => ({
    people: await withAbsences(q, people, from, to),
    units: shown,
    total,
    more,
  });
  let before = 0;
  for (let i = 0; i < units.length; i++) {
    const id = units[i]!;
    const spans = await spansIn(q, id, from, to);
    const away = new Set(spans.map((s) => s.workerId)).size;
    if (people.length === size) {
      // The page is full: a next one has people if this subgerencia has any.
      if (away > 0) return done(null, true);
      continue;
    }
    if (away > 0 && before + away > skip) {
      const offset = Math.max(0, skip - before);
      const own = await peopleAwayIn(q, id, from, to, size - people.length, offset);
      people.push(...own);
      shown.push({ id, spans, people: away });
      if (offset + own.length < away) return done(i === units.length - 1 ? before + away : null, true);
    }
    before += away;
  }
  return done(before, false);
}
