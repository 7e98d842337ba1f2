import { z } from 'zod';
import { SERVED_DATES, isServedDate, isServedMonth, isValidDate } from '../domain/index.ts';
import { INTERRUPTION_REASONS } from '../events/types.ts';
import { FEED_MAX_LIMIT, FEED_MAX_WAIT_S } from '../integration/feed.ts';

/**
 * Request schemas of every route. The same objects validate requests (vacation-input.ts maps
 * their issues to the Spanish messages callers expect) and describe them in /openapi.json.
 * Form values are text, so every field is a string with a pattern.
 */

const date = z
  .string()
  .regex(/^\d{4}-\d{2}-\d{2}$/)
  .refine(isValidDate)
  .meta({ format: 'date', description: 'Fecha YYYY-MM-DD', example: '2026-01-05' });
const SERVED_MONTHS = { from: SERVED_DATES.from.slice(0, 7), to: SERVED_DATES.to.slice(0, 7) } as const;
/** The dates the vacation-law endpoints take: within the service's years; outside, the caller is told the range (vacation-input.ts). */
const lawDate = date.refine(isServedDate, { params: { range: SERVED_DATES } });
/** A description of such a date: what it is, then its form and range. */
const lawDateText = (what: string) => `${what}, YYYY-MM-DD entre ${SERVED_DATES.from} y ${SERVED_DATES.to}`;
const days = z
  .string()
  .regex(/^\d{1,3}$/)
  .refine((s) => Number(s) >= 1 && Number(s) <= 360)
  .meta({ description: 'Días hábiles de vacaciones, entero de 1 a 360', example: '15' });
const flag = (description: string) => z.enum(['1', '0']).optional().meta({ description });
const email = z
  .string()
  .max(254)
  .meta({ format: 'email', description: 'Correo del usuario administrador responsable', example: 'admin@empresa.co' });
const strictEmail = email.regex(/^[^\s@]{1,64}@[^\s@]{1,255}\.[^\s@]{2,63}$/);
const document = z.string().min(1).max(40).meta({ description: 'Número de documento del trabajador', example: '1020307007' });
const code = z
  .string()
  .min(1)
  .max(200)
  .meta({ description: 'Código de control PILA del registro', example: 'VAC_1795000000000_0a1b2c3d_4e5f6a7b' });

const vacationFlags = {
  vacPagado: flag('"1" vacaciones anticipadas, "0" no (por defecto)'),
  vacCompensado: flag('"1" compensadas en dinero, "0" disfrutadas (por defecto)'),
  vacSeguridadEnNomina: flag('"1" la seguridad social se toma en nómina, "0" no'),
};

export const calculateBody = z.object({
  documentoAsociado: document,
  vacFechaInicio: date,
  vacDiasVacaciones: days,
  emailUserResponsable: strictEmail,
  vacLaboraSabado: flag('"1" el trabajador labora los sábados, "0" no (por defecto)'),
  ...vacationFlags,
  codigoPilaInterrumpido: code.optional().meta({
    description: 'Código PILA de unas vacaciones interrumpidas del trabajador cuyos días no disfrutados toma este registro (CST art. 188)',
  }),
});

export const editBody = z.object({
  codigoPila: code,
  documentoAsociado: document,
  vacFechaInicio: date,
  vacDiasVacaciones: days,
  emailUserResponsable: strictEmail,
  vaclaboraSabado: flag('"1" el trabajador labora los sábados, "0" no (por defecto); con l minúscula en esta ruta'),
  ...vacationFlags,
});

export const codeBody = z.object({ codigoPila: code, emailUserResponsable: strictEmail });

export const interruptBody = z.object({
  codigoPila: code,
  fechaInterrupcion: lawDate.meta({
    description: lawDateText('Primer día hábil no disfrutado, del inicio (nada disfrutado) al fin de las vacaciones'),
    example: '2026-11-23',
  }),
  motivo: z.enum(INTERRUPTION_REASONS).meta({ description: 'incapacidad, licencia, calamidad, necesidad del servicio u otro' }),
  emailUserResponsable: strictEmail,
});

const closureId = z
  .string()
  .regex(/^COL_\d{1,16}_[0-9a-f]{8}$/)
  .meta({ description: 'Identificador de la colectiva, como lo dio su reserva', example: 'COL_1795000000000_0a1b2c3d' });

/** A collective closure (vacaciones colectivas): a scope, a start, business days and the Saturday flag. */
export const closureBody = z.object({
  subgerenciaId: z
    .string()
    .regex(/^[^,\s][^,]{0,79}(,[^,\s][^,]{0,79}){0,49}$/)
    .optional()
    .meta({ description: 'Subgerencias que cierran, separadas por comas (o contratoEmpresaId)', example: 'SG-OPERACIONES' }),
  contratoEmpresaId: z
    .string()
    .regex(/^\d{1,15}$/)
    .optional()
    .meta({ description: 'Contrato de empresa cuyas subgerencias cierran todas (o subgerenciaId)', example: '10' }),
  fechaInicio: lawDate.meta({ description: lawDateText('Primer día de la colectiva, hábil'), example: '2026-12-28' }),
  dias: days,
  laboraSabado: flag('"1" los sábados cuentan como hábiles, "0" no (por defecto)'),
  vista: z.enum(['previa']).optional().meta({ description: '"previa": nada se guarda, solo se muestra quién quedaría y quién no' }),
  huella: z
    .string()
    .regex(/^\d{1,20}\.\d{1,20}\.\d{1,20}$/)
    .optional()
    .meta({ description: 'La huella de la vista previa: si algún trabajador cambió desde entonces, no se reserva nada (409)' }),
  emailUserResponsable: strictEmail,
});

export const closureCodeBody = z.object({ idColectiva: closureId, emailUserResponsable: strictEmail });

export const closureCancelBody = z.object({
  idColectiva: closureId,
  motivo: z
    .string()
    .trim()
    .min(3)
    .max(500)
    .meta({ description: 'Por qué se cancela la colectiva', example: 'Cambio del cierre de planta' }),
  emailUserResponsable: strictEmail,
});

export const consultQuery = z.object({
  numeroDocumento: document,
  emailResponsable: email,
});

export const contractQuery = z.object({
  tipoDocumento: z.string().max(10).optional().meta({ description: 'Tipo de documento (CC, CE, TI, PA, PEP, PPT, NIT)' }),
  numeroDocumento: document,
  emailResponsable: email,
});

export const listQuery = z.object({
  numeroDocumento: document,
  emailResponsable: email,
  incluirEliminadas: flag('"1" incluye registros eliminados'),
});

export const auditQuery = z.object({
  numeroDocumento: document.optional(),
  codigoPila: code.optional(),
  emailResponsable: email,
  limite: z
    .string()
    .regex(/^\d{1,4}$/)
    .optional()
    .meta({ description: 'Máximo de entradas (1 a 1000)' }),
});

export const recordQuery = z.object({ emailResponsable: email });

export const auditVerifyQuery = z.object({ numeroDocumento: document, emailResponsable: email });

export const auditExportQuery = z.object({
  numeroDocumento: document.optional().meta({ description: 'El trabajador cuyos flujos se exportan (o subgerencia, no ambos)' }),
  subgerencia: z
    .string()
    .min(1)
    .max(100)
    .optional()
    .meta({ description: 'Los flujos de todos los trabajadores con contrato en la subgerencia y su ocupación' }),
  fechaCorte: z
    .string()
    .optional()
    .meta({ description: 'Cada flujo como estaba en esa hora ISO 8601, o al final de ese día YYYY-MM-DD en Bogotá' }),
  emailResponsable: email,
});

export const settlementQuery = z.object({
  numeroDocumento: document,
  fechaRetiro: lawDate.meta({
    description: lawDateText('Fecha de retiro (último día del contrato)'),
    example: '2026-12-31',
  }),
  emailResponsable: email,
});

export const periodsQuery = z.object({
  numeroDocumento: document,
  emailResponsable: email,
});

export const bookQuery = z.object({
  emailResponsable: email,
  formato: z.enum(['json', 'csv', 'xlsx']).optional().meta({ description: 'json (por defecto), csv o xlsx' }),
  numeroDocumento: document.optional().meta({ description: 'Solo este trabajador' }),
  subgerenciaId: z
    .string()
    .min(1)
    .max(40)
    .optional()
    .meta({ description: 'Solo los trabajadores con un contrato de esta subgerencia', example: 'SG-OPS' }),
  fechaDesde: lawDate.optional().meta({ description: lawDateText('Períodos y vacaciones que terminan en esta fecha o después') }),
  fechaHasta: lawDate.optional().meta({ description: lawDateText('Períodos y vacaciones que empiezan en esta fecha o antes') }),
  fechaCorte: lawDate.optional().meta({ description: lawDateText('El libro como estaba al final de este día (por defecto hoy)') }),
});

/** A cut-off: a business day (its end), or an ISO time with its zone, taken as the business day it falls on in Bogota. */
const cutOff = z
  .string()
  .max(40)
  .refine(
    (s) =>
      /^\d{4}-\d{2}-\d{2}$/.test(s)
        ? isValidDate(s)
        : /^\d{4}-\d{2}-\d{2}T[\d:.]+(Z|[+-]\d{2}:\d{2})$/.test(s) && !Number.isNaN(Date.parse(s)),
    { abort: true },
  )
  // The day in Bogota is within a day of the date written, far from the ends of any date type.
  .refine((s) => isServedDate(s.slice(0, 10)), { params: { range: SERVED_DATES } })
  .meta({
    description:
      'Lo que se sabía entonces: una fecha YYYY-MM-DD (al final del día) o una hora ISO 8601 con zona, que cuenta como el día ' +
      'hábil en que cae en Bogotá (el registro guarda cada versión por día); por defecto, lo que hay ahora',
    example: '2026-12-31T23:59:59-05:00',
  });

const payrollMonth = z
  .string()
  .regex(/^\d{4}-(0[1-9]|1[0-2])$/)
  .refine(isServedMonth, { params: { range: SERVED_MONTHS } })
  .meta({ description: `Mes de nómina, YYYY-MM entre ${SERVED_MONTHS.from} y ${SERVED_MONTHS.to}`, example: '2026-12' });

export const noveltiesQuery = z.object({
  emailResponsable: email,
  periodo: payrollMonth,
  subgerenciaId: z.string().min(1).max(40).optional().meta({ description: 'Solo las vacaciones registradas en esta subgerencia' }),
  numeroDocumento: document.optional().meta({ description: 'Solo este trabajador' }),
  formato: z.enum(['json', 'csv', 'xlsx']).optional().meta({ description: 'json (por defecto, por páginas), csv o xlsx (el mes entero)' }),
  alCorte: cutOff.optional(),
  desde: z.string().max(200).optional().meta({ description: 'El cursor `siguiente` de la página anterior (solo JSON)' }),
  limite: z
    .string()
    .regex(/^\d{1,4}$/)
    .refine((s) => Number(s) >= 1 && Number(s) <= 5000)
    .optional()
    .meta({ description: 'Trabajadores por página, de 1 a 5000 (por defecto 500)' }),
});

export const electronicPayrollQuery = z.object({
  emailResponsable: email,
  periodo: payrollMonth,
  numeroDocumento: document.optional().meta({ description: 'Solo este trabajador' }),
  subgerenciaId: z.string().min(1).max(40).optional().meta({ description: 'Solo las vacaciones registradas en esta subgerencia' }),
  alCorte: cutOff.optional(),
  formato: z.enum(['xml', 'json']).optional().meta({ description: 'xml (por defecto) o json' }),
});

const pageLimit = z
  .string()
  .regex(/^\d{1,4}$/)
  .refine((s) => Number(s) >= 1 && Number(s) <= 5000)
  .optional()
  .meta({ description: 'Trabajadores por página, de 1 a 5000 (por defecto 500)' });

const liabilityScope = {
  emailResponsable: email,
  subgerenciaId: z
    .string()
    .min(1)
    .max(40)
    .optional()
    .meta({ description: 'Solo los trabajadores contados en esta subgerencia', example: 'SG-OPS' }),
  contratoEmpresaId: z
    .string()
    .regex(/^\d{1,15}$/)
    .optional()
    .meta({ description: 'Solo los trabajadores contados en este contrato de empresa', example: '1' }),
  numeroDocumento: document.optional().meta({ description: 'Solo este trabajador' }),
  formato: z
    .enum(['json', 'csv', 'xlsx'])
    .optional()
    .meta({ description: 'json (por defecto, por páginas), csv o xlsx (todo el alcance)' }),
  desde: z.string().max(200).optional().meta({ description: 'El cursor `siguiente` de la página anterior (solo JSON)' }),
  limite: pageLimit,
};

export const liabilityQuery = z.object({
  ...liabilityScope,
  alCorte: lawDate.meta({
    description: lawDateText('Fecha de corte del pasivo; una fecha futura es una proyección (solo la nómina ya corrida causa)'),
    example: '2026-12-31',
  }),
});

export const liabilityMovementQuery = z.object({ ...liabilityScope, periodo: payrollMonth });

/** The change feed's parameters, as /openapi.json describes them (the route checks them with its own messages). */
export const feedQuery = z.object({
  desde: z.string().optional().meta({ description: 'El cursor "siguiente" de la respuesta anterior; sin él, desde el primer evento' }),
  limite: z
    .string()
    .optional()
    .meta({ description: `Eventos como máximo, de 1 a ${FEED_MAX_LIMIT} (por defecto 100)` }),
  espera: z
    .string()
    .optional()
    .meta({ description: `Segundos, de 0 a ${FEED_MAX_WAIT_S}, que la llamada espera un evento si no hay ninguno (por defecto 0)` }),
});

/** The annual plan's parameters. */
export const planQuery = z.object({
  emailResponsable: email,
  anio: z
    .string()
    .regex(/^\d{4}$/)
    .meta({ description: 'El año del plan: el actual o el siguiente', example: '2027' }),
  subgerenciaId: z
    .string()
    .regex(/^[^,\s][^,]{0,79}(,[^,\s][^,]{0,79}){0,49}$/)
    .optional()
    .meta({ description: 'Subgerencias del plan, separadas por comas; todas si falta', example: 'SG-OPS' }),
});

/** Lines one plan booking takes at most: beyond them a body would not fit the body limit anyway. */
export const MAX_PLAN_LINES = 2000;

/** One line of the plan to book: a worker, a start and enjoyed business days. */
export const planLineBody = z.object({
  numeroDocumento: document,
  vacFechaInicio: lawDate.meta({ description: lawDateText('Inicio de la línea, un día hábil'), example: '2027-02-01' }),
  vacDiasVacaciones: days,
});

/** The annual plan booked all or nothing: the lines as the plan gave them, with any start HR moved. */
export const planBookingBody = z.object({
  emailUserResponsable: strictEmail,
  lineas: z
    .array(planLineBody)
    .min(1)
    .max(MAX_PLAN_LINES)
    .meta({
      description: `Las líneas del plan, una por trabajador (hasta ${MAX_PLAN_LINES}); en un formulario, esta lista como texto JSON`,
    }),
});
