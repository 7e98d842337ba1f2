import { z } from 'zod';

/** The JSON answer of GET /api/vacaciones/nomina-electronica (described in /openapi.json). */

const date = z.string().meta({ format: 'date', example: '2026-12-07' });
const cantidad = z.number().int().meta({ description: 'Cantidad: días hábiles (xsd:integer)' });
const pago = z
  .string()
  .regex(/^\d+\.\d{2}$/)
  .meta({ description: 'Pago: pesos con dos decimales, como en el XML (xsd:decimal)', example: '1423500.00' });
const code = z
  .string()
  .meta({ description: 'El registro de vacaciones (no va en el XML)', example: 'VAC_1795000000000_0a1b2c3d_4e5f6a7b' });

export const electronicPayrollOk = z.strictObject({
  success: z.literal(true),
  statusCode: z.literal(200),
  message: z.string(),
  data: z.strictObject({
    periodo: z.string().meta({ example: '2026-12' }),
    alCorte: date.meta({ description: 'El día cuyo registro se leyó' }),
    alcance: z.strictObject({ subgerenciaId: z.string().nullable(), numeroDocumento: z.string().nullable() }),
    espacioDeNombres: z.literal('dian:gov:co:facturaelectronica:NominaIndividual'),
    trabajadores: z.array(
      z.strictObject({
        tipoDocumento: z.string(),
        numeroDocumento: z.string(),
        Vacaciones: z.strictObject({
          VacacionesComunes: z.array(
            z.strictObject({ FechaInicio: date, FechaFin: date, Cantidad: cantidad, Pago: pago, codigoPila: code }),
          ),
          VacacionesCompensadas: z.array(z.strictObject({ Cantidad: cantidad, Pago: pago, codigoPila: code })),
        }),
      }),
    ),
    totalTrabajadores: z.number().int(),
  }),
});
