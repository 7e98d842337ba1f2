import type { z } from 'zod';
import { announce } from '../db/change-feed.ts';
import type { Db, Queryable } from '../db/types.ts';
import { SECTION_NAMES, type SectionName, type rowSchemas } from './schema.ts';
import { objectSource, type Source } from './sources.ts';
import { Staging, type StageTable } from './staging.ts';
import { upsertFromTable, type UpsertColumn, type UpsertTarget } from './upsert.ts';
import { ImportValidationError, checkRow, crossCheck, type StageNames } from './validate.ts';
import { refreshWorkerFiles } from './worker-files.ts';

export { ImportValidationError } from './validate.ts';

/** A vacation recorded before this service existed, in the service's own vocabulary. */
export interface HistoricVacation {
  pilaCode: string;
  workerId: number;
  startDate: string;
  days: number;
  worksSaturday: boolean;
  compensated: boolean;
  paid: boolean;
  approved: boolean;
}

export interface HistoricCounts {
  imported: number;
  skipped: number;
}

/** A chunk's events, built, and how to write them. */
export interface HistoricBatch extends HistoricCounts {
  write(): Promise<void>;
}

/**
 * Turns historic vacation rows into whatever records them (events). Runs inside the import's
 * transaction, after the reference rows are written, so a failure undoes the whole import; it is
 * handed the rows a few thousand at a time, in file order, and its counts are added up. It may do
 * the work itself and answer its counts, or read what it needs and answer how to build the rest:
 * then the import reads the next chunk before writing this one, and builds the next while the
 * database writes this one. A build should yield to the event loop now and then, so that the
 * write's statements go out as soon as the one before them is answered.
 */
export type HistoricHandler = (tx: Queryable, rows: HistoricVacation[]) => Promise<HistoricCounts | { build(): Promise<HistoricBatch> }>;

export interface ImportOptions {
  historic?: HistoricHandler;
  /** Runs first in the import's transaction, before any write (the event store marks it as appending). */
  beforeWrites?: (tx: Queryable) => Promise<void>;
  /** Told to drop its entries at once when the import changed anything. */
  cache?: { invalidate(): void };
  /** Told how far the import is after the rows are read (a progress bar). */
  onProgress?: (p: ImportProgress) => void;
}

export const REFERENCE_TABLES = ['subgerencias', 'companyContracts', 'workers', 'contracts', 'payrollSheets', 'users'] as const;
export type ReferenceTable = (typeof REFERENCE_TABLES)[number];

export interface TableCounts {
  inserted: number;
  updated: number;
  unchanged: number;
}

export interface ImportReport {
  tables: Record<ReferenceTable, TableCounts>;
  historic: { imported: number; skipped: number };
  /** True when at least one reference row was inserted or updated. */
  changed: boolean;
  /** ref_version after the import (bumped by one only when `changed`). */
  version: number;
  warnings: string[];
}

const TARGETS: Record<ReferenceTable, UpsertTarget> = {
  subgerencias: {
    table: 'ref_subgerencias',
    key: ['id'],
    columns: [
      { name: 'id', type: 'text' },
      { name: 'nombre', type: 'text' },
    ],
  },
  companyContracts: {
    table: 'ref_company_contracts',
    key: ['id'],
    columns: [
      { name: 'id', type: 'bigint' },
      { name: 'name', type: 'text' },
      { name: 'has_vacation_params', type: 'boolean' },
      { name: 'annual_days', type: 'integer' },
      { name: 'annual_days_high_risk', type: 'integer' },
      { name: 'min_enjoyed_days', type: 'integer' },
      { name: 'advance_allowed', type: 'boolean' },
      { name: 'max_advance_days', type: 'integer' },
      { name: 'max_people_on_vacation', type: 'integer' },
      { name: 'compensation_limit', type: 'text' },
    ],
  },
  workers: {
    table: 'ref_workers',
    key: ['id'],
    columns: [
      { name: 'id', type: 'bigint' },
      { name: 'document_type', type: 'text' },
      { name: 'document_number', type: 'text' },
      { name: 'first_names', type: 'text' },
      { name: 'last_names', type: 'text' },
    ],
  },
  contracts: {
    table: 'ref_contracts',
    key: ['id'],
    columns: [
      { name: 'id', type: 'bigint' },
      { name: 'worker_id', type: 'bigint' },
      { name: 'company_contract_id', type: 'bigint' },
      { name: 'subgerencia_id', type: 'text' },
      { name: 'start_date', type: 'date' },
      { name: 'end_date', type: 'date' },
      { name: 'settled', type: 'boolean' },
      { name: 'additional', type: 'boolean' },
      { name: 'base_salary', type: 'bigint' },
      { name: 'risk_level', type: 'integer' },
      { name: 'technical_or_trusted', type: 'boolean' },
      { name: 'variable_salary', type: 'boolean' },
    ],
  },
  payrollSheets: {
    table: 'ref_payroll_sheets',
    key: ['contract_id', 'period_start'],
    columns: [
      { name: 'contract_id', type: 'bigint' },
      { name: 'period_start', type: 'date' },
      { name: 'period_end', type: 'date' },
      { name: 'worker_id', type: 'bigint' },
      { name: 'days_worked', type: 'integer' },
      { name: 'basic_compensation', type: 'bigint' },
    ],
  },
  users: {
    table: 'ref_users',
    key: ['id'],
    columns: [
      { name: 'id', type: 'bigint' },
      { name: 'email', type: 'text' },
      { name: 'name', type: 'text' },
      { name: 'is_admin', type: 'boolean' },
      // A list per row cannot ride in a one-dimensional array parameter, so it travels as JSON.
      { name: 'permissions', type: 'text', select: 'ARRAY(SELECT jsonb_array_elements_text(u.permissions::jsonb))' },
    ],
  },
};

/** The reference table each section is written to. */
const SECTION_TABLE: Record<Exclude<SectionName, 'vacaciones'>, ReferenceTable> = {
  subgerencias: 'subgerencias',
  contratosEmpresa: 'companyContracts',
  asociados: 'workers',
  contratos: 'contracts',
  nomina: 'payrollSheets',
  usuarios: 'users',
};

/** Historic vacations wait in the stage until the reference rows they need are written. */
const VACATION_COLUMNS: UpsertColumn[] = [
  { name: 'codigo_pila', type: 'text' },
  { name: 'worker_id', type: 'bigint' },
  { name: 'start_date', type: 'date' },
  { name: 'days', type: 'integer' },
  { name: 'works_saturday', type: 'boolean' },
  { name: 'compensated', type: 'boolean' },
  { name: 'paid', type: 'boolean' },
  { name: 'approved', type: 'boolean' },
];

const STAGE: Record<SectionName, StageTable> = {
  ...(Object.fromEntries(
    Object.entries(SECTION_TABLE).map(([section, table]) => [
      section,
      { name: `import_${TARGETS[table].table.replace(/^ref_/, '')}`, columns: TARGETS[table].columns },
    ]),
  ) as Record<Exclude<SectionName, 'vacaciones'>, StageTable>),
  vacaciones: { name: 'import_vacations', columns: VACATION_COLUMNS },
};

/** A valid row's values in its stage table's column order. */
const ROW_VALUES: { [K in SectionName]: (r: z.infer<(typeof rowSchemas)[K]>) => unknown[] } = {
  subgerencias: (s) => [s.id, s.nombre],
  contratosEmpresa: (c) => {
    const v = c.vacaciones;
    return [
      c.id,
      c.nombre,
      v !== null,
      v?.diasVacacionesAnuales ?? null,
      v?.diasVacacionesAnualesAltoRiesgo ?? null,
      v?.diasMinimosDisfrutados ?? null,
      v?.vacacionesAnticipadas ?? null,
      v?.diasVacacionesAnticipadas ?? null,
      v?.numeroPersonasVacaciones ?? null,
      v?.limiteCompensacion === 'mitad' ? 'half' : null,
    ];
  },
  asociados: (w) => [w.id, w.tipoDocumento, w.numeroDocumento, w.nombres, w.apellidos],
  contratos: (c) => [
    c.id,
    c.asociadoId,
    c.contratoEmpresaId,
    c.subgerenciaId,
    c.fechaInicio,
    c.fechaFin,
    c.liquidado,
    c.esAdicional,
    c.salarioBase,
    c.nivelRiesgo,
    c.cargoTecnicoODeConfianza ?? false,
    c.salarioVariable ?? false,
  ],
  nomina: (n) => [n.contratoId, n.periodoInicio, n.periodoFin, n.asociadoId, n.diasLaborados, n.compensacionBasica],
  usuarios: (u) => [u.id, u.email, u.nombre, u.administrador, JSON.stringify(u.permisos)],
  vacaciones: (v) => [v.codigoPila, v.asociadoId, v.fechaInicio, v.diasVacaciones, v.laboraSabado, v.compensado, v.pagado, v.aprobado],
};

interface StagedVacation {
  codigo_pila: string;
  worker_id: string;
  start_date: string;
  days: number;
  works_saturday: boolean;
  compensated: boolean;
  paid: boolean;
  approved: boolean;
}

function toHistoric(r: StagedVacation): HistoricVacation {
  return {
    pilaCode: r.codigo_pila,
    workerId: Number(r.worker_id),
    startDate: r.start_date,
    days: Number(r.days),
    worksSaturday: r.works_saturday,
    compensated: r.compensated,
    paid: r.paid,
    approved: r.approved,
  };
}

/**
 * Before the writes: the workers that lose a contract the file hands to another worker. Their
 * rows of the per-worker read model change too, and after the writes nothing says who they were.
 */
const PREVIOUS_OWNERS = `
  CREATE TEMP TABLE import_previous_owners ON COMMIT DROP AS
  SELECT r.worker_id FROM ${STAGE.contratos.name} i JOIN ref_contracts r ON r.id = i.id WHERE r.worker_id <> i.worker_id`;

/** After the writes: every worker whose row of the per-worker read model the file may have changed. */
const TOUCHED_WORKERS = `
  SELECT id FROM ${STAGE.asociados.name}
  UNION SELECT worker_id FROM ${STAGE.contratos.name}
  UNION SELECT worker_id FROM ${STAGE.nomina.name}
  UNION SELECT worker_id FROM ref_contracts WHERE company_contract_id IN (SELECT id FROM ${STAGE.contratosEmpresa.name})
  UNION SELECT worker_id FROM import_previous_owners`;

/** Historic vacations handed to the handler at a time, each time in the import's transaction. */
const HISTORIC_CHUNK = 5000;

export interface ImportProgress {
  /** Checking the rows against each other and the database; writing the tables; historic vacations to events. */
  phase: 'checking' | 'writing' | 'historic';
  done: number;
  total: number;
}

/**
 * Validates a file held in memory, then loads it in one transaction: every table or none. Rows
 * are upserted by key, so importing the same file twice changes nothing and leaves ref_version
 * alone. Rows the file does not mention are kept.
 */
export function importReferenceData(db: Db, input: unknown, opts: ImportOptions = {}): Promise<ImportReport> {
  return importReferenceSource(db, objectSource(input), opts);
}

/**
 * importReferenceData for rows read one at a time (a file of any size, see sources.ts). Each row
 * is checked against its schema as it arrives and the valid ones are staged in temporary tables;
 * then the checks across rows and against the database run there, every problem of the file is
 * reported at once (ImportValidationError) and nothing is written; else the reference tables are
 * written from the stage and the historic vacations become events, all in one transaction.
 */
export async function importReferenceSource(db: Db, source: Source, opts: ImportOptions = {}): Promise<ImportReport> {
  // One connection throughout: the stage is its temporary tables.
  const report = await db.withConnection(async (conn) => {
    const stage = new Staging(conn, STAGE);
    let open = false;
    try {
      // The stage is written and checked in a transaction of its own: one commit instead of one
      // per COPY, and nothing of the reference tables or the event log is touched in it.
      await conn.query('BEGIN');
      open = true;
      await stage.create();
      const problems: string[] = [];
      for await (const item of source) {
        if (item.kind === 'problem') {
          problems.push(item.text);
          continue;
        }
        const checked = checkRow(item.section, item.index, item.line, item.value);
        if (checked.ok) {
          // Each row's values come from its own section's schema.
          const values = (ROW_VALUES[item.section] as (r: unknown) => unknown[])(checked.row);
          await stage.add(item.section, item.index, item.line, values);
        } else {
          problems.push(...checked.problems);
          if (checked.declaredId !== undefined) await stage.declare(item.section, checked.declaredId);
        }
      }
      await stage.finish();
      opts.onProgress?.({ phase: 'checking', done: 0, total: 1 });
      problems.push(...(await crossCheck(conn, Object.fromEntries(SECTION_NAMES.map((s) => [s, STAGE[s].name])) as StageNames)));
      await conn.query('COMMIT');
      open = false;
      if (problems.length > 0) throw new ImportValidationError(problems);

      const vacations = stage.count('vacaciones');
      await conn.query('BEGIN');
      open = true;
      if (vacations > 0) await opts.beforeWrites?.(conn);
      await conn.query(PREVIOUS_OWNERS);
      const tables = {} as Record<ReferenceTable, TableCounts>;
      // Dependency order: a contract's worker and subgerencia exist before the contract.
      for (const [i, section] of (Object.keys(SECTION_TABLE) as (keyof typeof SECTION_TABLE)[]).entries()) {
        opts.onProgress?.({ phase: 'writing', done: i, total: REFERENCE_TABLES.length });
        const name = SECTION_TABLE[section];
        const { inserted, updated } = await upsertFromTable(conn, TARGETS[name], STAGE[section].name, stage.end(section));
        tables[name] = { inserted, updated, unchanged: stage.count(section) - inserted - updated };
      }
      const changed = REFERENCE_TABLES.some((n) => tables[n].inserted + tables[n].updated > 0);
      const v = changed
        ? await conn.query<{ version: string }>('UPDATE ref_version SET version = version + 1 WHERE id = 1 RETURNING version')
        : await conn.query<{ version: string }>('SELECT version FROM ref_version WHERE id = 1');
      const version = Number(v.rows[0]?.version ?? 0);
      // The per-worker read model changes with the reference tables, in the same transaction.
      if (changed) await refreshWorkerFiles(conn, TOUCHED_WORKERS, version);
      // Delivered on commit: running servers drop what they cached of the workers that changed.
      if (changed) await conn.query(announce('reference'));
      const warnings: string[] = [];
      let historic = { imported: 0, skipped: 0 };
      if (vacations > 0 && opts.historic) {
        historic = await importHistoric(conn, opts.historic, vacations, opts.onProgress);
      } else if (vacations > 0) {
        historic = { imported: 0, skipped: vacations };
        warnings.push(
          `${vacations} historic vacation rows were validated but not imported: ` + 'no importer for historic vacations is configured',
        );
      }
      await conn.query('COMMIT');
      open = false;
      return { tables, historic, changed, version, warnings };
    } catch (err) {
      if (open) await conn.query('ROLLBACK').catch(() => {});
      throw err;
    } finally {
      await stage.drop().catch(() => {});
    }
  });
  if (report.changed) {
    // A bulk load leaves the planner guessing about what it wrote (autovacuum gets to it late, or
    // never where it is off). Only the import's own tables: the event log's statistics are left to
    // autovacuum, as the log's owner would (a whole-database ANALYZE right after a small import
    // made the audit appends of consults five times slower, one run in two).
    await db.query(`ANALYZE ${[...REFERENCE_TABLES.map((t) => TARGETS[t].table), 'rm_workers'].join(', ')}`);
  }
  if (report.changed) opts.cache?.invalidate();
  return report;
}

/** The staged vacations, in file order, handed to the handler a chunk at a time. */
async function importHistoric(
  conn: Queryable,
  handler: HistoricHandler,
  total: number,
  onProgress: ImportOptions['onProgress'],
): Promise<HistoricCounts> {
  const counts = { imported: 0, skipped: 0 };
  const columns = VACATION_COLUMNS.map((c) => c.name).join(', ');
  // A cursor of the transaction reads the stage once, whatever is written between its fetches.
  await conn.query(`DECLARE import_vacations_cursor NO SCROLL CURSOR FOR SELECT ${columns} FROM ${STAGE.vacaciones.name} ORDER BY idx`);
  const next = async () => {
    const rows = (await conn.query<StagedVacation>(`FETCH ${HISTORIC_CHUNK} FROM import_vacations_cursor`)).rows;
    return rows.length === 0 ? undefined : handler(conn, rows.map(toHistoric));
  };
  const built = async (step: Awaited<ReturnType<HistoricHandler>> | undefined): Promise<HistoricBatch | undefined> =>
    step === undefined ? undefined : 'build' in step ? step.build() : { ...step, write: async () => {} };
  let batch = await built(await next());
  while (batch) {
    const following = await next();
    // Sent before the next chunk is built: the database writes one while this process builds the other.
    const writing = batch.write();
    writing.catch(() => {});
    const after = built(following);
    after.catch(() => {});
    await writing;
    counts.imported += batch.imported;
    counts.skipped += batch.skipped;
    onProgress?.({ phase: 'historic', done: counts.imported + counts.skipped, total });
    batch = await after;
  }
  await conn.query('CLOSE import_vacations_cursor');
  return counts;
}
