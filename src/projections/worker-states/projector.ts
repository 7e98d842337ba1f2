import { emptyWorkerState, foldOnto, recordsOf } from '../../commands/worker-state.ts';
import type { DecodedEvent } from '../../events/codec.ts';
import { workerIdOfStream } from '../../events/streams.ts';
import { columnDefinitions, loggedEvents, upsertRows } from '../sql.ts';
import type { Projector } from '../types.ts';
import { WORKER_STATES_COLUMNS as COLUMNS, WORKER_STATES_TABLE, storedStates } from './queries.ts';

/** What a record starts with besides its data, as worker-state.ts sets it (approval apart). */
const FRESH = `'deleted', false, 'deletedReason', null, 'replacedBy', null, 'interruptedOn', null, 'daysReturned', 0`;

const HANDLES: ReadonlySet<string> = new Set([
  'VacationCreated',
  'VacationImported',
  'VacationApproved',
  'VacationInterrupted',
  'VacationDeleted',
]);

/**
 * Each worker's vacations folded from their stream exactly as the commands fold it
 * (src/commands/worker-state.ts), one row a worker: what calculate reads in one indexed lookup
 * instead of reading and folding the stream. A batch folds its events onto the stored rows,
 * skipping what a row already holds, so a batch applied twice changes nothing.
 */
export const workerStatesProjector: Projector = {
  name: 'worker-states',
  handles: HANDLES,
  tables: [WORKER_STATES_TABLE],
  ddl(suffix) {
    const t = `${WORKER_STATES_TABLE}${suffix}`;
    return `
      CREATE TABLE IF NOT EXISTS ${t} (
${columnDefinitions(COLUMNS)},
        CONSTRAINT ${t}_pkey PRIMARY KEY (worker_id)
      );
    `;
  },
  async apply(q, events, suffix) {
    const byWorker = new Map<number, { event: DecodedEvent['event']; revision: number }[]>();
    for (const e of events) {
      if (!HANDLES.has(e.event.type)) continue;
      const workerId = workerIdOfStream(e.stored.stream);
      if (workerId === undefined) continue;
      let own = byWorker.get(workerId);
      if (!own) byWorker.set(workerId, (own = []));
      own.push({ event: e.event, revision: e.stored.revision });
    }
    if (byWorker.size === 0) return;
    const stored = await storedStates(q, [...byWorker.keys()], suffix);
    const rows = [];
    for (const [workerId, own] of byWorker) {
      const before = stored.get(workerId) ?? emptyWorkerState();
      const after = foldOnto(before, own);
      if (after !== before) rows.push({ worker_id: workerId, revision: after.revision, records: recordsOf(after) });
    }
    if (rows.length > 0) await upsertRows(q, `${WORKER_STATES_TABLE}${suffix}`, COLUMNS, rows, ['worker_id']);
  },
  replaySql(suffix) {
    // The fold of worker-state.ts, record by record. A creation starts the record afresh (an
    // imported one with its approval), so only what follows a code's last creation counts: the
    // last interruption's figures with the days every interruption gave back, an approval, a
    // deletion. Each of those sets fields of its own, so that applying them in this fixed order
    // gives what applying them in the stream's order does. A record keeps the place of its code's
    // first creation, as a Map keeps a key's first place.
    const later = (type: string) => `type = '${type}' AND revision > reborn`;
    const last = (value: string, type: string) => `(array_agg(${value} ORDER BY revision DESC) FILTER (WHERE ${later(type)}))[1]`;
    const created = `type IN ('VacationCreated', 'VacationImported')`;
    return [
      `INSERT INTO ${WORKER_STATES_TABLE}${suffix} (worker_id, revision, records)
       WITH ev AS MATERIALIZED (
         SELECT e.stream, e.revision, e.type, e.data, e.data->>'codigoPila' AS code
           FROM ${loggedEvents([...HANDLES])} AND e.stream ~ '^worker-[0-9]+$'
       ), placed AS (
         SELECT ev.*, min(revision) FILTER (WHERE ${created}) OVER w AS born, max(revision) FILTER (WHERE ${created}) OVER w AS reborn
           FROM ev WINDOW w AS (PARTITION BY stream, code)
       ), folded AS (
         SELECT stream, born,
                (array_agg(CASE WHEN type = 'VacationImported' THEN data || jsonb_build_object(${FRESH}, 'approved', data->'approved')
                                ELSE data || jsonb_build_object(${FRESH}, 'approved', false) END) FILTER (WHERE revision = reborn))[1]
                || CASE WHEN bool_or(${later('VacationInterrupted')})
                        THEN ${last(`data - '{interruptedOn,daysReturned,reason,before,interruptedByUserId,interruptedAt}'::text[]`, 'VacationInterrupted')}
                             || jsonb_build_object('interruptedOn', ${last(`data->'interruptedOn'`, 'VacationInterrupted')},
                                                   'daysReturned', sum((data->>'daysReturned')::integer) FILTER (WHERE ${later('VacationInterrupted')}))
                        ELSE '{}'::jsonb END
                || CASE WHEN bool_or(${later('VacationApproved')}) THEN '{"approved": true}'::jsonb ELSE '{}'::jsonb END
                || coalesce(${last(`jsonb_build_object('deleted', true, 'deletedReason', data->'reason', 'replacedBy', data->'replacedBy')`, 'VacationDeleted')}, '{}'::jsonb)
                AS record
           FROM placed WHERE reborn IS NOT NULL GROUP BY stream, code, born
       )
       SELECT substr(s.stream, 8)::bigint, s.revision, coalesce(r.records, '[]')
         FROM (SELECT stream, max(revision) AS revision FROM ev GROUP BY stream) s
         LEFT JOIN (SELECT stream, json_agg(record ORDER BY born) AS records FROM folded GROUP BY stream) r USING (stream)`,
    ];
  },
};
