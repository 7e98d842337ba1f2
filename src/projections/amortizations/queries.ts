import type { Queryable } from '../../db/types.ts';
import type { Amortization } from '../../domain/index.ts';
import { selectList, toNumber } from '../sql.ts';
import { AMORTIZATION_COLUMNS, AMORTIZATIONS_TABLE } from './projector.ts';

/** The amortization plan of one record, by period; still there after the record is deleted. */
export async function amortizationsOfCode(q: Queryable, code: string): Promise<Amortization[]> {
  const r = await q.query<Record<string, unknown>>(
    `SELECT ${selectList(AMORTIZATION_COLUMNS)} FROM ${AMORTIZATIONS_TABLE} WHERE codigo_pila = $1 ORDER BY periodo`,
    [code],
  );
  return r.rows.map((a) => ({
    periodo: a.periodo as string,
    diasHabiles: toNumber(a.dias_habiles),
    diasCalendario: toNumber(a.dias_calendario),
    valor: toNumber(a.valor),
  }));
}
