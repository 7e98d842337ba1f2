import { emptyWorkerState, foldOnto, recordsOf, stateOf, type VacationState, type WorkerState } from '../../events/worker-state.ts';
import { workerIdOfStream } from '../../events/streams.ts';
import { columnDefinitions } from '../sql.ts';
import { defineProjector, type Projector } from '../types.ts';
import { WORKER_STATES_COLUMNS as COLUMNS, WORKER_STATES_TABLE } from './queries.ts';

/** A worker's row: their state as the commands fold it. */
interface WorkerRow {
  workerId: number;
  state: WorkerState;
}

const HANDLES: ReadonlySet<string> = new Set([
  'VacationCreated',
  'VacationImported',
  'VacationApproved',
  'VacationInterrupted',
  'VacationDeleted',
]);

/**
 * Each worker's vacations folded from their stream exactly as the commands fold it
 * (src/events/worker-state.ts), one row a worker: what calculate reads in one indexed lookup
 * instead of reading and folding the stream. A batch folds its events onto the stored rows,
 * skipping what a row already holds, so a batch applied twice changes nothing.
 */
export const workerStatesProjector: Projector = defineProjector<WorkerRow>({
  name: 'worker-states',
  label: 'Vacaciones de cada trabajador para los cálculos',
  readBy: 'api',
  handles: HANDLES,
  table: WORKER_STATES_TABLE,
  columns: COLUMNS,
  keyColumn: 'worker_id',
  unitOf: (e) => {
    const workerId = workerIdOfStream(e.stored.stream);
    return workerId === undefined ? undefined : String(workerId);
  },
  evolve(unit, events) {
    const before = unit?.state ?? emptyWorkerState();
    const after = foldOnto(
      before,
      events.map((e) => ({ event: e.event, revision: e.stored.revision })),
    );
    if (after === before) return unit;
    return { workerId: unit?.workerId ?? workerIdOfStream(events[0]!.stored.stream)!, state: after };
  },
  rowsOf: ({ workerId, state }) => [{ worker_id: workerId, revision: state.revision, records: recordsOf(state) }],
  unitFrom: (rows) => {
    const row = rows[0]!;
    return { workerId: row.worker_id as number, state: stateOf(row.revision as number, row.records as VacationState[]) };
  },
  ddl(suffix) {
    const t = `${WORKER_STATES_TABLE}${suffix}`;
    return `
      CREATE TABLE IF NOT EXISTS ${t} (
${columnDefinitions(COLUMNS)},
        CONSTRAINT ${t}_pkey PRIMARY KEY (worker_id)
      );
    `;
  },
});
