import { z } from 'zod';
import type { SheetLeave } from '../domain/accrual.ts';
import { isValidDate } from '../domain/dates.ts';
import { payrollDays } from '../domain/days360.ts';

/**
 * The reference data file exported by the payroll system. Field names stay in the payroll
 * system's Spanish because they are its wire format; `reference-data.schema.json` is the same
 * contract as JSON Schema for the people producing the file.
 */

const DATE_SHAPE = /^\d{4}-\d{2}-\d{2}$/;

// The value goes into the message so an operator can find the row without opening the file.
const calendarDate = z.string().refine(isValidDate, {
  error: (iss) => {
    const v = String(iss.input);
    return DATE_SHAPE.test(v) ? `not a real date (${v})` : `expected a date as YYYY-MM-DD, got ${JSON.stringify(v)}`;
  },
});

const intBetween = (min: number, max: number) => z.int().min(min).max(max);

export const DOCUMENT_TYPES = ['CC', 'CE', 'TI', 'PA', 'PEP', 'PPT', 'NIT'] as const;
export const USER_PERMISSIONS = ['vacaciones:eliminar'] as const;

export const subgerenciaSchema = z.strictObject({
  id: z.string().min(1),
  nombre: z.string(),
});

export const vacationParamsSchema = z.strictObject({
  diasVacacionesAnuales: intBetween(1, 360),
  diasVacacionesAnualesAltoRiesgo: intBetween(1, 360),
  diasMinimosDisfrutados: intBetween(0, 360),
  vacacionesAnticipadas: z.boolean(),
  diasVacacionesAnticipadas: intBetween(0, 360),
  numeroPersonasVacaciones: z.int().min(1).nullable(),
  /** Absent or null: no limit on the days paid in money beyond the other rules. */
  limiteCompensacion: z.enum(['mitad']).nullable().optional(),
});

export const companyContractSchema = z.strictObject({
  id: z.int(),
  nombre: z.string(),
  vacaciones: vacationParamsSchema.nullable(),
});

export const workerSchema = z.strictObject({
  id: z.int(),
  tipoDocumento: z.enum(DOCUMENT_TYPES),
  numeroDocumento: z.string().regex(/^[0-9A-Za-z]{3,20}$/),
  nombres: z.string(),
  apellidos: z.string(),
});

export const contractSchema = z.strictObject({
  id: z.int(),
  asociadoId: z.int(),
  contratoEmpresaId: z.int().nullable(),
  subgerenciaId: z.string(),
  fechaInicio: calendarDate.nullable(),
  fechaFin: calendarDate.nullable(),
  liquidado: z.boolean(),
  esAdicional: z.boolean(),
  salarioBase: z.int().min(0),
  nivelRiesgo: intBetween(1, 5).nullable(),
  /** Absent: false. Technical or trusted staff may accumulate four years of vacations (CST art. 190). */
  cargoTecnicoODeConfianza: z.boolean().optional(),
  /** Absent: false. Vacations paid at the average of the year before (CST art. 192 §2). */
  salarioVariable: z.boolean().optional(),
});

/**
 * The optional fields that break a sheet's days down by kind of leave (DOMAIN.md, "Leave on a
 * payroll sheet"), each with the kind the ledger knows it by (SheetLeave), in the order the
 * reference tables store them.
 */
export const LEAVE_FIELDS = {
  diasIncapacidad: 'sick',
  diasLicenciaRemunerada: 'paidLeave',
  diasVacaciones: 'vacation',
  diasLicenciaNoRemunerada: 'unpaidLeave',
  diasSuspension: 'suspension',
} as const satisfies Record<string, keyof SheetLeave>;
export type LeaveField = keyof typeof LEAVE_FIELDS;
export const LEAVE_FIELD_NAMES = Object.keys(LEAVE_FIELDS) as LeaveField[];

/** Absent: 0. Added after files were already being written, so older files stay valid. */
const leaveDays = z.int().min(0).optional();

export const payrollSchema = z
  .strictObject({
    asociadoId: z.int(),
    contratoId: z.int(),
    periodoInicio: calendarDate,
    periodoFin: calendarDate,
    diasLaborados: intBetween(0, 31),
    compensacionBasica: z.int().min(0),
    diasIncapacidad: leaveDays,
    diasLicenciaRemunerada: leaveDays,
    diasVacaciones: leaveDays,
    diasLicenciaNoRemunerada: leaveDays,
    diasSuspension: leaveDays,
  })
  .superRefine((n, ctx) => {
    // Only a sheet that breaks its days down is held to its length: one without leave stays as valid as before.
    let leave = 0;
    for (const f of LEAVE_FIELD_NAMES) leave += n[f] ?? 0;
    if (leave === 0 || !isValidDate(n.periodoInicio) || !isValidDate(n.periodoFin)) return;
    const length = payrollDays(n.periodoInicio, n.periodoFin);
    const total = n.diasLaborados + leave;
    if (total <= length) return;
    const parts = ['diasLaborados' as const, ...LEAVE_FIELD_NAMES].filter((f) => (n[f] ?? 0) > 0).map((f) => `${f} ${n[f]}`);
    ctx.addIssue({
      code: 'custom',
      path: LEAVE_FIELD_NAMES.filter((f) => (n[f] ?? 0) > 0).slice(0, 1),
      message:
        `${parts.join(' + ')} = ${total} days, more than the sheet's ${length} ` + `(days360 from ${n.periodoInicio} to ${n.periodoFin})`,
    });
  });

export const userSchema = z.strictObject({
  id: z.int(),
  email: z.email(),
  nombre: z.string(),
  administrador: z.boolean(),
  permisos: z.array(z.enum(USER_PERMISSIONS)),
});

export const historicVacationSchema = z.strictObject({
  codigoPila: z.string().regex(/^VAC_[0-9]+_[0-9a-f]+_[0-9a-f]+$/),
  asociadoId: z.int(),
  fechaInicio: calendarDate,
  diasVacaciones: intBetween(1, 360),
  laboraSabado: z.boolean(),
  compensado: z.boolean(),
  pagado: z.boolean(),
  aprobado: z.boolean(),
});

/** Row schema of every array the file may carry, in the order they are loaded. */
export const rowSchemas = {
  subgerencias: subgerenciaSchema,
  contratosEmpresa: companyContractSchema,
  asociados: workerSchema,
  contratos: contractSchema,
  nomina: payrollSchema,
  usuarios: userSchema,
  vacaciones: historicVacationSchema,
} as const;

export type SectionName = keyof typeof rowSchemas;
export const SECTION_NAMES = Object.keys(rowSchemas) as SectionName[];

export const referenceDataSchema = z.strictObject({
  subgerencias: z.array(subgerenciaSchema).optional(),
  contratosEmpresa: z.array(companyContractSchema).optional(),
  asociados: z.array(workerSchema).optional(),
  contratos: z.array(contractSchema).optional(),
  nomina: z.array(payrollSchema).optional(),
  usuarios: z.array(userSchema).optional(),
  vacaciones: z.array(historicVacationSchema).optional(),
});

/** `contratos[3].fechaFin`: the notation an operator can follow in an editor. */
export function formatPath(path: readonly PropertyKey[]): string {
  let out = '';
  for (const p of path) {
    out += typeof p === 'number' ? `[${p}]` : out === '' ? String(p) : `.${String(p)}`;
  }
  return out === '' ? 'file' : out;
}

const EXPECTED: Record<string, string> = {
  // Every number in the file is a whole number, so say so even when zod only checked the type.
  int: 'a whole number',
  number: 'a whole number',
  string: 'a string',
  boolean: 'true or false',
  object: 'an object',
  array: 'an array',
  null: 'null',
};

/** A value as the messages quote it, cut short when long. */
export function shown(v: unknown): string {
  const s = JSON.stringify(v);
  return s === undefined ? String(v) : s.length > 60 ? `${s.slice(0, 57)}...` : s;
}

/** One issue as `path: reason`, phrased for the person who produced the file. */
export function formatIssue(issue: z.core.$ZodIssue): string {
  const where = formatPath(issue.path);
  const input = (issue as { input?: unknown }).input;
  switch (issue.code) {
    case 'invalid_type':
      if (input === undefined) return `${where}: is required`;
      return `${where}: expected ${EXPECTED[issue.expected] ?? issue.expected}, got ${shown(input)}`;
    case 'too_small':
      if (issue.origin === 'string') return `${where}: must not be empty`;
      return `${where}: must be at least ${String(issue.minimum)}, got ${shown(input)}`;
    case 'too_big':
      return `${where}: must be at most ${String(issue.maximum)}, got ${shown(input)}`;
    case 'invalid_format':
      if (issue.format === 'email') return `${where}: not a valid e-mail address (${shown(input)})`;
      if (issue.format === 'regex' && issue.pattern) return `${where}: ${shown(input)} does not match ${issue.pattern}`;
      return `${where}: invalid ${issue.format} (${shown(input)})`;
    case 'invalid_value':
      return `${where}: must be one of ${issue.values.map(String).join(', ')}; got ${shown(input)}`;
    case 'unrecognized_keys':
      return `${where}: unknown field${issue.keys.length > 1 ? 's' : ''} ${issue.keys.map((k) => JSON.stringify(k)).join(', ')}`;
    default:
      return `${where}: ${issue.message}`;
  }
}
