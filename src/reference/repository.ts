import { intern } from '../caching/intern.ts';
import type { Queryable } from '../db/types.ts';
import { workerFileByDocument, type WorkerFileRow } from './worker-files.ts';

export interface Worker {
  id: number;
  documentType: string;
  documentNumber: string;
  firstNames: string;
  lastNames: string;
}

export interface Contract {
  id: number;
  workerId: number;
  companyContractId: number | null;
  subgerenciaId: string;
  startDate: string | null;
  endDate: string | null;
  settled: boolean;
  additional: boolean;
  baseSalary: number;
  riskLevel: number | null;
  /**
   * Technical, specialised, trusted or managerial staff, who may accumulate vacations for four
   * years instead of two (CST art. 190).
   */
  technicalOrTrusted: boolean;
  /** Vacations are paid at the average of the year before, not the base salary (CST art. 192 §2). */
  variableSalary: boolean;
}

/** A payroll sheet as the reference table holds it. */
export interface PayrollRow {
  contractId: number;
  workerId: number;
  periodStart: string;
  periodEnd: string;
  daysWorked: number;
  basicCompensation: number;
}

export interface VacationParams {
  annualDays: number;
  annualDaysHighRisk: number;
  minEnjoyedDays: number;
  advanceAllowed: boolean;
  maxAdvanceDays: number;
  maxPeopleOnVacation: number | null;
  /**
   * 'half': while the contract is in force, at most half of each accrual period's days may be paid
   * in money (CST art. 189, Ley 1429 de 2010 art. 20). null: no limit of the service's own.
   */
  compensationLimit: 'half' | null;
}

export interface CompanyContract {
  id: number;
  name: string;
  /** Null when the company contract has no vacation rules of its own. */
  vacationParams: VacationParams | null;
}

export interface User {
  id: number;
  email: string;
  name: string;
  isAdmin: boolean;
  permissions: string[];
}

/**
 * One worker as the reference tables hold it: contracts, payroll sheets and the company contracts
 * (the import reads it; requests read the per-worker read model).
 */
export interface WorkerRecords {
  worker: Worker;
  contracts: Contract[];
  sheets: PayrollRow[];
  companyContracts: Map<number, CompanyContract>;
}

/** What requests look up by the names callers give: one indexed row read each, or a cache hit. */
export interface ReferenceLookups {
  /** The worker's row of the per-worker read model: contracts, company rules, payroll folded. */
  workerFileByDocument(documentNumber: string): Promise<WorkerFileRow | null>;
  workerByDocument(documentNumber: string): Promise<Worker | null>;
  userByEmail(email: string): Promise<User | null>;
}

/** The read side of the reference data, read from its own tables. */
export interface ReferenceReader {
  workerByDocument(documentNumber: string): Promise<Worker | null>;
  workerById(id: number): Promise<Worker | null>;
  userByEmail(email: string): Promise<User | null>;
  contractsOf(workerId: number): Promise<Contract[]>;
  payrollSheetsOf(workerId: number): Promise<PayrollRow[]>;
  companyContract(id: number): Promise<CompanyContract | null>;
  companyContracts(ids: number[]): Promise<Map<number, CompanyContract>>;
  workerRecords(workerId: number): Promise<WorkerRecords | null>;
  version(): Promise<number>;
}

type Row = Record<string, unknown>;

const num = (v: unknown): number => Number(v);
const numOrNull = (v: unknown): number | null => (v === null || v === undefined ? null : Number(v));

const WORKER_COLUMNS = 'id, document_type, document_number, first_names, last_names';
const CONTRACT_COLUMNS =
  'id, worker_id, company_contract_id, subgerencia_id, start_date, end_date, settled, additional, base_salary, risk_level, ' +
  'technical_or_trusted, variable_salary';
const SHEET_COLUMNS = 'contract_id, worker_id, period_start, period_end, days_worked, basic_compensation';
const COMPANY_COLUMNS =
  'id, name, has_vacation_params, annual_days, annual_days_high_risk, min_enjoyed_days, advance_allowed, ' +
  'max_advance_days, max_people_on_vacation, compensation_limit';

function toWorker(r: Row): Worker {
  return {
    id: num(r.id),
    documentType: String(r.document_type),
    documentNumber: String(r.document_number),
    firstNames: String(r.first_names),
    lastNames: String(r.last_names),
  };
}

function toContract(r: Row): Contract {
  return {
    id: num(r.id),
    workerId: num(r.worker_id),
    companyContractId: numOrNull(r.company_contract_id),
    subgerenciaId: String(r.subgerencia_id),
    startDate: r.start_date == null ? null : date(r.start_date),
    endDate: r.end_date == null ? null : date(r.end_date),
    settled: Boolean(r.settled),
    additional: Boolean(r.additional),
    baseSalary: num(r.base_salary),
    riskLevel: numOrNull(r.risk_level),
    technicalOrTrusted: Boolean(r.technical_or_trusted),
    variableSalary: Boolean(r.variable_salary),
  };
}

/**
 * Payroll periods repeat across every worker (the same fortnights), and cached worker files hold
 * hundreds of thousands of them: one shared string per date instead of one per row.
 */
const date = (v: unknown): string => intern(String(v));

function toSheet(r: Row): PayrollRow {
  return {
    contractId: num(r.contract_id),
    workerId: num(r.worker_id),
    periodStart: date(r.period_start),
    periodEnd: date(r.period_end),
    daysWorked: num(r.days_worked),
    basicCompensation: num(r.basic_compensation),
  };
}

function toCompanyContract(r: Row): CompanyContract {
  return {
    id: num(r.id),
    name: String(r.name),
    vacationParams: r.has_vacation_params
      ? {
          annualDays: num(r.annual_days),
          annualDaysHighRisk: num(r.annual_days_high_risk),
          minEnjoyedDays: num(r.min_enjoyed_days),
          advanceAllowed: Boolean(r.advance_allowed),
          maxAdvanceDays: num(r.max_advance_days),
          maxPeopleOnVacation: numOrNull(r.max_people_on_vacation),
          compensationLimit: r.compensation_limit === 'half' ? 'half' : null,
        }
      : null,
  };
}

function toUser(r: Row): User {
  return {
    id: num(r.id),
    email: String(r.email),
    name: String(r.name),
    isAdmin: Boolean(r.is_admin),
    permissions: [...((r.permissions as string[] | null) ?? [])],
  };
}

/** Reads the reference tables written by the import; every result uses the service's names. */
export class ReferenceRepository implements ReferenceReader, ReferenceLookups {
  constructor(readonly db: Queryable) {}

  workerFileByDocument(documentNumber: string): Promise<WorkerFileRow | null> {
    return workerFileByDocument(this.db, documentNumber);
  }

  async workerByDocument(documentNumber: string): Promise<Worker | null> {
    const r = await this.db.query<Row>(`SELECT ${WORKER_COLUMNS} FROM ref_workers WHERE document_number = $1`, [documentNumber.trim()]);
    return r.rows[0] ? toWorker(r.rows[0]) : null;
  }

  /**
   * Workers by id, a page at a time after `after` (0 for the first page): every worker, or those
   * with a contract in a subgerencia. Each page is one index walk from where the last ended.
   */
  async workersPage(opts: { after: number; limit: number; subgerencia?: string }): Promise<Worker[]> {
    const inUnit =
      opts.subgerencia === undefined
        ? ''
        : 'AND EXISTS (SELECT 1 FROM ref_contracts c WHERE c.worker_id = ref_workers.id AND c.subgerencia_id = $3)';
    const r = await this.db.query<Row>(
      `SELECT ${WORKER_COLUMNS} FROM ref_workers WHERE id > $1 ${inUnit} ORDER BY id LIMIT $2`,
      opts.subgerencia === undefined ? [opts.after, opts.limit] : [opts.after, opts.limit, opts.subgerencia],
    );
    return r.rows.map(toWorker);
  }

  /** These workers, in id order: one indexed read. */
  async workersByIds(ids: readonly number[]): Promise<Worker[]> {
    if (ids.length === 0) return [];
    const r = await this.db.query<Row>(`SELECT ${WORKER_COLUMNS} FROM ref_workers WHERE id = ANY($1::bigint[]) ORDER BY id`, [ids]);
    return r.rows.map(toWorker);
  }

  async workerById(id: number): Promise<Worker | null> {
    const r = await this.db.query<Row>(`SELECT ${WORKER_COLUMNS} FROM ref_workers WHERE id = $1`, [id]);
    return r.rows[0] ? toWorker(r.rows[0]) : null;
  }

  async userByEmail(email: string): Promise<User | null> {
    // lower(email) is what the unique index covers, so this is an index lookup.
    const r = await this.db.query<Row>('SELECT id, email, name, is_admin, permissions FROM ref_users WHERE lower(email) = lower($1)', [
      email.trim(),
    ]);
    return r.rows[0] ? toUser(r.rows[0]) : null;
  }

  async contractsOf(workerId: number): Promise<Contract[]> {
    const r = await this.db.query<Row>(
      `SELECT ${CONTRACT_COLUMNS} FROM ref_contracts WHERE worker_id = $1 ORDER BY start_date NULLS FIRST, id`,
      [workerId],
    );
    return r.rows.map(toContract);
  }

  async payrollSheetsOf(workerId: number): Promise<PayrollRow[]> {
    const r = await this.db.query<Row>(
      `SELECT ${SHEET_COLUMNS} FROM ref_payroll_sheets WHERE worker_id = $1 ORDER BY period_start, contract_id`,
      [workerId],
    );
    return r.rows.map(toSheet);
  }

  async companyContract(id: number): Promise<CompanyContract | null> {
    const r = await this.db.query<Row>(`SELECT ${COMPANY_COLUMNS} FROM ref_company_contracts WHERE id = $1`, [id]);
    return r.rows[0] ? toCompanyContract(r.rows[0]) : null;
  }

  async companyContracts(ids: number[]): Promise<Map<number, CompanyContract>> {
    const out = new Map<number, CompanyContract>();
    if (ids.length === 0) return out;
    const r = await this.db.query<Row>(`SELECT ${COMPANY_COLUMNS} FROM ref_company_contracts WHERE id = ANY($1::bigint[])`, [
      [...new Set(ids)],
    ]);
    for (const row of r.rows) {
      const c = toCompanyContract(row);
      out.set(c.id, c);
    }
    return out;
  }

  /**
   * Worker, contracts, payroll and the contracts' company rules: three queries, one after the
   * other, because the Queryable may be a single connection inside a transaction (the import).
   */
  async workerRecords(workerId: number): Promise<WorkerRecords | null> {
    const worker = await this.workerById(workerId);
    if (!worker) return null;
    return (await this.filesOf([worker]))[0]!;
  }

  /**
   * The files of the given workers (those that exist) in two queries, without their payroll
   * sheets: what the import needs to value historic vacations.
   */
  async workerRecordsWithoutPayroll(ids: number[]): Promise<WorkerRecords[]> {
    if (ids.length === 0) return [];
    const r = await this.db.query<Row>(`SELECT ${WORKER_COLUMNS} FROM ref_workers WHERE id = ANY($1::bigint[])`, [ids]);
    return this.filesOf(r.rows.map(toWorker), false);
  }

  private async filesOf(workers: Worker[], withSheets = true): Promise<WorkerRecords[]> {
    if (workers.length === 0) return [];
    const ids = workers.map((w) => w.id);
    const contracts = await this.db.query<Row>(
      `SELECT ${CONTRACT_COLUMNS.split(', ')
        .map((c) => `c.${c}`)
        .join(', ')},
                ${COMPANY_COLUMNS.split(', ')
                  .map((c) => `cc.${c} AS cc_${c}`)
                  .join(', ')}
         FROM ref_contracts c LEFT JOIN ref_company_contracts cc ON cc.id = c.company_contract_id
         WHERE c.worker_id = ANY($1::bigint[]) ORDER BY c.worker_id, c.start_date NULLS FIRST, c.id`,
      [ids],
    );
    const sheets = withSheets
      ? await this.db.query<Row>(
          `SELECT ${SHEET_COLUMNS} FROM ref_payroll_sheets
            WHERE worker_id = ANY($1::bigint[]) ORDER BY worker_id, period_start, contract_id`,
          [ids],
        )
      : { rows: [] };
    const files = new Map<number, WorkerRecords>(
      workers.map((worker) => [worker.id, { worker, contracts: [], sheets: [], companyContracts: new Map() }]),
    );
    for (const row of contracts.rows) {
      const file = files.get(num(row.worker_id))!;
      file.contracts.push(toContract(row));
      if (row.cc_id === null || row.cc_id === undefined) continue;
      const prefixed = Object.fromEntries(
        Object.entries(row)
          .filter(([k]) => k.startsWith('cc_'))
          .map(([k, v]) => [k.slice(3), v]),
      );
      const cc = toCompanyContract(prefixed);
      file.companyContracts.set(cc.id, cc);
    }
    for (const row of sheets.rows) files.get(num(row.worker_id))!.sheets.push(toSheet(row));
    return [...files.values()];
  }

  async version(): Promise<number> {
    const r = await this.db.query<{ version: string }>('SELECT version FROM ref_version WHERE id = 1');
    return Number(r.rows[0]?.version ?? 0);
  }

  async subgerenciaExists(id: string): Promise<boolean> {
    const r = await this.db.query('SELECT 1 FROM ref_subgerencias WHERE id = $1', [id]);
    return r.rows.length > 0;
  }

  /** The reference data's version and when an import last changed it (ISO; null before any). */
  async lastImport(): Promise<{ version: number; changedAt: string | null }> {
    const r = await this.db.query<{ version: string; changed_at: string | Date | null }>(
      'SELECT version::text, changed_at FROM ref_version WHERE id = 1',
    );
    const row = r.rows[0];
    return { version: Number(row?.version ?? 0), changedAt: row?.changed_at ? new Date(row.changed_at).toISOString() : null };
  }
}
