import type { VacationState } from '../../events/worker-state.ts';
import type { Queryable } from '../../db/types.ts';
import type { Columns } from '../sql.ts';

export const WORKER_STATES_TABLE = 'rm_worker_states';

export const WORKER_STATES_COLUMNS: Columns = {
  worker_id: 'bigint NOT NULL',
  /** The last revision of the worker's stream folded in. */
  revision: 'integer NOT NULL',
  /** Every record of the worker as the commands fold them, in the order first recorded; json, kept as written. */
  records: 'json NOT NULL',
};

/** The rows of these workers under `suffix`: the revision folded and the records, by worker. */
export async function storedRecords(
  q: Queryable,
  workerIds: readonly number[],
  suffix = '',
): Promise<Map<number, { revision: number; records: VacationState[] }>> {
  const r = await q.query<{ worker_id: string; revision: number; records: VacationState[] }>(
    `SELECT worker_id, revision, records FROM ${WORKER_STATES_TABLE}${suffix} WHERE worker_id = ANY($1::bigint[])`,
    [workerIds],
    // The live table's read runs for every request: planned once per connection.
    suffix === '' ? { prepare: true } : undefined,
  );
  return new Map(r.rows.map((row) => [Number(row.worker_id), row]));
}
