import type { Queryable } from '../../db/types.ts';
import { CLOSURES_TABLE, type ClosureRow } from './projector.ts';

export type { ClosureRow, ClosureState } from './projector.ts';

/** Most closures one page lists. */
export const CLOSURES_PAGE = 50;

/** The latest closures by start date, newest first. */
export async function listClosures(q: Queryable, limit = CLOSURES_PAGE): Promise<ClosureRow[]> {
  const r = await q.query<{ closure: ClosureRow }>(
    `SELECT closure FROM ${CLOSURES_TABLE} ORDER BY start_date DESC, closure_id DESC LIMIT $1`,
    [limit],
  );
  return r.rows.map((row) => row.closure);
}

export async function closureById(q: Queryable, id: string): Promise<ClosureRow | null> {
  const r = await q.query<{ closure: ClosureRow }>(`SELECT closure FROM ${CLOSURES_TABLE} WHERE closure_id = $1`, [id]);
  return r.rows[0]?.closure ?? null;
}
