import type { Db } from '../../db/types.ts';
import { START, type EventStore } from '../../store/types.ts';
import { readCheckpoints } from './checkpoints.ts';
import { rebuild } from './rebuild.ts';
import { allProjectors } from './registry.ts';
import { lagsAfter } from './status.ts';
import type { Projector, ProjectionLogger } from '../types.ts';

export interface BulkStartOptions {
  /** Events behind, at the least, for a read model to be rebuilt rather than caught up live. */
  minLag: number;
  /** ...and the least share of the whole log they make. */
  minShare: number;
}

/**
 * Live batches took a whole log of 1,020,808 events (50,000 workers after an import) in 74 s,
 * some 13,800 events a second: every event read, each batch's units read back and written by
 * statements. A rebuild took it in 14 s (the types handled alone, written by COPY, indexes made
 * once; 55,000-74,000 events of the log a second in docs/benchmarks.md). A rebuild is the quicker
 * once the lag is a fifth to a quarter of the log. Under 100,000 events behind, live batches take
 * 7 s or less: no rebuild. A store whose counts stop short of that (KurrentDB's, at 10,000) never
 * rebuilds at start.
 */
export const BULK_START: BulkStartOptions = { minLag: 100_000, minShare: 0.25 };

/** Rebuilds the named read models, wherever it runs; the default, in this process. */
export type BulkRebuild = (names: readonly string[]) => Promise<unknown>;

/**
 * Before a service's runners start: the read models far behind the log (a large import since
 * they last ran, or a first start after one) are rebuilt in bulk, so that the service takes
 * traffic with them whole, not after a wait it gives up on and with balances that miss the
 * import. Answers the read models rebuilt. A rebuild that fails (one already running elsewhere,
 * say) leaves them to the live runners, as before.
 */
export async function catchUpInBulk(
  db: Db,
  store: EventStore,
  projectors: readonly Projector[],
  logger: ProjectionLogger,
  opts: BulkStartOptions = BULK_START,
  run: BulkRebuild = (names) => rebuild(db, store, names),
): Promise<string[]> {
  // A rebuild builds the read models of the registry; any other a service runs catches up live.
  const names = projectors.filter((p) => allProjectors.includes(p)).map((p) => p.name);
  if (names.length === 0) return [];
  const checkpoints = await readCheckpoints(db, names);
  const at = (name: string) => checkpoints.get(name)!;
  // First up to the least lag that matters (an index walk that stops); then, only for those that
  // reach it, to the end, beside the whole log.
  const bounded = await lagsAfter(store, names.map(at), opts.minLag);
  const far = names.filter((_, i) => bounded[i]! >= opts.minLag);
  if (far.length === 0) return [];
  const [total, ...lags] = await lagsAfter(store, [START, ...far.map(at)], Infinity);
  const kept = far.map((name, i) => ({ name, lag: lags[i]! })).filter((f) => f.lag >= opts.minShare * total!);
  if (kept.length === 0) return [];
  const chosen = kept.map((f) => f.name);
  const behind = Math.max(...kept.map((f) => f.lag));

  logger.info({ projectors: chosen, behind, log: total }, 'read models far behind the event log: rebuilding them before taking traffic');
  const t0 = performance.now();
  try {
    await run(chosen);
  } catch (err) {
    logger.warn({ err: (err as Error).message }, 'the rebuild at start-up did not complete; the runners catch up');
    return [];
  }
  logger.info({ projectors: chosen, durationMs: Math.round(performance.now() - t0) }, 'read models rebuilt');
  return chosen;
}
