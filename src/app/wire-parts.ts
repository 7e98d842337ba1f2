import { z } from 'zod';

/** The pieces the answers' schemas are made of (src/app/record-wire.ts, src/http/response-schemas.ts). */

export const date = z.string().meta({ format: 'date', example: '2026-01-05' });
export const timestamp = z.string().meta({ description: 'Hora de Bogotá, YYYY-MM-DD HH:MM:SS', example: '2026-11-21 10:15:00' });
export const isoTime = z.string().meta({ format: 'date-time' });
export const flag = z.enum(['1', '0']);
export const code = z.string().meta({ description: 'Código de control PILA', example: 'VAC_1795000000000_0a1b2c3d_4e5f6a7b' });

export const success = <S extends number, D extends z.ZodType>(status: S, data: D) =>
  z.strictObject({ success: z.literal(true), statusCode: z.literal(status), message: z.string(), data });
