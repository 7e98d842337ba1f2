import type { Db } from '../../db/types.ts';
import { START, type EventStore } from '../../store/types.ts';
import { readCheckpoints } from './checkpoints.ts';
import { heldLocks } from './locks.ts';
import { rebuild } from './rebuild.ts';
import { allProjectors } from '../registry.ts';
import { lagsAfter } from './status.ts';
import type { Projector, ProjectionLogger } from '../types.ts';

export interface BulkStartOptions {
  /** Events behind, at the least, for a read model to be rebuilt rather than caught up live. */
  minLag: number;
  /** ...and the least share of the whole log they make. */
  minShare: number;
  /** How long to wait, at the most, for a rebuild of them that another process runs (default 120 s). */
  waitElsewhereMs?: number;
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

/**
 * Several instances started at once after an import each find the read models far behind: one
 * rebuilds them, and the others wait for that rebuild rather than catch up live beside it (slow,
 * and taking the database from the rebuild) and serve balances that miss the import meanwhile.
 * Bounded: a rebuild at 50,000 workers takes 14-18 s, so 120 s is a log several times larger.
 */
const WAIT_ELSEWHERE_MS = 120_000;
const POLL_ELSEWHERE_MS = 250;

/** Rebuilds the named read models, wherever it runs; the default, in this process. */
export type BulkRebuild = (names: readonly string[]) => Promise<unknown>;

/**
 * Before a service's runners start: the read models far behind the log (a large import since
 * they last ran, or a first start after one) are rebuilt in bulk, so that the service takes
 * traffic with them whole, not after a wait it gives up on and with balances that miss the
 * import. Answers the read models rebuilt. When another process is rebuilding them, waits for
 * its rebuild to end instead (bounded), and the runners take the rest from where it left them;
 * a rebuild that fails leaves them to the live runners.
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

  // Another process rebuilding them already (another instance starting, an operator's command):
  // its rebuild, not a second one, brings them up to the log.
  const elsewhere = async () => [...(await heldLocks(db, chosen)).values()].includes('rebuilding');
  if (!(await elsewhere())) {
    logger.info({ projectors: chosen, behind, log: total }, 'read models far behind the event log: rebuilding them before taking traffic');
    const t0 = performance.now();
    try {
      await run(chosen);
      logger.info({ projectors: chosen, durationMs: Math.round(performance.now() - t0) }, 'read models rebuilt');
      return chosen;
    } catch (err) {
      // Started elsewhere between the look and the run: waited for below.
      if (!(await elsewhere())) {
        logger.warn({ err: (err as Error).message }, 'the rebuild at start-up did not complete; the runners catch up');
        return [];
      }
    }
  }
  logger.info(
    { projectors: chosen, behind, log: total },
    'read models far behind the event log and rebuilt by another process: waiting for it before taking traffic',
  );
  const t0 = performance.now();
  const bound = opts.waitElsewhereMs ?? WAIT_ELSEWHERE_MS;
  while (await elsewhere()) {
    if (performance.now() - t0 >= bound) {
      logger.warn({ waitedMs: Math.round(performance.now() - t0) }, 'the rebuild elsewhere has not ended; the runners catch up');
      return [];
    }
    await new Promise((r) => setTimeout(r, POLL_ELSEWHERE_MS));
  }
  logger.info(
    { projectors: chosen, waitedMs: Math.round(performance.now() - t0) },
    'the rebuild elsewhere ended; the runners catch up from it',
  );
  return [];
}
