import { announce } from '../db/change-feed.ts';
import type { Db, Queryable } from '../db/types.ts';
import { importHistoric, type HistoricHandler } from './import-historic.ts';
import { REFERENCE_TABLES, ROW_VALUES, SECTION_TABLE, STAGE, TARGETS, type ReferenceTable } from './import-tables.ts';
import { SECTION_NAMES } from './schema.ts';
import { objectSource, type Source } from './sources.ts';
import { Staging } from './staging.ts';
import { upsertFromTable } from './upsert.ts';
import { ImportValidationError, checkRow, crossCheck, type StageNames } from './validate.ts';
import { refreshWorkerFiles } from './worker-files.ts';

export { ImportValidationError } from './validate.ts';
export { REFERENCE_TABLES } from './import-tables.ts';

export interface ImportOptions {
  historic?: HistoricHandler;
  /** Runs first in the import's transaction, before any write (the event store marks it as appending). */
  beforeWrites?: (tx: Queryable) => Promise<void>;
  /** Told to drop its entries at once when the import changed anything. */
  cache?: { invalidate(): void };
  /** Told how far the import is after the rows are read (a progress bar). */
  onProgress?: (p: ImportProgress) => void;
}

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
