import type { z } from 'zod';
import type { VacationRequest } from '../commands/types.ts';
import { MESSAGES, repeatedField as repeated } from './messages.ts';
import { emailNameHint, type Fields } from './fields.ts';
import type { InterruptionReason } from '../events/types.ts';
import { calculateBody, closureBody, closureCancelBody, closureCodeBody, codeBody, editBody, interruptBody } from './schemas.ts';

export interface Rejection {
  status: number;
  message: string;
  errors: Record<string, string> | string[];
}

export interface VacationInput {
  documentNumber: string;
  email: string;
  request: VacationRequest;
}

const required = (name: string, fields: Fields) => {
  const hint = emailNameHint(fields, name);
  return hint ? `El campo ${name} es requerido. ${hint}` : `El campo ${name} es requerido`;
};
const FORMAT: Record<string, string> = {
  vacFechaInicio: 'vacFechaInicio debe ser una fecha válida con formato YYYY-MM-DD',
  vacDiasVacaciones: 'vacDiasVacaciones debe ser un número entero entre 1 y 360',
  emailUserResponsable: 'emailUserResponsable no tiene un formato de correo válido',
  fechaRetiro: 'fechaRetiro debe ser una fecha válida con formato YYYY-MM-DD',
  fechaDesde: 'fechaDesde debe ser una fecha válida con formato YYYY-MM-DD',
  fechaHasta: 'fechaHasta debe ser una fecha válida con formato YYYY-MM-DD',
  fechaCorte: 'fechaCorte debe ser una fecha válida con formato YYYY-MM-DD',
  fechaInterrupcion: 'fechaInterrupcion debe ser una fecha válida con formato YYYY-MM-DD',
  motivo: 'motivo debe ser incapacidad, licencia, calamidad, necesidad del servicio u otro',
};
const invalid = (name: string) =>
  FORMAT[name] ?? (name.toLowerCase().startsWith('vac') ? `${name} debe ser "1" o "0"` : `El campo ${name} no es válido`);
/** A real date outside the range a schema allows (its refinement carries the range). */
const outOfRange = (name: string, issue: z.core.$ZodIssue): string | undefined => {
  const range = issue.code === 'custom' ? (issue.params as { range?: { from: string; to: string } } | undefined)?.range : undefined;
  return range && `${name} debe ser ${range.from.length === 7 ? 'un mes' : 'una fecha'} entre ${range.from} y ${range.to}`;
};

/** A format outside the endpoint's list, named from its own list ("json, csv o xlsx"): endpoints offer different ones. */
const notAFormat = (name: string, issue: z.core.$ZodIssue): string | undefined => {
  if (name !== 'formato' || issue.code !== 'invalid_value') return undefined;
  const values = issue.values.map(String);
  return `formato debe ser ${values.length > 1 ? `${values.slice(0, -1).join(', ')} o ${values.at(-1)}` : values[0]}`;
};

type Parsed<S extends z.ZodObject> = { ok: true; value: z.infer<S> } | { ok: false; problems: Map<string, string> };

/**
 * Validates the request's fields against a route schema (names matched case-insensitively) and
 * turns each issue into the message callers know, keyed by the schema's spelling of the field.
 */
export function validate<S extends z.ZodObject>(schema: S, fields: Fields): Parsed<S> {
  const names = Object.keys(schema.shape);
  const problems = new Map<string, string>();
  const input: Record<string, string> = {};
  for (const n of names) {
    if (fields.isAmbiguous(n)) problems.set(n, repeated(n));
    const v = fields.get(n);
    if (v !== undefined) input[n] = v;
  }
  const r = schema.safeParse(input);
  if (!r.success) {
    for (const issue of r.error.issues) {
      const n = String(issue.path[0]);
      if (!problems.has(n))
        problems.set(n, input[n] === undefined ? required(n, fields) : (outOfRange(n, issue) ?? notAFormat(n, issue) ?? invalid(n)));
    }
  }
  if (problems.size) {
    // Report in the schema's field order, which is the order of the form.
    return { ok: false, problems: new Map(names.filter((n) => problems.has(n)).map((n) => [n, problems.get(n)!])) };
  }
  return { ok: true, value: r.data! };
}

function requestOf(
  v: {
    vacFechaInicio: string;
    vacDiasVacaciones: string;
    vacPagado?: string;
    vacCompensado?: string;
    vacSeguridadEnNomina?: string;
    codigoPilaInterrumpido?: string;
  },
  saturday: string | undefined,
): VacationRequest {
  return {
    continues: v.codigoPilaInterrumpido ?? null,
    startDate: v.vacFechaInicio,
    days: Number(v.vacDiasVacaciones),
    advance: v.vacPagado === '1',
    worksSaturday: saturday === '1',
    compensated: v.vacCompensado === '1',
    socialSecurityInPayroll: v.vacSeguridadEnNomina === undefined ? null : v.vacSeguridadEnNomina === '1',
  };
}

/** calculate and add: a missing or malformed e-mail is its own error; the rest come as a list. */
export function parseCreateInput(fields: Fields): { ok: true; value: VacationInput } | ({ ok: false } & Rejection) {
  if (fields.get('emailUserResponsable') === undefined && !fields.isAmbiguous('emailUserResponsable')) {
    return {
      ok: false,
      status: 400,
      message: MESSAGES.emailRequired,
      errors: { emailUserResponsable: required('emailUserResponsable', fields) },
    };
  }
  const r = validate(calculateBody, fields);
  if (!r.ok) {
    // A malformed e-mail gets the answer it gets on edit, delete and approve: keyed by the field.
    const email = r.problems.get('emailUserResponsable');
    if (email !== undefined) return { ok: false, status: 400, message: MESSAGES.missingData, errors: { emailUserResponsable: email } };
    return { ok: false, status: 400, message: MESSAGES.missingData, errors: [...r.problems.values()] };
  }
  const v = r.value;
  return {
    ok: true,
    value: { documentNumber: v.documentoAsociado, email: v.emailUserResponsable, request: requestOf(v, v.vacLaboraSabado) },
  };
}

/** edit: errors keyed by field. */
export function parseEditInput(fields: Fields): { ok: true; value: VacationInput & { code: string } } | ({ ok: false } & Rejection) {
  const r = validate(editBody, fields);
  if (!r.ok) return { ok: false, status: 400, message: MESSAGES.missingData, errors: Object.fromEntries(r.problems) };
  const v = r.value;
  return {
    ok: true,
    value: {
      code: v.codigoPila,
      documentNumber: v.documentoAsociado,
      email: v.emailUserResponsable,
      request: requestOf(v, v.vaclaboraSabado),
    },
  };
}

/** delete and approve: the code and a well-formed e-mail. */
export function parseCodeInput(fields: Fields): { ok: true; value: { code: string; email: string } } | ({ ok: false } & Rejection) {
  const r = validate(codeBody, fields);
  if (!r.ok) return { ok: false, status: 400, message: MESSAGES.missingData, errors: Object.fromEntries(r.problems) };
  return { ok: true, value: { code: r.value.codigoPila, email: r.value.emailUserResponsable } };
}

/** interrupt: the code, the first day not enjoyed, the reason (any case) and a well-formed e-mail. */
export function parseInterruptInput(
  fields: Fields,
): { ok: true; value: { code: string; date: string; reason: InterruptionReason; email: string } } | ({ ok: false } & Rejection) {
  const reason = fields.get('motivo');
  const r = validate(interruptBody, reason === undefined ? fields : fields.with('motivo', reason.toLowerCase().replace(/[_\s]+/g, ' ')));
  if (!r.ok) return { ok: false, status: 400, message: MESSAGES.missingData, errors: Object.fromEntries(r.problems) };
  const v = r.value;
  return { ok: true, value: { code: v.codigoPila, date: v.fechaInterrupcion, reason: v.motivo, email: v.emailUserResponsable } };
}

/** A collective closure as the form gives it. */
export interface ClosureInput {
  scope: { subgerenciaIds: string[]; companyContractId: number | null };
  startDate: string;
  days: number;
  worksSaturday: boolean;
  preview: boolean;
  /** What the preview saw (its huella): the log's head and the reference data's version. */
  seen: { head: { commit: bigint; prepare: bigint }; version: number } | null;
  email: string;
}

/** Subgerencias or a company contract, exactly one; everything else as the schema says. */
export function parseClosureInput(fields: Fields): { ok: true; value: ClosureInput } | ({ ok: false } & Rejection) {
  const r = validate(closureBody, fields);
  if (!r.ok) return { ok: false, status: 400, message: MESSAGES.missingData, errors: Object.fromEntries(r.problems) };
  const v = r.value;
  if ((v.subgerenciaId === undefined) === (v.contratoEmpresaId === undefined)) {
    const text = 'Indique las subgerencias (subgerenciaId) o un contrato de empresa (contratoEmpresaId), uno de los dos';
    return { ok: false, status: 400, message: MESSAGES.missingData, errors: { subgerenciaId: text, contratoEmpresaId: text } };
  }
  const [commit, prepare, version] = v.huella?.split('.') ?? [];
  return {
    ok: true,
    value: {
      scope: {
        subgerenciaIds: v.subgerenciaId ? [...new Set(v.subgerenciaId.split(',').map((x) => x.trim()))] : [],
        companyContractId: v.contratoEmpresaId ? Number(v.contratoEmpresaId) : null,
      },
      startDate: v.fechaInicio,
      days: Number(v.dias),
      worksSaturday: v.laboraSabado === '1',
      preview: v.vista === 'previa',
      seen: v.huella ? { head: { commit: BigInt(commit!), prepare: BigInt(prepare!) }, version: Number(version) } : null,
      email: v.emailUserResponsable,
    },
  };
}

export function parseClosureCodeInput(
  fields: Fields,
): { ok: true; value: { closureId: string; email: string } } | ({ ok: false } & Rejection) {
  const r = validate(closureCodeBody, fields);
  if (!r.ok) return { ok: false, status: 400, message: MESSAGES.missingData, errors: Object.fromEntries(r.problems) };
  return { ok: true, value: { closureId: r.value.idColectiva, email: r.value.emailUserResponsable } };
}

export function parseClosureCancelInput(
  fields: Fields,
): { ok: true; value: { closureId: string; reason: string; email: string } } | ({ ok: false } & Rejection) {
  const r = validate(closureCancelBody, fields);
  if (!r.ok) {
    // Not the interruption's reasons: a closure's cancellation says why in words of its own.
    const errors = Object.fromEntries(
      [...r.problems].map(([k, v]) => [k, k === 'motivo' ? 'motivo debe tener entre 3 y 500 caracteres' : v]),
    );
    return { ok: false, status: 400, message: MESSAGES.missingData, errors };
  }
  return { ok: true, value: { closureId: r.value.idColectiva, reason: r.value.motivo, email: r.value.emailUserResponsable } };
}
