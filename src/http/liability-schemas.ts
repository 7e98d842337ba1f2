import { z } from 'zod';

/** The JSON answers of GET /api/vacaciones/pasivo and /api/vacaciones/pasivo/movimiento (described in /openapi.json). */

const pesos = (description: string) => z.number().int().meta({ description });
const days = (description: string) => z.number().meta({ description: `${description}, con dos decimales` });

const who = {
  asociadoId: z.number().int(),
  tipoDocumento: z.string(),
  numeroDocumento: z.string(),
  nombres: z.string(),
  apellidos: z.string(),
  contratoId: z
    .number()
    .int()
    .meta({ description: 'El contrato que rige en la fecha (o el último): su salario, subgerencia y contrato de empresa' }),
  subgerenciaId: z.string(),
  contratoEmpresaId: z.number().int().nullable(),
};

const alcance = z.strictObject({
  subgerenciaId: z.string().nullable(),
  contratoEmpresaId: z.number().int().nullable(),
  numeroDocumento: z.string().nullable(),
});

const cursor = z.string().nullable().meta({ description: 'El cursor de la página siguiente (parámetro desde); null en la última' });

const liabilitySum = {
  trabajadores: z.number().int(),
  diasPendientes: days('Días pendientes de los trabajadores que deben días'),
  diasAnticipados: days('Días tomados por anticipado, aparte'),
  valor: pesos('Pasivo: la suma de los valores de los trabajadores, cada uno redondeado al peso'),
  anticipado: pesos('Vacaciones pagadas por anticipado, aparte, nunca restadas del pasivo'),
};

const movementFigures = {
  diasCausados: days('Días causados en el mes'),
  diasTomados: z.number().int().meta({ description: 'Días disfrutados o compensados en el mes' }),
  apertura: pesos('El pasivo (neto de lo anticipado) el día anterior al mes'),
  causado: pesos('Días causados en el mes por el salario del cierre / 30'),
  tomado: pesos('Días tomados en el mes por el salario del cierre / 30'),
  revaluacion: pesos('cierre − apertura − causado + tomado: cambios de salario y redondeo'),
  cierre: pesos('El pasivo (neto de lo anticipado) el último día del mes'),
};

const movementSum = { trabajadores: z.number().int(), ...movementFigures };

const totals = <S extends z.ZodRawShape>(sum: S) =>
  z
    .strictObject({
      ...sum,
      porSubgerencia: z.array(z.strictObject({ subgerenciaId: z.string(), ...sum })),
      porContratoEmpresa: z.array(z.strictObject({ contratoEmpresaId: z.number().int().nullable(), ...sum })),
    })
    .nullable()
    .meta({ description: 'De todo el alcance, en la primera página; null en las siguientes' });

const observacion = z.string().nullable().meta({
  description:
    'Por qué el contrato con que se valora no causa días (sin fechas, contrato de empresa, nivel de riesgo o parámetros); null si causa',
});

export const liabilityOk = z.strictObject({
  success: z.literal(true),
  statusCode: z.literal(200),
  message: z.string(),
  data: z.strictObject({
    alCorte: z.string().meta({ format: 'date', example: '2026-12-31' }),
    proyeccion: z.boolean().meta({ description: 'El corte es futuro: solo causa la nómina ya corrida' }),
    alcance,
    trabajadores: z.array(
      z.strictObject({
        ...who,
        diasCausados: days('Días causados hasta el corte (nómina corrida hasta él)'),
        diasDisfrutados: z.number().int().meta({ description: 'Días hábiles disfrutados hasta el corte' }),
        diasCompensados: z.number().int().meta({ description: 'Días compensados en dinero que empiezan hasta el corte' }),
        diasPendientes: days('Causados − disfrutados − compensados; negativo: días tomados por anticipado'),
        salarioMensual: pesos('El salario con que se pagarían unas vacaciones que empezaran en el corte'),
        salarioDiario: z.number().meta({ description: 'salarioMensual / 30, al centavo' }),
        valor: pesos('Días pendientes × salario / 30, redondeado al peso; 0 si son negativos'),
        anticipado: pesos('El valor de los días tomados por anticipado; 0 si no hay'),
        observacion,
      }),
    ),
    totales: totals(liabilitySum),
    siguiente: cursor,
  }),
});

export const liabilityMovementOk = z.strictObject({
  success: z.literal(true),
  statusCode: z.literal(200),
  message: z.string(),
  data: z.strictObject({
    periodo: z.string().meta({ example: '2026-12' }),
    desde: z.string().meta({ format: 'date' }),
    hasta: z.string().meta({ format: 'date' }),
    proyeccion: z.boolean().meta({ description: 'El mes no ha terminado: el cierre es una proyección' }),
    alcance,
    trabajadores: z.array(z.strictObject({ ...who, salarioMensual: pesos('El salario del cierre'), ...movementFigures, observacion })),
    totales: totals(movementSum),
    siguiente: cursor,
  }),
});
