import type { Queryable } from '../../db/types.ts';
import { toNumber } from '../sql.ts';
import { OCCUPANCY_TABLE } from './projector.ts';

export interface DayCount {
  day: string;
  count: number;
}

/** People away on enjoyed vacation in a subgerencia, for every day from `from` to `to` inclusive. */
export async function occupancyCounts(q: Queryable, subgerenciaId: string, from: string, to: string): Promise<DayCount[]> {
  const r = await q.query<{ day: string; count: unknown }>(
    `SELECT to_char(d, 'YYYY-MM-DD') AS day, count(o.codigo_pila) AS count
     FROM generate_series($2::date, $3::date, interval '1 day') AS d
     LEFT JOIN ${OCCUPANCY_TABLE} o ON o.subgerencia_id = $1 AND o.start_date <= d::date AND o.end_date >= d::date
     GROUP BY d ORDER BY d`,
    [subgerenciaId, from, to],
  );
  return r.rows.map((row) => ({ day: row.day, count: toNumber(row.count) }));
}
