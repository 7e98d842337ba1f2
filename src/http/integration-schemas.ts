import { z } from 'zod';
import { ESTADO, MODALIDAD } from '../app/record-wire.ts';
import { FEED_TYPES } from '../integration/feed.ts';
import { vacationView } from './response-schemas.ts';

/** The answers of the payroll integration: a month's novelties and the change feed (described in /openapi.json). */

const date = z.string().meta({ format: 'date', example: '2026-12-01' });
const code = z.string().meta({ description: 'Código de control PILA', example: 'VAC_1795000000000_0a1b2c3d_4e5f6a7b' });
const days = {
  diasHabiles: z.number().int(),
  diasCalendario: z.number().int(),
  valor: z.number().int().meta({ description: 'Pesos: la parte del mes de la amortización del registro' }),
};

const novelty = z.strictObject({
  codigoPila: code,
  contratoId: z.number().int().nullable(),
  subgerenciaId: z.string().nullable(),
  modalidad: MODALIDAD,
  estado: ESTADO,
  aprobada: z.boolean(),
  vacFechaInicio: date,
  vacFechaFinal: date,
  vacValorTotal: z.number().int(),
  fechaDesde: date.meta({ description: 'Primer día del registro dentro del mes' }),
  fechaHasta: date.meta({ description: 'Último día del registro dentro del mes' }),
  ...days,
  novedadPila: z
    .strictObject({ tipo: z.literal('VAC-LR'), inicio: date, fin: date })
    .nullable()
    .meta({ description: 'Novedad PILA de vacaciones disfrutadas en el mes; null si se compensaron en dinero' }),
  fechaInterrupcion: date.nullable().meta({ description: 'Primer día no disfrutado (CST art. 188): solo cuentan los días disfrutados' }),
  motivoInterrupcion: z.string().nullable(),
  reemplazaA: code.nullable().meta({ description: 'El registro que este reemplazó al editarse' }),
  continuaDe: code.nullable().meta({ description: 'Las vacaciones interrumpidas cuyos días pendientes toma este registro' }),
});

const totals = z.strictObject({ novedades: z.number().int(), ...days });

export const noveltiesOk = z.strictObject({
  success: z.literal(true),
  statusCode: z.literal(200),
  message: z.string(),
  data: z.strictObject({
    periodo: z.string().meta({ example: '2026-12' }),
    alCorte: date.nullable().meta({ description: 'El día hábil cuyo registro se leyó; null: lo que hay ahora' }),
    alcance: z.strictObject({ subgerenciaId: z.string().nullable(), numeroDocumento: z.string().nullable() }),
    trabajadores: z.array(
      z.strictObject({
        asociadoId: z.number().int(),
        tipoDocumento: z.string(),
        numeroDocumento: z.string(),
        nombres: z.string(),
        apellidos: z.string(),
        novedades: z.array(novelty),
        totales: totals,
      }),
    ),
    totales: totals.extend({ trabajadores: z.number().int() }).meta({ description: 'Del mes entero con el filtro, no solo de la página' }),
    siguiente: z.string().nullable().meta({ description: 'Cursor de la página siguiente (parámetro desde); null al final' }),
  }),
});

const RECORD_TYPES = FEED_TYPES.filter((t) => t !== 'co.vacaciones.colectiva.programada');

const cloudEventHead = {
  specversion: z.literal('1.0'),
  id: z.string().meta({ description: 'Id del evento, el mismo en cada llamada y entrega' }),
  source: z.string(),
  time: z.string().meta({ format: 'date-time' }),
  datacontenttype: z.literal('application/json'),
};

const recordCloudEvent = z.strictObject({
  ...cloudEventHead,
  type: z.enum(RECORD_TYPES as [string, ...string[]]),
  subject: z.string().meta({ description: 'Documento del trabajador' }),
  codigopila: code,
  data: vacationView.meta({ description: 'El registro como lo muestra la API justo después del evento' }),
});

const closureCloudEvent = z
  .strictObject({
    ...cloudEventHead,
    type: z.literal('co.vacaciones.colectiva.programada'),
    subject: z.string().meta({ description: 'Id de la vacación colectiva' }),
    data: z.strictObject({
      idColectiva: z.string(),
      subgerencias: z.array(z.string()),
      contratoEmpresaId: z.number().int().nullable(),
      fechaInicio: date,
      dias: z.number().int(),
      laboraSabado: z.enum(['0', '1']),
      codigos: z.array(code).meta({ description: 'Los códigos PILA de sus registros; cada uno llega también como vacacion.creada' }),
      excluidos: z.array(z.strictObject({ documentoAsociado: z.string(), motivo: z.string() })),
    }),
  })
  .meta({ description: 'Una vacación colectiva reservada: una decisión con su id' });

const cloudEvent = z.union([recordCloudEvent, closureCloudEvent]);

export const feedOk = z.strictObject({
  success: z.literal(true),
  statusCode: z.literal(200),
  eventos: z.array(cloudEvent).meta({ description: 'CloudEvents 1.0 (JSON estructurado), en el orden del registro de eventos' }),
  siguiente: z.string().meta({ description: 'Cursor opaco para la próxima llamada (parámetro desde), ligado a esta base de datos' }),
});
