import { z } from 'zod';

/**
 * What every route answers, as /openapi.json describes it. The handlers build their bodies by
 * hand (no response validation or serialization on the request path); tests check real answers
 * against these schemas, so the document cannot drift from the service unnoticed.
 */

const date = z.string().meta({ format: 'date', example: '2026-01-05' });
const timestamp = z.string().meta({ description: 'Hora de Bogotá, YYYY-MM-DD HH:MM:SS', example: '2026-11-21 10:15:00' });
const isoTime = z.string().meta({ format: 'date-time' });
const flag = z.enum(['1', '0']);
const code = z.string().meta({ description: 'Código de control PILA', example: 'VAC_1795000000000_0a1b2c3d_4e5f6a7b' });

const success = <S extends number, D extends z.ZodType>(status: S, data: D) =>
  z.strictObject({ success: z.literal(true), statusCode: z.literal(status), message: z.string(), data });

/** The figures every vacation answer shows, as calculate, add and edit name them. */
const figures = {
  vacAsociado: z.number().int(),
  vacFechaInicio: date,
  vacFechaFinal: date,
  vacDiasVacaciones: z.number().int(),
  vacDiasCalendario: z.number().int(),
  vacSalario: z.number().int(),
  vacValorTotal: z.number().int(),
};

const calculation = z.strictObject({
  ...figures,
  vacPagado: flag,
  vacLaboraSabado: flag,
  vacCompensado: flag,
  vacSeguridadEnNomina: flag.nullable(),
  DiasDisponibles: z.number().meta({ description: 'Días disponibles en la fecha de inicio, con dos decimales; negativo tras anticipos' }),
  diasCausados: z.number().meta({ description: 'Días causados en la fecha de inicio, con dos decimales' }),
});

const vacationRecord = z.strictObject({ ...figures, vacCodigoPila: code });

export const calculateOk = success(200, calculation);
export const addOk = success(201, z.strictObject({ codigo_pila: code, id: z.number().int(), vacaciones: vacationRecord }));
export const editOk = success(
  200,
  z.strictObject({
    id: z.number().int(),
    codigoPilaAnterior: code,
    codigoPilaNuevo: code,
    fechaEdicion: timestamp,
    vacaciones: vacationRecord,
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
    vacaciones: vacationRecord.meta({ description: 'El registro recalculado: fin, días calendario y valor de lo disfrutado' }),
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

const days2 = z.number().meta({ description: 'Días con dos decimales' });
const warnings = z
  .array(
    z.strictObject({
      tipo: z.enum(['acumulacion', 'prescripcion', 'prescrito', 'posterior', 'liquidado', 'proyectado']),
      mensaje: z.string(),
    }),
  )
  .meta({
    description:
      'Más de dos períodos causados pendientes (cuatro para personal técnico o de confianza, CST art. 190); ' +
      'períodos pendientes que prescriben en los próximos 180 días o ya prescritos (CST art. 488); ' +
      'en la liquidación, vacaciones que terminan después de la fecha de retiro (posterior), ' +
      'días pendientes de contratos ya liquidados, que no se incluyen (liquidado), ' +
      'y días laborados después de la última nómina, que se proyectan desde el contrato (proyectado)',
  });

export const accrualPeriod = z.strictObject({
  contratoId: z.number().int(),
  numero: z.number().int().meta({ description: 'Número del período dentro del contrato, desde 1' }),
  desde: date,
  causadoEl: date.nullable().meta({ description: 'Día en que se completaron 360 días laborados; null mientras el período está en curso' }),
  estado: z.enum(['causado', 'en curso', 'proporcional']).meta({
    description:
      'causado: completó 360 días laborados; en curso: aún puede completarlos; ' +
      'proporcional: el contrato terminó o se liquidó antes, y el período queda con su parte proporcional',
  }),
  diasLaborados: z.number().int().meta({ description: 'Días laborados en el período según nómina, de 0 a 360' }),
  diasVacacionesAnuales: z.number().int().nullable(),
  contratoLiquidado: z.boolean().meta({
    description: 'El contrato del período está liquidado: se muestra como historia y no se debe nada más de él (se pagó en su liquidación)',
  }),
  diasCausados: days2,
  diasDisfrutados: days2,
  diasCompensados: days2,
  diasPendientes: days2.meta({ description: 'Negativo cuando se tomaron días anticipados' }),
  exigibleDesde: date.nullable().meta({ description: 'Un año después de causado (CST art. 187)' }),
  prescribeEl: date.nullable().meta({ description: 'Tres años después de exigible (CST art. 488)' }),
  prescrito: z.boolean(),
  vacaciones: z
    .array(z.strictObject({ codigoPila: code, dias: days2 }))
    .meta({ description: 'Días de cada registro aplicados a este período' }),
});

const totals = z.strictObject({ diasCausados: days2, diasDisfrutados: days2, diasCompensados: days2, diasPendientes: days2 });

export const periodsOk = success(
  200,
  z.strictObject({
    asociadoId: z.number().int(),
    numeroDocumento: z.string(),
    fechaCorte: date,
    periodos: z.array(accrualPeriod),
    totales: totals,
    advertencias: warnings,
  }),
);

export const settlementOk = success(
  200,
  z.strictObject({
    asociadoId: z.number().int(),
    numeroDocumento: z.string(),
    fechaRetiro: date,
    contrato: z
      .strictObject({
        contratoId: z.number().int(),
        salarioBase: z.number().int(),
        salarioVariable: z.boolean().meta({ description: 'El contrato paga salario variable (CST art. 192 §2)' }),
        salarioVacaciones: z.number().int().meta({
          description:
            'El salario con que se valoran los días: salarioBase, o con salario variable el promedio del año anterior a la fecha de retiro',
        }),
      })
      .meta({ description: 'El contrato que rige la fecha de retiro' }),
    nominaHasta: date.nullable().meta({
      description: 'Fin de la última planilla de nómina del contrato terminada a la fecha de retiro; null si no tiene',
    }),
    diasSinNomina: z
      .number()
      .int()
      .meta({
        description:
          'Días laborados desde el día siguiente a nominaHasta (o el inicio del contrato) hasta la fecha de retiro, ' +
          'en meses de 30 días como la nómina: se proyectan desde el contrato y se incluyen en los períodos, diasPendientes y valor',
      }),
    diasCausadosSinNomina: days2.meta({ description: 'Lo que causan esos días a los días anuales del contrato' }),
    diasPendientes: days2.meta({
      description:
        'Días causados (con la parte proporcional del último período y los días sin nómina) menos los tomados, ' +
        'sin los contratos ya liquidados; negativo tras anticipos',
    }),
    valor: z.number().int().meta({ description: 'salarioVacaciones × diasPendientes / 30, redondeado al peso' }),
    periodos: z.array(accrualPeriod).meta({ description: 'Los períodos con días pendientes (o debidos) de los contratos no liquidados' }),
    periodosExcluidos: z.array(accrualPeriod).meta({
      description: 'Los períodos con días pendientes de contratos ya liquidados: no se incluyen en diasPendientes ni en valor',
    }),
    advertencias: warnings,
  }),
);

const bookVacation = z.strictObject({
  id: z.number().int(),
  vacCodigoPila: code,
  contratoId: z.number().int().nullable(),
  subgerenciaId: z.string().nullable(),
  vacFechaInicio: date,
  vacFechaFinal: date.meta({
    description: 'Último día disfrutado; en unas vacaciones interrumpidas, el último día hábil antes de la interrupción',
  }),
  vacDiasVacaciones: z.number().int().meta({ description: 'Días hábiles (los disfrutados, si se interrumpieron)' }),
  vacDiasCalendario: z.number().int(),
  vacSalario: z.number().int(),
  vacValorTotal: z.number().int(),
  vacCompensado: flag,
  vacPagado: flag,
  modalidad: z.enum(['disfrutadas', 'compensadas en dinero']),
  estado: z.enum(['registrada', 'aprobada', 'interrumpida']),
  aprobada: z.boolean(),
  fechaInterrupcion: date.nullable().meta({ description: 'Primer día no disfrutado (CST art. 188)' }),
  motivoInterrupcion: z.string().nullable(),
  continuaDe: code.nullable().meta({ description: 'Código de las vacaciones interrumpidas cuyos días pendientes toma este registro' }),
  contratoLiquidado: z.boolean().meta({
    description:
      'Se tomaron bajo un contrato ya liquidado: quedan como historia y no se descuentan del saldo (se pagaron en su liquidación)',
  }),
});

export const bookWorker = z.strictObject({
  asociadoId: z.number().int(),
  tipoDocumento: z.string(),
  numeroDocumento: z.string(),
  nombres: z.string(),
  apellidos: z.string(),
  fechaIngreso: date
    .nullable()
    .meta({ description: 'Inicio del primer contrato principal comenzado a la fecha de corte; null si ninguno' }),
  periodos: z.array(accrualPeriod).meta({ description: 'Los períodos en la fecha de corte que tocan el rango de fechas' }),
  vacaciones: z.array(bookVacation).meta({ description: 'Las vacaciones vigentes en la fecha de corte que tocan el rango de fechas' }),
  totales: totals.meta({ description: 'Los totales del trabajador en la fecha de corte, sin importar el rango' }),
});

export const bookOk = success(
  200,
  z.strictObject({
    fechaCorte: date,
    fechaDesde: date.nullable(),
    fechaHasta: date.nullable(),
    alcance: z.strictObject({
      tipo: z.enum(['empresa', 'subgerencia', 'trabajador']),
      subgerenciaId: z.string().nullable(),
      numeroDocumento: z.string().nullable(),
    }),
    trabajadores: z.array(bookWorker),
    totalTrabajadores: z.number().int(),
  }),
);
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
