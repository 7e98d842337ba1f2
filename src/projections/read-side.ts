import type { Db } from '../db/types.ts';
import type { WorkerFileRow } from '../reference/worker-files.ts';
import type { Position } from '../store/types.ts';
import { auditOfCode, auditOfWorker } from './audit-trail/queries.ts';
import { periodsReport } from './reports/periods.ts';
import { liveRegisterOf } from './register/queries.ts';
import { settlementPreview } from './reports/settlement.ts';
import { ReadYourWrites } from './runtime/read-your-writes.ts';
import type { ProjectionService } from './runtime/service.ts';
import type { ProjectionLogger, ReadBy } from './types.ts';
import { auditProjector } from './audit-trail/projector.ts';
import { allProjectors } from './registry.ts';
import { workerStatesProjector } from './worker-states/projector.ts';
import { vacationByCode, vacationsOfWorker } from './vacations/queries.ts';
import { closureById, listClosures } from './closures/queries.ts';
import { WorkerRowCache } from './runtime/row-cache.ts';
import { storedRecords } from './worker-states/queries.ts';
import { emptyWorkerState, ledgerRecord, liveVacations } from '../events/worker-state.ts';
import { judgedBytes, judgedState } from '../caching/judged-state.ts';
import { heapShare } from '../memory.ts';
import { intern } from '../caching/intern.ts';

/**
 * Read models the HTTP interface reads, as each projector declares (`readBy`): a read waits until
 * these include every write acknowledged before it; the panel's reads wait for its own as well.
 */
const readBy = (...who: ReadBy[]) => allProjectors.filter((p) => who.includes(p.readBy)).map((p) => p.name);
/** The share of the heap limit calculate's cache of workers' records may hold. */
const STATES_SHARE = 0.12;
/** Longest a read waits for the read models to include earlier writes. */
const READ_YOUR_WRITES_MS = 2000;

/**
 * The reads the HTTP interface and the panel make of the read models, each once they include
 * every write this instance acknowledged before it (bounded: see ReadYourWrites). The workers'
 * records are read through a cache beside their runner; nothing is loaded ahead, the cache fills
 * as requests come, each miss one indexed row read.
 */
export function readSideOf(db: Db, projections: ProjectionService, logger: ProjectionLogger, opts: { batching?: boolean } = {}) {
  // What consult and calculate read of each worker's records, as compact as judging allows (a few hundred
  // bytes a worker), within a share of the heap: at the default heap, some 35,000 workers.
  const states = new WorkerRowCache(
    projections,
    workerStatesProjector.name,
    // Judged from the stored records as they come: no state (a map of them) is built to be dropped.
    async (ids) => new Map([...(await storedRecords(db, ids))].map(([id, row]) => [id, judgedState({ vacations: row.records }, intern)])),
    judgedState(emptyWorkerState()),
    { maxBytes: heapShare(STATES_SHARE), bytesOf: judgedBytes },
    opts.batching,
  );
  const readYourWrites = (readModels: readonly string[]) =>
    new ReadYourWrites(
      (position, timeoutMs) => projections.waitFor(position, timeoutMs, readModels),
      READ_YOUR_WRITES_MS,
      () => logger.warn({ timeoutMs: READ_YOUR_WRITES_MS }, 'read models did not include an earlier write before a read'),
    );
  const served = readYourWrites(readBy('api'));
  // The panel's occupancy grid reads the occupancy read model too: its reads wait for that one as well.
  const servedAndOccupancy = readYourWrites(readBy('api', 'panel'));
  // The records of audited queries are waited for by the trail's reads alone: were they writes to
  // every read, each consult would hold the next one until the runners had caught up.
  const trail = readYourWrites([auditProjector.name]);
  const trailOf = <T>(read: () => Promise<T>) => served.fresh(() => trail.fresh(read));
  return {
    noteWrite(position: Position): void {
      served.noteWrite(position);
      servedAndOccupancy.noteWrite(position);
      // The runners read it now rather than at their next poll; a read that waits for it pokes them.
      projections.nudge();
    },
    noteAudit(position: Position): void {
      // No poke: a trail read that finds it missing pokes the runners itself (waitFor).
      trail.noteWrite(position);
    },
    workerStateOf: (workerId: number) => served.fresh(() => states.get(workerId)),
    liveRecordsOf: (workerId: number) => served.fresh(async () => liveVacations(await states.get(workerId)).map(ledgerRecord)),
    vacationsOfWorker: (workerId: number, opts: { includeDeleted: boolean }) => served.fresh(() => vacationsOfWorker(db, workerId, opts)),
    vacationByCode: (code: string) => served.fresh(async () => (await vacationByCode(db, code)) ?? null),
    auditOfWorker: (workerId: number, opts: { limit: number }) => trailOf(() => auditOfWorker(db, workerId, opts)),
    auditOfCode: (code: string) => trailOf(() => auditOfCode(db, code)),
    periodsOf: (file: WorkerFileRow, asOf: string) =>
      served.fresh(async () => periodsReport(file, await liveRegisterOf(db, file.worker.id), asOf)),
    settlementOf: (file: WorkerFileRow, leavingDate: string) =>
      served.fresh(async () => settlementPreview(file, await liveRegisterOf(db, file.worker.id), leavingDate)),
    closures: () => servedAndOccupancy.fresh(() => listClosures(db)),
    closureById: (id: string) => servedAndOccupancy.fresh(() => closureById(db, id)),
    fresh: <T>(read: () => Promise<T>, opts?: { occupancy?: boolean }) => (opts?.occupancy ? servedAndOccupancy : served).fresh(read),
  };
}
