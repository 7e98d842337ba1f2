import type { Queryable } from '../db/types.ts';
import {
  COMPANY_COLUMNS,
  CONTRACT_COLUMNS,
  SHEET_COLUMNS,
  WORKER_COLUMNS,
  num,
  toCompanyContract,
  toContract,
  toSheet,
  toUser,
  toWorker,
  type Row,
} from './rows.ts';
import type { CompanyContract, Contract, PayrollRow, User, Worker, WorkerRecords } from './types.ts';
import { workerFileByDocument, type WorkerFileRow } from './worker-files.ts';

export type { CompanyContract, Contract, PayrollRow, User, VacationParams, Worker, WorkerRecords } from './types.ts';

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
