import type { Queryable } from '../db/types.ts';
import { LEAVE_KINDS, fromDayNumber, type Payroll, type PayrollLeave } from '../domain/index.ts';
import type { CompanyContract, Contract, Worker } from './types.ts';

/**
 * The per-worker read model (rm_workers): everything consult, calculate and the contract check
 * need about one worker, found by document number in one indexed row read. The reference import
 * keeps it current in its own transaction (refreshWorkerFiles); vac_worker_rows, a database
 * function (vac-worker-rows.ts), computes the rows from the reference tables.
 */
export interface WorkerFileRow {
  worker: Worker;
  /** In the order the rules rank them from: start date (a missing one first), then id. */
  contracts: Contract[];
  /** The company contracts of those contracts, by id. */
  companyContracts: ReadonlyMap<number, CompanyContract>;
  payroll: Payroll;
}

interface StoredContract extends Omit<Contract, 'workerId'> {
  company: CompanyContract | null;
}

type Row = {
  worker_id: string;
  document_number: string;
  document_type: string;
  first_names: string;
  last_names: string;
  contracts: StoredContract[];
  /**
   * The row's payroll sheets, one entry a sheet, read as one JSON array (parsed natively, where the
   * driver's parser of PostgreSQL array text costs twice the time): the contract each names, its
   * first and last day (days since 1970-01-01), its days worked and its pay.
   */
  sheets: [contracts: (string | number)[], starts: number[], ends: number[], days: number[], pay: (string | number)[]];
  /** The sheets' leave, five lists in LEAVE_KINDS order beside the sheets'; null when none has any. */
  sheet_leave: number[][] | null;
};

const COLUMNS =
  'worker_id, document_number, document_type, first_names, last_names, contracts, ' +
  'json_build_array(sheet_contracts, sheet_starts, sheet_ends, sheet_days, sheet_pay) AS sheets, sheet_leave';
const DATA = [
  'document_number',
  'document_type',
  'first_names',
  'last_names',
  'contracts',
  'sheet_contracts',
  'sheet_starts',
  'sheet_ends',
  'sheet_days',
  'sheet_pay',
  'sheet_leave',
];

/**
 * How a row's repeated parts are made: its day names from day numbers, its lists of numbers, its
 * short texts (subgerencias, dates, document types) and its set of company contracts. Plain here;
 * the reference cache passes its own (src/caching/worker-file-entry.ts), which holds what many
 * rows have alike once.
 */
export interface WorkerFileParts {
  days(numbers: readonly number[]): readonly string[];
  numbers(list: readonly (number | string)[]): readonly number[];
  text(s: string): string;
  companies(found: readonly CompanyContract[]): ReadonlyMap<number, CompanyContract>;
}

export const PLAIN_PARTS: WorkerFileParts = {
  days: (numbers) => numbers.map(fromDayNumber),
  numbers: (list) => list.map(Number),
  text: (s) => s,
  companies: (found) => new Map(found.map((c) => [c.id, c])),
};

function toFile(r: Row, parts: WorkerFileParts): WorkerFileRow {
  const workerId = Number(r.worker_id);
  const found: CompanyContract[] = [];
  const text = (s: string | null): string | null => (s === null ? null : parts.text(s));
  const contracts = r.contracts.map(({ company, ...c }): Contract => {
    if (company) found.push(company);
    return {
      id: c.id,
      workerId,
      companyContractId: c.companyContractId,
      subgerenciaId: parts.text(c.subgerenciaId),
      startDate: text(c.startDate),
      endDate: text(c.endDate),
      settled: c.settled,
      additional: c.additional,
      baseSalary: c.baseSalary,
      riskLevel: c.riskLevel,
      technicalOrTrusted: c.technicalOrTrusted,
      variableSalary: c.variableSalary ?? false,
    };
  });
  const [sheetContracts, starts, ends, days, pay] = r.sheets;
  const index = new Map(contracts.map((c, i) => [c.id, i]));
  return {
    worker: {
      id: workerId,
      documentType: parts.text(r.document_type),
      documentNumber: r.document_number,
      firstNames: r.first_names,
      lastNames: r.last_names,
    },
    contracts,
    companyContracts: parts.companies(found),
    payroll: {
      contract: parts.numbers(sheetContracts.map((id) => index.get(Number(id)) ?? -1)),
      starts: parts.days(starts),
      ends: parts.days(ends),
      days: parts.numbers(days),
      pay: parts.numbers(pay),
      ...(r.sheet_leave && {
        leave: Object.fromEntries(LEAVE_KINDS.map((k, i) => [k, parts.numbers(r.sheet_leave![i]!)])) as unknown as PayrollLeave,
      }),
    },
  };
}

const plainFile = (r: Row): WorkerFileRow => toFile(r, PLAIN_PARTS);

/** The worker with this document number (trimmed), from the read model. */
export async function workerFileByDocument(q: Queryable, documentNumber: string): Promise<WorkerFileRow | null> {
  const r = await q.query<Row>(`SELECT ${COLUMNS} FROM rm_workers WHERE document_number = $1 LIMIT 1`, [documentNumber.trim()]);
  return r.rows[0] ? plainFile(r.rows[0]) : null;
}

/** The workers with these document numbers (trimmed), in one query, by document number; missing ones are left out. */
export async function workerFilesByDocuments(
  q: Queryable,
  documentNumbers: readonly string[],
  parts: WorkerFileParts = PLAIN_PARTS,
): Promise<Map<string, WorkerFileRow>> {
  const r = await q.query<Row>(
    `SELECT ${COLUMNS} FROM rm_workers WHERE document_number = ANY($1::text[])`,
    [[...new Set(documentNumbers.map((d) => d.trim()))]],
    { prepare: true },
  );
  return new Map(r.rows.map((row) => [row.document_number, toFile(row, parts)]));
}

/** The rows of these workers, in one query; workers no longer in the reference data are left out. */
export async function workerFilesByIds(q: Queryable, workerIds: readonly number[]): Promise<WorkerFileRow[]> {
  const r = await q.query<Row>(`SELECT ${COLUMNS} FROM rm_workers WHERE worker_id = ANY($1::bigint[]) ORDER BY worker_id`, [
    workerIds.map(String),
  ]);
  return r.rows.map(plainFile);
}

/** Every row in worker order: what a test compares with a rebuild. */
export async function allWorkerFiles(q: Queryable): Promise<WorkerFileRow[]> {
  return (await q.query<Row>(`SELECT ${COLUMNS} FROM rm_workers ORDER BY worker_id`)).rows.map(plainFile);
}

/** Workers whose rows changed after reference data version `version`, with their document numbers now. */
export async function workersChangedSince(q: Queryable, version: number): Promise<{ workerId: number; documentNumber: string }[]> {
  const r = await q.query<{ worker_id: string; document_number: string }>(
    'SELECT worker_id, document_number FROM rm_workers WHERE version > $1',
    [version],
  );
  return r.rows.map((row) => ({ workerId: Number(row.worker_id), documentNumber: row.document_number }));
}

/**
 * Writes the rows of the workers `ids` selects (a query of one column of worker ids) as the
 * reference tables have them now, stamped with `version`. A row that would not change is left
 * alone, version included, so that an import changing nothing of a worker does not make caches
 * drop that worker. Resolves to the number of rows written.
 */
export async function refreshWorkerFiles(q: Queryable, ids: string, version: number): Promise<number> {
  const data = DATA;
  // Grouping every sheet of a large import by worker and date fits in memory instead of on disk.
  await q.query(`SET LOCAL work_mem = '64MB'`);
  const r = await q.query<{ n: number }>(
    `WITH written AS (
       INSERT INTO rm_workers (worker_id, ${data.join(', ')}, version)
       SELECT f.*, $1::bigint FROM vac_worker_rows(ARRAY(${ids})) f
       ON CONFLICT (worker_id) DO UPDATE SET ${data.map((c) => `${c} = EXCLUDED.${c}`).join(', ')}, version = EXCLUDED.version
       WHERE (${data.map((c) => `rm_workers.${c}`).join(', ')}) IS DISTINCT FROM (${data.map((c) => `EXCLUDED.${c}`).join(', ')})
       RETURNING 1
     ) SELECT count(*)::int AS n FROM written`,
    [version],
  );
  return Number(r.rows[0]?.n ?? 0);
}

/** Every worker's row computed again from the reference tables, as a full rebuild would write it. */
export async function rebuiltWorkerFiles(q: Queryable): Promise<WorkerFileRow[]> {
  return (await q.query<Row>(`SELECT ${COLUMNS} FROM vac_worker_rows(ARRAY(SELECT id FROM ref_workers)) ORDER BY worker_id`)).rows.map(
    plainFile,
  );
}

/**
 * The next `limit` rows after worker `afterWorkerId`, in worker order (a cursor over the primary
 * key), optionally only workers holding a contract of one subgerencia: what a read of every
 * worker goes through page by page, so that it never holds more than one page.
 */
export async function workerFilesPage(
  q: Queryable,
  afterWorkerId: number,
  limit: number,
  subgerenciaId?: string,
): Promise<WorkerFileRow[]> {
  const params: unknown[] = [afterWorkerId, limit];
  let where = 'worker_id > $1';
  if (subgerenciaId !== undefined) {
    params.push(JSON.stringify([{ subgerenciaId }]));
    where += ' AND contracts @> $3::jsonb';
  }
  const r = await q.query<Row>(`SELECT ${COLUMNS} FROM rm_workers WHERE ${where} ORDER BY worker_id LIMIT $2`, params);
  return r.rows.map(plainFile);
}

/**
 * The rows of every worker holding a contract in these subgerencias or under this company
 * contract (any date: the caller judges which contract governs), in worker order: one query over
 * the contracts' subgerencia index and the read model's key.
 */
export async function workerFilesInScope(
  q: Queryable,
  scope: { subgerenciaIds: readonly string[]; companyContractId: number | null },
  parts: WorkerFileParts = PLAIN_PARTS,
): Promise<WorkerFileRow[]> {
  const r = await q.query<Row>(
    `SELECT ${COLUMNS} FROM rm_workers
      WHERE worker_id IN (SELECT c.worker_id FROM ref_contracts c
                           WHERE c.subgerencia_id = ANY($1::text[]) OR c.company_contract_id = $2::bigint)
      ORDER BY worker_id`,
    [[...scope.subgerenciaIds], scope.companyContractId],
  );
  return r.rows.map((row) => toFile(row, parts));
}

/** Which of these workers' rows changed after reference data version `version`. */
export async function workersChangedAmong(q: Queryable, version: number, workerIds: readonly number[]): Promise<number[]> {
  if (workerIds.length === 0) return [];
  const r = await q.query<{ worker_id: string }>('SELECT worker_id FROM rm_workers WHERE version > $1 AND worker_id = ANY($2::bigint[])', [
    version,
    workerIds.map(String),
  ]);
  return r.rows.map((row) => Number(row.worker_id));
}

/** The subgerencias, or the company contract, of a scope that the reference data does not hold. */
export async function unknownInScope(
  q: Queryable,
  scope: { subgerenciaIds: readonly string[]; companyContractId: number | null },
): Promise<{ subgerencias: string[]; companyContract: boolean }> {
  const known = await q.query<{ id: string }>('SELECT id FROM ref_subgerencias WHERE id = ANY($1::text[])', [[...scope.subgerenciaIds]]);
  const have = new Set(known.rows.map((r) => r.id));
  const company =
    scope.companyContractId === null
      ? true
      : (await q.query('SELECT 1 FROM ref_company_contracts WHERE id = $1', [scope.companyContractId])).rows.length > 0;
  return { subgerencias: scope.subgerenciaIds.filter((s) => !have.has(s)), companyContract: !company };
}
