import type { Queryable } from '../../db/types.ts';
import type { LiabilityRecord } from '../../domain/index.ts';
import { selectList, toNumber, toNumberOrNull } from '../sql.ts';
import { REGISTER_COLUMNS, REGISTER_TABLE } from './projector.ts';
import { VACATIONS_TABLE } from '../vacations/projector.ts';

/** One version of a record in the register. */
export interface RegisterEntry {
  codigoPila: string;
  recordId: number;
  workerId: number;
  contractId: number | null;
  subgerenciaId: string | null;
  startDate: string;
  endDate: string;
  businessDays: number;
  calendarDays: number;
  salary: number;
  totalValue: number;
  compensated: boolean;
  advance: boolean;
  approved: boolean;
  interruptedOn: string | null;
  interruptionReason: string | null;
  continues: string | null;
  /** The business day this version became the record's state. */
  recordedOn: string;
}

export const toEntry = (r: Record<string, unknown>): RegisterEntry => ({
  codigoPila: r.codigo_pila as string,
  recordId: toNumber(r.record_id),
  workerId: toNumber(r.worker_id),
  contractId: toNumberOrNull(r.contract_id),
  subgerenciaId: (r.subgerencia_id as string | null) ?? null,
  startDate: r.start_date as string,
  endDate: r.end_date as string,
  businessDays: toNumber(r.business_days),
  calendarDays: toNumber(r.calendar_days),
  salary: toNumber(r.salary),
  totalValue: toNumber(r.total_value),
  compensated: r.compensated as boolean,
  advance: r.advance as boolean,
  approved: r.approved as boolean,
  interruptedOn: (r.interrupted_on as string | null) ?? null,
  interruptionReason: (r.interruption_reason as string | null) ?? null,
  continues: (r.continues as string | null) ?? null,
  recordedOn: r.recorded_on as string,
});

const ORDER = 'ORDER BY r.worker_id, r.start_date, r.record_id';

/** A worker's live records as they stand now, oldest start first: one indexed lookup. */
export async function liveRegisterOf(q: Queryable, workerId: number): Promise<RegisterEntry[]> {
  const r = await q.query<Record<string, unknown>>(
    `SELECT ${selectList(REGISTER_COLUMNS, 'r')} FROM ${REGISTER_TABLE} r WHERE r.worker_id = $1 AND r.superseded_on IS NULL ${ORDER}`,
    [workerId],
  );
  return r.rows.map(toEntry);
}

/** Register entries by worker, each worker's in the order read. */
export function byWorker<E extends Pick<RegisterEntry, 'workerId'>>(entries: readonly E[]): Map<number, E[]> {
  const out = new Map<number, E[]>();
  for (const r of entries) {
    const list = out.get(r.workerId);
    if (list) list.push(r);
    else out.set(r.workerId, [r]);
  }
  return out;
}

/** These workers' live records as they stand now, oldest start first, by worker: one indexed query. */
export async function liveRegisterOfWorkers(q: Queryable, workerIds: readonly number[]): Promise<RegisterEntry[]> {
  if (workerIds.length === 0) return [];
  const r = await q.query<Record<string, unknown>>(
    `SELECT ${selectList(REGISTER_COLUMNS, 'r')} FROM ${REGISTER_TABLE} r
      WHERE r.worker_id = ANY($1::bigint[]) AND r.superseded_on IS NULL ${ORDER}`,
    [workerIds],
  );
  return r.rows.map(toEntry);
}

/** The workers with a version of a record recorded or superseded on `day` or after it. */
export async function workersRecordedSince(q: Queryable, day: string): Promise<number[]> {
  const r = await q.query<{ worker_id: string }>(
    `SELECT DISTINCT worker_id FROM ${REGISTER_TABLE} WHERE recorded_on >= $1::date OR superseded_on >= $1::date`,
    [day],
  );
  return r.rows.map((row) => Number(row.worker_id));
}

/**
 * The live records of these workers as the register stood at the end of `asOf`: the versions
 * recorded by then and not yet superseded on that day. Oldest start first, by worker.
 */
export async function registerAsOf(q: Queryable, workerIds: readonly number[], asOf: string): Promise<RegisterEntry[]> {
  if (workerIds.length === 0) return [];
  const r = await q.query<Record<string, unknown>>(
    `SELECT ${selectList(REGISTER_COLUMNS, 'r')} FROM ${REGISTER_TABLE} r
      WHERE r.worker_id = ANY($1::bigint[]) AND r.recorded_on <= $2::date AND (r.superseded_on IS NULL OR r.superseded_on > $2::date)
      ${ORDER}`,
    [workerIds, asOf],
  );
  return r.rows.map(toEntry);
}

/**
 * These workers' live records as the liability counts them (src/domain/liability.ts), by worker,
 * oldest start first: the fields it reads alone, each with whether its worker's week runs through
 * Saturday (kept by the vacations read model). One indexed query; a page of a company's workers
 * reads only its own rows.
 */
export async function liabilityRecordsOfWorkers(q: Queryable, workerIds: readonly number[]): Promise<Map<number, LiabilityRecord[]>> {
  const out = new Map<number, LiabilityRecord[]>();
  if (workerIds.length === 0) return out;
  const r = await q.query<LiabilityRow>(
    // A lookup a record rather than a join: for a page of workers the planner hashed the whole
    // vacations table, a cost that grows with the company instead of the page.
    `SELECT r.worker_id, r.codigo_pila, r.record_id, r.start_date, r.end_date, r.business_days, r.compensated,
            coalesce((SELECT v.works_saturday FROM ${VACATIONS_TABLE} v WHERE v.codigo_pila = r.codigo_pila), false) AS works_saturday
       FROM ${REGISTER_TABLE} r
      WHERE r.worker_id = ANY($1::bigint[]) AND r.superseded_on IS NULL ${ORDER}`,
    [workerIds],
  );
  for (const row of r.rows) {
    const record: LiabilityRecord = {
      key: row.codigo_pila,
      order: Number(row.record_id),
      startDate: row.start_date,
      days: Number(row.business_days),
      compensated: row.compensated,
      endDate: row.end_date,
      worksSaturday: row.works_saturday,
    };
    const id = Number(row.worker_id);
    const list = out.get(id);
    if (list) list.push(record);
    else out.set(id, [record]);
  }
  return out;
}

interface LiabilityRow {
  worker_id: string;
  codigo_pila: string;
  record_id: string;
  start_date: string;
  end_date: string;
  business_days: number;
  compensated: boolean;
  works_saturday: boolean;
}
