import type { Queryable } from '../../db/types.ts';
import { REGISTER_TABLE } from '../register/projector.ts';
import { toNumber } from '../sql.ts';
import { scopeConditions } from './novelty-queries.ts';

/**
 * What the DIAN's electronic payroll document of a month reports of vacations
 * (Devengados/Vacaciones): vacations are paid with the payroll of the month in which they start,
 * so month M holds every live record whose start date is in M, as the register stood at the
 * cut-off. A continuation of an interrupted vacation was paid with the original and is left
 * out; the original is reported as it was paid, with its whole days and value, which its
 * interrupted version no longer holds (the register keeps there the days enjoyed): they are
 * taken from the latest version before the interruption.
 */

export interface ElectronicPayrollFilter {
  /** `YYYY-MM`. */
  month: string;
  /** The register as it stood at the end of this business day. */
  asOf: string;
  subgerenciaId?: string;
  workerId?: number;
}

/** One vacation as it was paid. */
export interface PaidVacation {
  codigoPila: string;
  startDate: string;
  endDate: string;
  businessDays: number;
  /** Pesos. */
  value: number;
}

export interface WorkerPaidVacations {
  workerId: number;
  documentType: string;
  documentNumber: string;
  enjoyed: PaidVacation[];
  compensated: PaidVacation[];
}

/** Register rows a read takes: a page of some hundreds of kilobytes whatever the month's size. */
const PAGE = 5000;

/** The first day of the month after `YYYY-MM`. */
function nextMonth(month: string): string {
  const [y, m] = month.split('-').map(Number) as [number, number];
  return m === 12 ? `${y + 1}-01-01` : `${y}-${String(m + 1).padStart(2, '0')}-01`;
}

interface Key {
  worker: number;
  start: string;
  code: string;
}

/**
 * One page of the month's rows after `after`, in worker, start and code order. The month's rows
 * are found through the register's index by start date (rm_register_start); the version an
 * interruption replaced through the primary key, only for the records interrupted.
 */
async function page(q: Queryable, f: ElectronicPayrollFilter, after: Key | null, limit: number): Promise<Record<string, unknown>[]> {
  const params: unknown[] = [`${f.month}-01`, nextMonth(f.month), f.asOf];
  const conditions = [
    'r.start_date >= $1::date',
    'r.start_date < $2::date',
    'r.continues IS NULL',
    'r.recorded_on <= $3::date',
    '(r.superseded_on IS NULL OR r.superseded_on > $3::date)',
  ];
  conditions.push(...scopeConditions(f, params));
  if (after !== null) {
    params.push(after.worker, after.start, after.code);
    const n = params.length;
    conditions.push(`(r.worker_id, r.start_date, r.codigo_pila) > ($${n - 2}::bigint, $${n - 1}::date, $${n}::text)`);
  }
  params.push(limit);
  const r = await q.query<Record<string, unknown>>(
    `SELECT r.worker_id, r.codigo_pila, r.start_date, r.compensated,
            coalesce(p.end_date, r.end_date) AS end_date,
            coalesce(p.business_days, r.business_days) AS business_days,
            coalesce(p.total_value, r.total_value) AS total_value,
            w.document_type, w.document_number
       FROM ${REGISTER_TABLE} r
       JOIN ref_workers w ON w.id = r.worker_id
       LEFT JOIN LATERAL (
         SELECT o.end_date, o.business_days, o.total_value FROM ${REGISTER_TABLE} o
          WHERE r.interrupted_on IS NOT NULL AND o.codigo_pila = r.codigo_pila AND o.revision < r.revision AND o.interrupted_on IS NULL
          ORDER BY o.revision DESC LIMIT 1
       ) p ON true
      WHERE ${conditions.join(' AND ')}
      ORDER BY r.worker_id, r.start_date, r.codigo_pila
      LIMIT $${params.length}`,
    params,
  );
  return r.rows;
}

/**
 * The month's paid vacations, one worker at a time in worker order (only workers with one),
 * read a page of rows at a time: never a query per worker, never the month in memory.
 */
export async function* monthPaidVacations(q: Queryable, f: ElectronicPayrollFilter, limit = PAGE): AsyncGenerator<WorkerPaidVacations> {
  let current: WorkerPaidVacations | null = null;
  let after: Key | null = null;
  for (;;) {
    const rows = await page(q, f, after, limit);
    for (const row of rows) {
      const worker = toNumber(row.worker_id);
      if (current === null || current.workerId !== worker) {
        if (current !== null) yield current;
        current = {
          workerId: worker,
          documentType: row.document_type as string,
          documentNumber: row.document_number as string,
          enjoyed: [],
          compensated: [],
        };
      }
      const v: PaidVacation = {
        codigoPila: row.codigo_pila as string,
        startDate: row.start_date as string,
        endDate: row.end_date as string,
        businessDays: toNumber(row.business_days),
        value: toNumber(row.total_value),
      };
      (row.compensated ? current.compensated : current.enjoyed).push(v);
    }
    if (rows.length < limit) break;
    const last = rows[rows.length - 1]!;
    after = { worker: toNumber(last.worker_id), start: last.start_date as string, code: last.codigo_pila as string };
  }
  if (current !== null) yield current;
}
