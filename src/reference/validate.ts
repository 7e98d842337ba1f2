import type { z } from 'zod';
import type { Queryable } from '../db/types.ts';
import {
  SECTION_NAMES,
  formatIssue,
  referenceDataSchema,
  rowSchemas,
  type ReferenceData,
  type SectionName,
} from './schema.ts';

/** The file was refused; `problems` has one `path: reason` line per defect, nothing was written. */
export class ImportValidationError extends Error {
  override name = 'ImportValidationError';
  constructor(readonly problems: string[]) {
    super(`reference data rejected: ${problems.length} problem${problems.length === 1 ? '' : 's'}`);
  }
}

/** The file after validation: every section present (empty when the file left it out). */
export type ValidReferenceData = { [K in SectionName]-?: NonNullable<ReferenceData[K]> };

type RowOf<K extends SectionName> = z.infer<(typeof rowSchemas)[K]>;
interface Indexed<T> {
  index: number;
  row: T;
}
type Rows = { [K in SectionName]: Indexed<RowOf<K>>[] };

/** Ids each section declares, counting rows that failed their own schema but name an id. */
interface Declared {
  subgerencias: Set<string>;
  companyContracts: Set<number>;
  workers: Set<number>;
  contracts: Set<number>;
}

const NOT_FOUND = 'does not exist (neither in this file nor in the database)';

/**
 * Checks the whole file (shape, then cross-references against the file and the database) and
 * returns it typed, or throws ImportValidationError listing every problem found.
 */
export async function validateReferenceData(db: Queryable, input: unknown): Promise<ValidReferenceData> {
  const parsed = referenceDataSchema.safeParse(input, { reportInput: true });
  const problems: string[] = [];
  let rows: Rows;
  if (parsed.success) {
    rows = indexSections(parsed.data);
  } else {
    problems.push(...parsed.error.issues.map(formatIssue));
    if (!isRecord(input)) throw new ImportValidationError(problems);
    // Rows that are fine on their own still get their references checked, so one pass reports all.
    rows = salvageRows(input);
  }
  problems.push(...(await crossCheck(db, rows, declaredIds(input))));
  if (problems.length > 0 || !parsed.success) throw new ImportValidationError(problems);
  const data = parsed.data;
  return {
    subgerencias: data.subgerencias ?? [],
    contratosEmpresa: data.contratosEmpresa ?? [],
    asociados: data.asociados ?? [],
    contratos: data.contratos ?? [],
    nomina: data.nomina ?? [],
    usuarios: data.usuarios ?? [],
    vacaciones: data.vacaciones ?? [],
  };
}

function isRecord(v: unknown): v is Record<string, unknown> {
  return typeof v === 'object' && v !== null && !Array.isArray(v);
}

function indexSections(data: ReferenceData): Rows {
  const out = {} as Record<SectionName, Indexed<unknown>[]>;
  for (const name of SECTION_NAMES) out[name] = (data[name] ?? []).map((row, index) => ({ index, row }));
  return out as Rows;
}

function salvageRows(input: Record<string, unknown>): Rows {
  const out = {} as Record<SectionName, Indexed<unknown>[]>;
  for (const name of SECTION_NAMES) {
    const raw = input[name];
    const list: Indexed<unknown>[] = [];
    if (Array.isArray(raw)) {
      raw.forEach((item, index) => {
        const r = rowSchemas[name].safeParse(item);
        if (r.success) list.push({ index, row: r.data });
      });
    }
    out[name] = list;
  }
  return out as Rows;
}

function declaredIds(input: unknown): Declared {
  const ids = (section: string, accept: (id: unknown) => boolean): unknown[] => {
    const raw = isRecord(input) ? input[section] : undefined;
    if (!Array.isArray(raw)) return [];
    return raw.filter((r) => isRecord(r) && accept(r.id)).map((r) => (r as Record<string, unknown>).id);
  };
  const isInt = (v: unknown) => Number.isSafeInteger(v);
  return {
    subgerencias: new Set(ids('subgerencias', (v) => typeof v === 'string') as string[]),
    companyContracts: new Set(ids('contratosEmpresa', isInt) as number[]),
    workers: new Set(ids('asociados', isInt) as number[]),
    contracts: new Set(ids('contratos', isInt) as number[]),
  };
}

function duplicates<T>(
  problems: string[],
  section: SectionName,
  rows: Indexed<T>[],
  field: string,
  key: (row: T) => string | number,
  describe: (row: T) => string,
): void {
  const first = new Map<string | number, number>();
  for (const { index, row } of rows) {
    const k = key(row);
    const seen = first.get(k);
    if (seen === undefined) first.set(k, index);
    else problems.push(`${section}[${index}].${field}: duplicate ${describe(row)} (first at ${section}[${seen}])`);
  }
}

function missing<T extends string | number>(wanted: Iterable<T>, declared: Set<T>): T[] {
  const out = new Set<T>();
  for (const id of wanted) if (!declared.has(id)) out.add(id);
  return [...out];
}

async function existingIds(db: Queryable, table: string, ids: number[]): Promise<Set<number>> {
  if (ids.length === 0) return new Set();
  const r = await db.query<{ id: string }>(`SELECT id::text AS id FROM ${table} WHERE id = ANY($1::bigint[])`, [ids]);
  return new Set(r.rows.map((x) => Number(x.id)));
}

async function crossCheck(db: Queryable, rows: Rows, declared: Declared): Promise<string[]> {
  const problems: string[] = [];
  const id = (r: { id: number | string }) => r.id;
  duplicates(problems, 'subgerencias', rows.subgerencias, 'id', id, (r) => `id ${JSON.stringify(r.id)}`);
  duplicates(problems, 'contratosEmpresa', rows.contratosEmpresa, 'id', id, (r) => `id ${r.id}`);
  duplicates(problems, 'asociados', rows.asociados, 'id', id, (r) => `id ${r.id}`);
  duplicates(problems, 'asociados', rows.asociados, 'numeroDocumento', (r) => r.numeroDocumento,
    (r) => `numeroDocumento ${r.numeroDocumento}`);
  duplicates(problems, 'contratos', rows.contratos, 'id', id, (r) => `id ${r.id}`);
  duplicates(problems, 'nomina', rows.nomina, 'periodoInicio', (r) => `${r.contratoId}|${r.periodoInicio}`,
    (r) => `sheet for contrato ${r.contratoId} starting ${r.periodoInicio}`);
  duplicates(problems, 'usuarios', rows.usuarios, 'id', id, (r) => `id ${r.id}`);
  duplicates(problems, 'usuarios', rows.usuarios, 'email', (r) => r.email.toLowerCase(),
    (r) => `e-mail ${r.email} (compared ignoring case)`);
  duplicates(problems, 'vacaciones', rows.vacaciones, 'codigoPila', (r) => r.codigoPila,
    (r) => `codigoPila ${r.codigoPila}`);

  const wantedWorkers = [...rows.contratos.map((c) => c.row.asociadoId), ...rows.vacaciones.map((v) => v.row.asociadoId)];
  const dbWorkers = await existingIds(db, 'ref_workers', missing(wantedWorkers, declared.workers));
  const dbCompany = await existingIds(db, 'ref_company_contracts', missing(
    rows.contratos.flatMap((c) => (c.row.contratoEmpresaId === null ? [] : [c.row.contratoEmpresaId])),
    declared.companyContracts,
  ));
  const subgerenciasWanted = missing(rows.contratos.map((c) => c.row.subgerenciaId), declared.subgerencias);
  const dbSubgerencias = new Set(subgerenciasWanted.length === 0 ? [] : (
    await db.query<{ id: string }>('SELECT id FROM ref_subgerencias WHERE id = ANY($1::text[])', [subgerenciasWanted])
  ).rows.map((r) => r.id));

  // Owner of each contract a payroll sheet names: the file's version wins over the database's.
  const owners = new Map<number, number>();
  for (const { row } of rows.contratos) if (!owners.has(row.id)) owners.set(row.id, row.asociadoId);
  const contractsWanted = missing(rows.nomina.map((n) => n.row.contratoId), declared.contracts);
  if (contractsWanted.length > 0) {
    const r = await db.query<{ id: string; worker_id: string }>(
      'SELECT id::text AS id, worker_id::text AS worker_id FROM ref_contracts WHERE id = ANY($1::bigint[])',
      [contractsWanted],
    );
    for (const c of r.rows) owners.set(Number(c.id), Number(c.worker_id));
  }

  const workerExists = (w: number) => declared.workers.has(w) || dbWorkers.has(w);
  for (const { index, row } of rows.contratos) {
    const at = `contratos[${index}]`;
    if (!workerExists(row.asociadoId)) problems.push(`${at}.asociadoId: asociado ${row.asociadoId} ${NOT_FOUND}`);
    if (!declared.subgerencias.has(row.subgerenciaId) && !dbSubgerencias.has(row.subgerenciaId)) {
      problems.push(`${at}.subgerenciaId: subgerencia ${JSON.stringify(row.subgerenciaId)} ${NOT_FOUND}`);
    }
    const company = row.contratoEmpresaId;
    if (company !== null && !declared.companyContracts.has(company) && !dbCompany.has(company)) {
      problems.push(`${at}.contratoEmpresaId: contratoEmpresa ${company} ${NOT_FOUND}`);
    }
    if (row.fechaInicio !== null && row.fechaFin !== null && row.fechaFin < row.fechaInicio) {
      problems.push(`${at}.fechaFin: ends (${row.fechaFin}) before it starts (${row.fechaInicio})`);
    }
  }
  for (const { index, row } of rows.nomina) {
    const at = `nomina[${index}]`;
    const owner = owners.get(row.contratoId);
    if (owner === undefined && !declared.contracts.has(row.contratoId)) {
      problems.push(`${at}.contratoId: contrato ${row.contratoId} ${NOT_FOUND}`);
    } else if (owner !== undefined && owner !== row.asociadoId) {
      problems.push(`${at}.asociadoId: contrato ${row.contratoId} belongs to asociado ${owner}, not ${row.asociadoId}`);
    }
    if (row.periodoFin < row.periodoInicio) {
      problems.push(`${at}.periodoFin: period ends (${row.periodoFin}) before it starts (${row.periodoInicio})`);
    }
  }
  for (const { index, row } of rows.vacaciones) {
    if (!workerExists(row.asociadoId)) {
      problems.push(`vacaciones[${index}].asociadoId: asociado ${row.asociadoId} ${NOT_FOUND}`);
    }
  }
  problems.push(...(await uniqueAgainstDatabase(db, rows)));
  return problems;
}

/**
 * Document numbers and e-mails are unique in the database too: a file giving one to a new id
 * while another row keeps it would only fail half-way through the load.
 */
async function uniqueAgainstDatabase(db: Queryable, rows: Rows): Promise<string[]> {
  const problems: string[] = [];
  const fileWorkers = new Set(rows.asociados.map((a) => a.row.id));
  const docs = rows.asociados.map((a) => a.row.numeroDocumento);
  if (docs.length > 0) {
    const r = await db.query<{ id: string; document_number: string }>(
      'SELECT id::text AS id, document_number FROM ref_workers WHERE document_number = ANY($1::text[])',
      [docs],
    );
    const holder = new Map(r.rows.map((x) => [x.document_number, Number(x.id)]));
    for (const { index, row } of rows.asociados) {
      const other = holder.get(row.numeroDocumento);
      if (other !== undefined && other !== row.id && !fileWorkers.has(other)) {
        problems.push(`asociados[${index}].numeroDocumento: ${row.numeroDocumento} already belongs to asociado ${other} in the database`);
      }
    }
  }
  const fileUsers = new Set(rows.usuarios.map((u) => u.row.id));
  const emails = rows.usuarios.map((u) => u.row.email.toLowerCase());
  if (emails.length > 0) {
    const r = await db.query<{ id: string; email: string }>(
      'SELECT id::text AS id, lower(email) AS email FROM ref_users WHERE lower(email) = ANY($1::text[])',
      [emails],
    );
    const holder = new Map(r.rows.map((x) => [x.email, Number(x.id)]));
    for (const { index, row } of rows.usuarios) {
      const other = holder.get(row.email.toLowerCase());
      if (other !== undefined && other !== row.id && !fileUsers.has(other)) {
        problems.push(`usuarios[${index}].email: ${row.email} already belongs to usuario ${other} in the database`);
      }
    }
  }
  return problems;
}
