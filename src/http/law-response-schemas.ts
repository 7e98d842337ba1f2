import { z } from 'zod';
import { REGISTER_RECORD_WIRE } from '../app/record-wire.ts';
import { code, date, success } from '../app/wire-parts.ts';

/**
 * What the vacation law's reports answer (the accrual periods, the settlement, the vacation book),
 * as /openapi.json describes them; response-schemas.ts gives them with every other answer.
 */

const days2 = z.number().meta({ description: 'Días con dos decimales' });
const warnings = z
  .array(
    z.strictObject({
      tipo: z.enum(['acumulacion', 'prescripcion', 'prescrito', 'posterior', 'liquidado', 'proyectado', 'art190SeisDias']),
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
  diasDescontados: z.strictObject({ licenciaNoRemunerada: z.number().int(), suspension: z.number().int() }).meta({
    description:
      'Días de las planillas del período que no causan vacaciones (CST arts. 51, 53), por motivo: ' +
      'licencia no remunerada y suspensión del contrato',
  }),
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
  art190SeisDias: z
    .boolean()
    .meta({ description: 'Pasó su año para disfrutarlo sin un registro disfrutado de 6 días hábiles o más (CST art. 190)' }),
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
  vacaciones: z
    .array(REGISTER_RECORD_WIRE)
    .meta({ description: 'Las vacaciones vigentes en la fecha de corte que tocan el rango de fechas' }),
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
