import type { Queryable } from '../../db/types.ts';
import type { Amortization } from '../../domain/index.ts';
import { AMORTIZATION_COLUMNS, AMORTIZATIONS_TABLE } from '../amortizations/projector.ts';
import { selectList, toNumber, toNumberOrNull } from '../sql.ts';
import { VACATION_COLUMNS, VACATIONS_TABLE } from './projector.ts';

export interface VacationView {
  recordId: number;
  codigoPila: string;
  workerId: number;
  documentNumber: string;
  contractId: number | null;
  companyContractId: number | null;
  subgerenciaId: string | null;
  startDate: string;
  endDate: string;
  businessDays: number;
  calendarDays: number;
  salary: number;
  totalValue: number;
  advance: boolean;
  worksSaturday: boolean;
  compensated: boolean;
  socialSecurityInPayroll: boolean | null;
  approved: boolean;
  approvedAt: string | null;
  approvedBy: number | null;
  status: 'live' | 'deleted';
  deletedReason: 'delete' | 'edit' | null;
  deletedAt: string | null;
  deletedBy: number | null;
  replaces: string | null;
  replacedBy: string | null;
  createdAt: string | null;
  /** The first day not enjoyed, once interrupted (CST art. 188), and why. */
  interruptedOn: string | null;
  interruptionReason: string | null;
  /** The interrupted record whose days not enjoyed this one books. */
  continues: string | null;
  amortizations: Amortization[];
}

const SELECT = `SELECT ${selectList(VACATION_COLUMNS)} FROM ${VACATIONS_TABLE}`;

type Row = Record<string, unknown>;

/** A row of the vacations read model as the API shows it. */
export function toView(r: Row, amortizations: Amortization[]): VacationView {
  return {
    recordId: toNumber(r.record_id),
    codigoPila: r.codigo_pila as string,
    workerId: toNumber(r.worker_id),
    documentNumber: r.document_number as string,
    contractId: toNumberOrNull(r.contract_id),
    companyContractId: toNumberOrNull(r.company_contract_id),
    subgerenciaId: (r.subgerencia_id as string | null) ?? null,
    startDate: r.start_date as string,
    endDate: r.end_date as string,
    businessDays: toNumber(r.business_days),
    calendarDays: toNumber(r.calendar_days),
    salary: toNumber(r.salary),
    totalValue: toNumber(r.total_value),
    advance: r.advance as boolean,
    worksSaturday: r.works_saturday as boolean,
    compensated: r.compensated as boolean,
    socialSecurityInPayroll: (r.social_security_in_payroll as boolean | null) ?? null,
    approved: r.approved as boolean,
    approvedAt: (r.approved_at as string | null) ?? null,
    approvedBy: toNumberOrNull(r.approved_by),
    status: r.status as VacationView['status'],
    deletedReason: (r.deleted_reason as VacationView['deletedReason']) ?? null,
    deletedAt: (r.deleted_at as string | null) ?? null,
    deletedBy: toNumberOrNull(r.deleted_by),
    replaces: (r.replaces as string | null) ?? null,
    replacedBy: (r.replaced_by as string | null) ?? null,
    createdAt: (r.created_at as string | null) ?? null,
    interruptedOn: (r.interrupted_on as string | null) ?? null,
    interruptionReason: (r.interruption_reason as string | null) ?? null,
    continues: (r.continues as string | null) ?? null,
    amortizations,
  };
}

async function amortizationsOf(q: Queryable, codes: string[]): Promise<Map<string, Amortization[]>> {
  const out = new Map<string, Amortization[]>();
  if (codes.length === 0) return out;
  const r = await q.query<Row>(
    `SELECT ${selectList(AMORTIZATION_COLUMNS)} FROM ${AMORTIZATIONS_TABLE}
     WHERE codigo_pila = ANY($1::text[]) ORDER BY codigo_pila, periodo`,
    [codes],
  );
  for (const a of r.rows) {
    const list = out.get(a.codigo_pila as string) ?? [];
    list.push({
      periodo: a.periodo as string,
      diasHabiles: toNumber(a.dias_habiles),
      diasCalendario: toNumber(a.dias_calendario),
      valor: toNumber(a.valor),
    });
    out.set(a.codigo_pila as string, list);
  }
  return out;
}

async function withAmortizations(q: Queryable, rows: Row[]): Promise<VacationView[]> {
  const byCode = await amortizationsOf(
    q,
    rows.map((r) => r.codigo_pila as string),
  );
  return rows.map((r) => toView(r, byCode.get(r.codigo_pila as string) ?? []));
}

/** The record with that PILA code, live or deleted. */
export async function vacationByCode(q: Queryable, code: string): Promise<VacationView | undefined> {
  const r = await q.query<Row>(`${SELECT} WHERE codigo_pila = $1`, [code]);
  return (await withAmortizations(q, r.rows))[0];
}

/** A worker's records, oldest start first; deleted ones only when asked for. */
export async function vacationsOfWorker(q: Queryable, workerId: number, opts: { includeDeleted?: boolean } = {}): Promise<VacationView[]> {
  const r = await q.query<Row>(
    `${SELECT} WHERE worker_id = $1 ${opts.includeDeleted ? '' : `AND status = 'live'`}
     ORDER BY start_date, record_id`,
    [workerId],
  );
  return withAmortizations(q, r.rows);
}

export interface AwaitingApproval {
  codigoPila: string;
  workerId: number;
  documentNumber: string;
  name: string;
  subgerenciaId: string | null;
  startDate: string;
  endDate: string;
  businessDays: number;
  compensated: boolean;
}

/** Records waiting for approval counted one by one up to here; beyond, the count says "or more". */
export const AWAITING_COUNT_CAP = 10_000;

/**
 * Live records of these subgerencias (every one when `units` is null) not yet approved: how many
 * (up to AWAITING_COUNT_CAP, `capped` when there are that many or more), and the first `limit`
 * by start date, read from the partial index of the pending ones.
 */
export async function awaitingApproval(
  q: Queryable,
  units: readonly string[] | null,
  limit: number,
  cap = AWAITING_COUNT_CAP,
): Promise<{ total: number; capped: boolean; records: AwaitingApproval[] }> {
  const where = `v.status = 'live' AND NOT v.approved AND ($1::text[] IS NULL OR v.subgerencia_id = ANY($1::text[]))`;
  const [count, list] = await Promise.all([
    q.query<{ n: unknown }>(`SELECT count(*) AS n FROM (SELECT 1 FROM ${VACATIONS_TABLE} v WHERE ${where} LIMIT $2) x`, [units, cap]),
    q.query<Row>(
      `SELECT v.codigo_pila, v.worker_id, v.document_number, v.subgerencia_id, v.start_date, v.end_date, v.business_days,
              v.compensated, w.first_names, w.last_names
         FROM ${VACATIONS_TABLE} v LEFT JOIN ref_workers w ON w.id = v.worker_id
        WHERE ${where} ORDER BY v.start_date, v.record_id LIMIT $2`,
      [units, limit],
    ),
  ]);
  const total = toNumber(count.rows[0]?.n ?? 0);
  return {
    total,
    capped: total >= cap,
    records: list.rows.map((r) => ({
      codigoPila: r.codigo_pila as string,
      workerId: toNumber(r.worker_id),
      documentNumber: r.document_number as string,
      name: r.first_names ? `${r.first_names as string} ${r.last_names as string}` : (r.document_number as string),
      subgerenciaId: (r.subgerencia_id as string | null) ?? null,
      startDate: r.start_date as string,
      endDate: r.end_date as string,
      businessDays: toNumber(r.business_days),
      compensated: r.compensated as boolean,
    })),
  };
}
