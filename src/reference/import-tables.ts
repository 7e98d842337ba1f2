import type { z } from 'zod';
import type { SectionName, rowSchemas } from './schema.ts';
import type { StageTable } from './staging.ts';
import type { UpsertColumn, UpsertTarget } from './upsert.ts';

/**
 * Where each section of a reference-data file goes: the reference table it is written to, the
 * stage table it waits in meanwhile, and a valid row's values in that table's column order.
 */

export const REFERENCE_TABLES = ['subgerencias', 'companyContracts', 'workers', 'contracts', 'payrollSheets', 'users'] as const;
export type ReferenceTable = (typeof REFERENCE_TABLES)[number];

export const TARGETS: Record<ReferenceTable, UpsertTarget> = {
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
      { name: 'sick_days', type: 'integer' },
      { name: 'paid_leave_days', type: 'integer' },
      { name: 'vacation_days', type: 'integer' },
      { name: 'unpaid_leave_days', type: 'integer' },
      { name: 'suspension_days', type: 'integer' },
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
export const SECTION_TABLE: Record<Exclude<SectionName, 'vacaciones'>, ReferenceTable> = {
  subgerencias: 'subgerencias',
  contratosEmpresa: 'companyContracts',
  asociados: 'workers',
  contratos: 'contracts',
  nomina: 'payrollSheets',
  usuarios: 'users',
};

/** Historic vacations wait in the stage until the reference rows they need are written. */
export const VACATION_COLUMNS: UpsertColumn[] = [
  { name: 'codigo_pila', type: 'text' },
  { name: 'worker_id', type: 'bigint' },
  { name: 'start_date', type: 'date' },
  { name: 'days', type: 'integer' },
  { name: 'works_saturday', type: 'boolean' },
  { name: 'compensated', type: 'boolean' },
  { name: 'paid', type: 'boolean' },
  { name: 'approved', type: 'boolean' },
];

export const STAGE: Record<SectionName, StageTable> = {
  ...(Object.fromEntries(
    Object.entries(SECTION_TABLE).map(([section, table]) => [
      section,
      { name: `import_${TARGETS[table].table.replace(/^ref_/, '')}`, columns: TARGETS[table].columns },
    ]),
  ) as Record<Exclude<SectionName, 'vacaciones'>, StageTable>),
  vacaciones: { name: 'import_vacations', columns: VACATION_COLUMNS },
};

/** A valid row's values in its stage table's column order. */
export const ROW_VALUES: { [K in SectionName]: (r: z.infer<(typeof rowSchemas)[K]>) => unknown[] } = {
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
  nomina: (n) => [
    n.contratoId,
    n.periodoInicio,
    n.periodoFin,
    n.asociadoId,
    n.diasLaborados,
    n.compensacionBasica,
    n.diasIncapacidad ?? 0,
    n.diasLicenciaRemunerada ?? 0,
    n.diasVacaciones ?? 0,
    n.diasLicenciaNoRemunerada ?? 0,
    n.diasSuspension ?? 0,
  ],
  usuarios: (u) => [u.id, u.email, u.nombre, u.administrador, JSON.stringify(u.permisos)],
  vacaciones: (v) => [v.codigoPila, v.asociadoId, v.fechaInicio, v.diasVacaciones, v.laboraSabado, v.compensado, v.pagado, v.aprobado],
};
