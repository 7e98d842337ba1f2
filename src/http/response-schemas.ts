import { z } from 'zod';
import { FIGURES_WIRE, RECORD_WIRE } from '../app/record-wire.ts';
import { code, date, flag, isoTime, success, timestamp } from '../app/wire-parts.ts';

export * from './law-response-schemas.ts';

/**
 * What every route answers, as /openapi.json describes it. The handlers build their bodies by
 * hand (no response validation or serialization on the request path); tests check real answers
 * against these schemas, so the document cannot drift from the service unnoticed.
 */

/** The law's notices a booking carries without being refused (src/app/notices.ts); absent when there are none. */
const avisos = z
  .array(z.strictObject({ codigo: z.literal('art187Preaviso'), mensaje: z.string() }))
  .optional()
  .meta({ description: 'Avisos de la ley que no impiden registrar: art187Preaviso si el inicio está a menos de 15 días de hoy' });

const calculation = z.strictObject({
  ...FIGURES_WIRE,
  vacPagado: flag,
  vacLaboraSabado: flag,
  vacCompensado: flag,
  vacSeguridadEnNomina: flag.nullable(),
  DiasDisponibles: z.number().meta({ description: 'Días disponibles en la fecha de inicio, con dos decimales; negativo tras anticipos' }),
  diasCausados: z.number().meta({ description: 'Días causados en la fecha de inicio, con dos decimales' }),
});

export const calculateOk = success(200, calculation);
export const addOk = success(201, z.strictObject({ codigo_pila: code, id: z.number().int(), vacaciones: RECORD_WIRE, avisos }));
export const editOk = success(
  200,
  z.strictObject({
    id: z.number().int(),
    codigoPilaAnterior: code,
    codigoPilaNuevo: code,
    fechaEdicion: timestamp,
    vacaciones: RECORD_WIRE,
    avisos,
  }),
);
export const deleteOk = success(200, z.strictObject({ idEliminado: z.number().int(), codigoPila: code, fechaEliminacion: timestamp }));
export const interruptOk = success(
  200,
  z.strictObject({
    id: z.number().int(),
    codigoPila: code,
    fechaInterrupcion: date.meta({ description: 'Primer día no disfrutado' }),
    motivo: z.enum(['incapacidad', 'licencia', 'calamidad', 'necesidad del servicio', 'otro']),
    diasDisfrutados: z
      .number()
      .int()
      .meta({ description: 'Días hábiles disfrutados antes de la interrupción: los que conserva el registro' }),
    diasDevueltos: z.number().int().meta({ description: 'Días hábiles no disfrutados, devueltos al saldo del trabajador' }),
    fechaRegistro: timestamp,
    vacaciones: RECORD_WIRE.meta({ description: 'El registro recalculado: fin, días calendario y valor de lo disfrutado' }),
  }),
);
export const approveOk = success(200, z.strictObject({ id: z.number().int(), codigoPila: code, fechaAprobacion: timestamp }));

const inactive = z.strictObject({ success: z.literal(true), activo: z.literal(false), estado: z.string() });

export const consultOk = z.union([
  z.strictObject({
    success: z.literal(true),
    asociadoId: z.number().int(),
    diasLaboradosNomina: z.number().int(),
    vacacionesDisponibles: z.number(),
    ibcUltimoMes: z.number().int(),
    parametrizacion: z.strictObject({
      diasVacacionesAnuales: z.number().int(),
      diasMinimosDisfrutados: z.number().int(),
      vacacionesAnticipadas: z.boolean(),
      diasVacacionesAnticipadas: z.number().int(),
      numeroPersonasVacaciones: z.number().int().nullable(),
    }),
  }),
  inactive.meta({ description: '"sin contratos", o "sin información de parametrización de vacaciones en contrato empresa"' }),
]);

export const contractOk = z.union([
  z.strictObject({
    success: z.literal(true),
    activo: z.literal(true),
    estado: z.literal('activo'),
    contrato: z.strictObject({ fechaInicio: date, fechaFin: date, esAdicional: z.boolean() }),
  }),
  inactive.meta({ description: '"sin contrato" o "sin contrato registrado"' }),
]);

const amortization = z.strictObject({
  periodo: z.string(),
  diasHabiles: z.number().int(),
  diasCalendario: z.number().int(),
  valor: z.number().int(),
});

export const vacationView = z.strictObject({
  recordId: z.number().int(),
  codigoPila: code,
  workerId: z.number().int(),
  documentNumber: z.string(),
  contractId: z.number().int().nullable(),
  companyContractId: z.number().int().nullable(),
  subgerenciaId: z.string().nullable(),
  startDate: date,
  endDate: date,
  businessDays: z.number().int(),
  calendarDays: z.number().int(),
  salary: z.number().int(),
  totalValue: z.number().int(),
  advance: z.boolean(),
  worksSaturday: z.boolean(),
  compensated: z.boolean(),
  socialSecurityInPayroll: z.boolean().nullable(),
  approved: z.boolean(),
  approvedAt: isoTime.nullable(),
  approvedBy: z.number().int().nullable(),
  status: z.enum(['live', 'deleted']),
  deletedReason: z.enum(['delete', 'edit']).nullable(),
  deletedAt: isoTime.nullable(),
  deletedBy: z.number().int().nullable(),
  replaces: code.nullable(),
  replacedBy: code.nullable(),
  underSettledContract: z.boolean().meta({
    description:
      'Se tomaron bajo un contrato ya liquidado: quedan como historia y no se descuentan del saldo (se pagaron en su liquidación)',
  }),
  createdAt: isoTime.nullable(),
  interruptedOn: date.nullable().meta({ description: 'Primer día no disfrutado, si las vacaciones se interrumpieron (CST art. 188)' }),
  interruptionReason: z.enum(['incapacidad', 'licencia', 'calamidad', 'necesidad del servicio', 'otro']).nullable(),
  continues: code.nullable().meta({ description: 'Las vacaciones interrumpidas cuyos días no disfrutados toma este registro' }),
  amortizations: z.array(amortization),
});

const auditEntry = z.strictObject({
  eventId: z.string(),
  position: z.string(),
  workerId: z.number().int(),
  codigoPila: code.nullable(),
  action: z.enum([
    'CREACION',
    'EDICION',
    'IMPORTACION',
    'DELETE',
    'EDICION_INICIO',
    'EDICION_BAJA',
    'ERROR_EDICION',
    'APROBACION',
    'INTERRUPCION',
    'CONSULTA_DATOS',
    'VERIFICACION_CONTRATO',
  ]),
  userId: z.number().int().nullable(),
  userEmail: z.string().nullable(),
  apiKeyName: z.string().nullable(),
  requestId: z.string().nullable(),
  correlationId: z.string().nullable(),
  occurredAt: isoTime.nullable(),
  details: z.record(z.string(), z.unknown()),
});

export const listOk = z.strictObject({
  success: z.literal(true),
  statusCode: z.literal(200),
  asociadoId: z.number().int(),
  vacaciones: z.array(vacationView),
});
export const recordOk = z.strictObject({ success: z.literal(true), statusCode: z.literal(200), vacacion: vacationView });
export const auditOk = z.strictObject({
  success: z.literal(true),
  statusCode: z.literal(200),
  asociadoId: z.number().int().optional().meta({ description: 'Solo al pedir por numeroDocumento' }),
  auditoria: z.array(auditEntry),
});

export const healthOk = z.strictObject({ status: z.literal('ok') });
export const readyOk = z.strictObject({ status: z.literal('ready') });
export const notReady = z.strictObject({ status: z.literal('unavailable'), reason: z.string() });

export const vacationError = z
  .strictObject({
    success: z.literal(false),
    statusCode: z.number().int(),
    message: z.string(),
    errors: z.union([z.record(z.string(), z.string()), z.array(z.string())]).optional(),
  })
  .meta({ description: '`errors` en todo error salvo 401 y 405: un objeto por campo (o `detalle`) o una lista de mensajes' });

export const lookupError = z
  .strictObject({ success: z.literal(false), statusCode: z.number().int().optional(), message: z.string() })
  .meta({ description: 'Sin statusCode solo en el 400 y el 500 de la verificación de contrato' });

export const contractForbidden = z.strictObject({
  success: z.literal(false),
  status: z.literal(403),
  error: z.strictObject({ message: z.string() }),
});

const hex = z.string().meta({ description: 'SHA-256 en hexadecimal' });

export const chainBreak = z.strictObject({
  flujo: z.string().meta({ description: 'El flujo de eventos cuya cadena se rompe' }),
  revision: z.number().int().meta({ description: 'La primera revisión donde no se sostiene' }),
  tipo: z.enum(['alterado', 'faltante', 'truncado']).meta({
    description:
      'alterado: el evento no corresponde a su hash; faltante: faltan eventos antes de él; truncado: faltan los últimos eventos del flujo',
  }),
  esperado: hex.meta({ description: 'El hash recalculado (vacío si truncado)' }),
  encontrado: hex.meta({ description: 'El hash guardado (si truncado, el del último evento que queda)' }),
  detalle: z.string(),
});

export const auditVerifyOk = z.strictObject({
  success: z.literal(true),
  statusCode: z.literal(200),
  asociadoId: z.number().int(),
  numeroDocumento: z.string(),
  verificado: z.boolean().meta({ description: 'true si todas las cadenas de hash del trabajador se sostienen' }),
  eventos: z.number().int().meta({ description: 'Eventos verificados' }),
  flujos: z
    .array(z.string())
    .meta({ description: 'Sus vacaciones, sus registros de auditoría y el flujo de cada código PILA que sus vacaciones nombran' }),
  rupturas: z.array(chainBreak).meta({ description: 'La primera ruptura de cada flujo roto' }),
});

const closureLine = z.strictObject({
  id: z.number().int().optional().meta({ description: 'El id del registro, una vez reservado' }),
  vacCodigoPila: code.optional().meta({ description: 'El código PILA del registro, una vez reservado' }),
  ...FIGURES_WIRE,
  documentoAsociado: z.string(),
  nombre: z.string(),
  subgerenciaId: z.string(),
  vacPagado: flag.meta({ description: '"1" si el trabajador toma días que aún no causó (anticipo que la empresa concede)' }),
  DiasDisponibles: z.number().meta({ description: 'Días disponibles en la fecha de inicio, con dos decimales' }),
  diasAnticipados: z.number().meta({ description: 'Días que toma por anticipado, con dos decimales' }),
});

const closureAnswer = {
  colectiva: z.strictObject({
    subgerencias: z.array(z.string()),
    contratoEmpresaId: z.number().int().nullable(),
    fechaInicio: date,
    dias: z.number().int(),
    laboraSabado: flag,
  }),
  totales: z.strictObject({
    trabajadores: z.number().int(),
    excluidos: z.number().int(),
    anticipados: z.number().int(),
    valorTotal: z.number().int(),
  }),
  trabajadores: z.array(closureLine),
  excluidos: z.array(
    z.strictObject({
      vacAsociado: z.number().int(),
      documentoAsociado: z.string(),
      nombre: z.string(),
      motivo: z.enum(['solapamiento', 'finContrato', 'sinContrato', 'sinParametrizacion', 'diaNoHabil']),
      mensaje: z.string(),
    }),
  ),
  avisos,
};

export const closurePreviewOk = success(
  200,
  z.strictObject({
    ...closureAnswer,
    huella: z.string().meta({ description: 'Envíela con la reserva: si algo cambió desde la vista previa, nada se reserva (409)' }),
  }),
);
export const closureBookedOk = success(201, z.strictObject({ idColectiva: z.string(), ...closureAnswer }));
export const closureChangeOk = success(
  200,
  z.strictObject({ idColectiva: z.string(), registros: z.number().int(), codigos: z.array(code), fecha: timestamp }),
);

const need = z.enum(['prescribe', 'acumula', 'pendiente']).meta({
  description:
    'prescribe: días que prescriben en el año (art. 488); acumula: más periodos pendientes de los que permite el art. 190; pendiente: el resto',
});
const planWorker = {
  vacAsociado: z.number().int(),
  documentoAsociado: z.string(),
  nombre: z.string(),
  subgerenciaId: z.string(),
};
export const planOk = success(
  200,
  z.strictObject({
    anio: z.number().int(),
    desde: date.meta({
      description: 'Primer día en que el plan propone inicios: el 1 de enero o el que da los 15 días de aviso del art. 187',
    }),
    subgerencias: z.array(z.string()).nullable().meta({ description: 'Las subgerencias pedidas; null: todas' }),
    totales: z.strictObject({
      colocados: z.number().int(),
      sinColocar: z.number().int(),
      diasQuePrescribenSinColocar: z
        .number()
        .int()
        .meta({ description: 'Días que prescribirían en el año de los trabajadores sin colocar' }),
    }),
    lineas: z.array(
      z.strictObject({
        ...planWorker,
        vacFechaInicio: date,
        vacFechaFinal: date,
        vacDiasVacaciones: z.number().int(),
        necesidad: need,
        diasCausadosDesde: date.nullable().meta({
          description:
            'Día desde el que la línea tiene sus días causados (un período que se causa en el año); null: causados hoy, la línea se puede reservar ya',
        }),
      }),
    ),
    sinColocar: z.array(
      z.strictObject({
        ...planWorker,
        diasPendientes: z.number().int(),
        necesidad: need,
        motivo: z.enum(['sinCupo', 'finContrato', 'pocosDias', 'sinSubgerencia', 'sinParametrizacion']),
        mensaje: z.string(),
      }),
    ),
  }),
);

export const planBookedOk = success(
  201,
  z.strictObject({
    registros: z.array(z.strictObject({ numeroDocumento: z.string(), id: z.number().int(), ...RECORD_WIRE.shape })),
    avisos,
  }),
);
