import type { Queryable } from '../../db/types.ts';
import { selectList, toNumber } from '../sql.ts';
import { AVAILABILITY_COLUMNS, AVAILABILITY_TABLE } from './projector.ts';

export interface AvailabilityView {
  daysTaken: number;
  daysEnjoyed: number;
  daysCompensated: number;
  liveRecords: number;
}

/** Business days taken by a worker's live records; zeros for a worker without any. */
export async function availabilityOf(q: Queryable, workerId: number): Promise<AvailabilityView> {
  const r = await q.query<Record<string, unknown>>(
    `SELECT ${selectList(AVAILABILITY_COLUMNS)} FROM ${AVAILABILITY_TABLE} WHERE worker_id = $1`,
    [workerId],
  );
  const row = r.rows[0];
  return row ? toView(row) : NOTHING_TAKEN;
}

export const NOTHING_TAKEN: AvailabilityView = Object.freeze({ daysTaken: 0, daysEnjoyed: 0, daysCompensated: 0, liveRecords: 0 });

const toView = (row: Record<string, unknown>): AvailabilityView => ({
  daysTaken: toNumber(row.days_taken),
  daysEnjoyed: toNumber(row.days_enjoyed),
  daysCompensated: toNumber(row.days_compensated),
  liveRecords: toNumber(row.live_records),
});

/** availabilityOf for many workers in one query; workers without a row are left out. */
export async function availabilityOfMany(q: Queryable, workerIds: readonly number[]): Promise<Map<number, AvailabilityView>> {
  const r = await q.query<Record<string, unknown>>(
    `SELECT ${selectList(AVAILABILITY_COLUMNS)} FROM ${AVAILABILITY_TABLE} WHERE worker_id = ANY($1::bigint[])`,
    [workerIds],
  );
  return new Map(r.rows.map((row) => [toNumber(row.worker_id), toView(row)]));
}
