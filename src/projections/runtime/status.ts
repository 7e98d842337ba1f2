import type { Db } from '../../db/types.ts';
import { positionToString, type EventStore, type Position } from '../../store/types.ts';
import { readCheckpoints } from './checkpoints.ts';
import { heldLocks } from './locks.ts';
import { allProjectors } from '../registry.ts';
import type { Projector } from '../types.ts';
import type { RunnerState } from './runner.ts';

export interface ProjectionOverview {
  name: string;
  checkpoint: Position;
  head: Position;
  lag: number;
  /** What some process is doing with it, judged from the advisory locks held (PGlite: 'stopped'). */
  state: 'running' | 'rebuilding' | 'stopped';
}

export interface ProjectorStatus {
  name: string;
  checkpoint: Position;
  /** Events after the checkpoint. */
  lag: number;
  /** This process's runner: 'running' applies; 'standby' waits for another process's runner or a rebuild. */
  state: RunnerState;
}

/** A lag this large or larger reads as this many events: counting further would only make the status slow. */
export const LAG_COUNT_CAP = 10_000;

/**
 * Events after each checkpoint, up to `upTo` (Infinity: all of them), each distinct checkpoint
 * counted once (the projectors of a caught-up service all stand at the head).
 */
export async function lagsAfter(store: EventStore, checkpoints: readonly Position[], upTo = LAG_COUNT_CAP): Promise<number[]> {
  const counts = new Map<string, Promise<number>>();
  for (const c of checkpoints) {
    const key = positionToString(c);
    if (!counts.has(key)) counts.set(key, store.countAfter(c, Number.isFinite(upTo) ? { upTo } : {}));
  }
  return Promise.all(checkpoints.map((c) => counts.get(positionToString(c))!));
}

/** The read side as seen from outside the service (the CLI): checkpoints, lag, who holds the locks. */
export async function projectionOverview(
  db: Db,
  store: EventStore,
  projectors: readonly Projector[] = allProjectors,
): Promise<ProjectionOverview[]> {
  const names = projectors.map((p) => p.name);
  const [checkpoints, head, states] = await Promise.all([
    readCheckpoints(db, names),
    store.headPosition(),
    db.kind === 'postgres' ? heldLocks(db, names) : Promise.resolve(new Map<string, 'stopped'>()),
  ]);
  const lags = await lagsAfter(
    store,
    names.map((name) => checkpoints.get(name)!),
  );
  return names.map((name, i) => ({ name, checkpoint: checkpoints.get(name)!, head, lag: lags[i]!, state: states.get(name) ?? 'stopped' }));
}

/**
 * Each read model's progress as a service sees it: the runners of its own process (`runners`)
 * know their checkpoints best; without them (--no-projections), the tables and locks tell.
 */
export async function projectionStatus(
  db: Db,
  store: EventStore,
  runners: { status(): Promise<ProjectorStatus[]> } | undefined,
): Promise<(ProjectionOverview | (ProjectorStatus & { head: Position }))[]> {
  if (!runners) return projectionOverview(db, store);
  const [head, status] = await Promise.all([store.headPosition(), runners.status()]);
  return status.map((s) => ({ ...s, head }));
}
