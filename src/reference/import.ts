import type { Db, Queryable } from '../db/types.ts';
import { announce } from '../db/change-feed.ts';
import type { HistoricVacationRow } from './schema.ts';
import { upsertRows, type UpsertTarget } from './upsert.ts';
import { validateReferenceData, type ValidReferenceData } from './validate.ts';

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

/**
 * Turns historic vacation rows into whatever records them (events). Runs inside the import's
 * transaction, after the reference rows are written, so a failure undoes the whole import.
 */
export type HistoricHandler = (
  tx: Queryable,
  rows: HistoricVacation[],
) => Promise<{ imported: number; skipped: number }>;

export interface ImportOptions {
  historic?: HistoricHandler;
  /** Runs first in the import's transaction, before any write (the event store marks it as appending). */
  beforeWrites?: (tx: Queryable) => Promise<void>;
  /** Told to drop its entries at once when the import changed anything. */
  cache?: { invalidate(): void };
}

export const REFERENCE_TABLES = [
  'subgerencias',
  'companyContracts',
  'workers',
  'contracts',
  'payrollSheets',
  'users',
] as const;
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
    columns: [{ name: 'id', type: 'text' }, { name: 'nombre', type: 'text' }],
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

function tableRows(data: ValidReferenceData): Record<ReferenceTable, unknown[][]> {
  return {
    subgerencias: data.subgerencias.map((s) => [s.id, s.nombre]),
    companyContracts: data.contratosEmpresa.map((c) => {
      const v = c.vacaciones;
      return [
        c.id, c.nombre, v !== null,
        v?.diasVacacionesAnuales ?? null, v?.diasVacacionesAnualesAltoRiesgo ?? null, v?.diasMinimosDisfrutados ?? null,
        v?.vacacionesAnticipadas ?? null, v?.diasVacacionesAnticipadas ?? null, v?.numeroPersonasVacaciones ?? null,
      ];
    }),
    workers: data.asociados.map((w) => [w.id, w.tipoDocumento, w.numeroDocumento, w.nombres, w.apellidos]),
    contracts: data.contratos.map((c) => [
      c.id, c.asociadoId, c.contratoEmpresaId, c.subgerenciaId, c.fechaInicio, c.fechaFin,
      c.liquidado, c.esAdicional, c.salarioBase, c.nivelRiesgo,
    ]),
    payrollSheets: data.nomina.map((n) => [
      n.contratoId, n.periodoInicio, n.periodoFin, n.asociadoId, n.diasLaborados, n.compensacionBasica,
    ]),
    users: data.usuarios.map((u) => [u.id, u.email, u.nombre, u.administrador, JSON.stringify(u.permisos)]),
  };
}

function toHistoric(r: HistoricVacationRow): HistoricVacation {
  return {
    pilaCode: r.codigoPila,
    workerId: r.asociadoId,
    startDate: r.fechaInicio,
    days: r.diasVacaciones,
    worksSaturday: r.laboraSabado,
    compensated: r.compensado,
    paid: r.pagado,
    approved: r.aprobado,
  };
}

/**
 * Validates the whole file, then loads it in one transaction: every table or none. Rows are
 * upserted by key, so importing the same file twice changes nothing and leaves ref_version alone.
 * Rows the file does not mention are kept.
 */
export async function importReferenceData(db: Db, input: unknown, opts: ImportOptions = {}): Promise<ImportReport> {
  const data = await validateReferenceData(db, input);
  const rows = tableRows(data);
  const report = await db.transaction(async (tx) => {
    if (data.vacaciones.length > 0) await opts.beforeWrites?.(tx);
    const tables = {} as Record<ReferenceTable, TableCounts>;
    // Dependency order: a contract's worker and subgerencia exist before the contract.
    for (const name of REFERENCE_TABLES) {
      const { inserted, updated } = await upsertRows(tx, TARGETS[name], rows[name]);
      tables[name] = { inserted, updated, unchanged: rows[name].length - inserted - updated };
    }
    const changed = REFERENCE_TABLES.some((n) => tables[n].inserted + tables[n].updated > 0);
    const v = changed
      ? await tx.query<{ version: string }>('UPDATE ref_version SET version = version + 1 WHERE id = 1 RETURNING version')
      : await tx.query<{ version: string }>('SELECT version FROM ref_version WHERE id = 1');
    // Delivered on commit: running servers drop their cached reference data at once.
    if (changed) await tx.query(announce('reference'));
    const warnings: string[] = [];
    let historic = { imported: 0, skipped: 0 };
    if (data.vacaciones.length > 0) {
      if (opts.historic) {
        historic = await opts.historic(tx, data.vacaciones.map(toHistoric));
      } else {
        historic = { imported: 0, skipped: data.vacaciones.length };
        warnings.push(
          `${data.vacaciones.length} historic vacation rows were validated but not imported: ` +
            'no importer for historic vacations is configured',
        );
      }
    }
    return { tables, historic, changed, version: Number(v.rows[0]?.version ?? 0), warnings };
  });
  if (report.changed) opts.cache?.invalidate();
  return report;
}
