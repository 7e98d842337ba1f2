import type { Db } from '../../db/types.ts';
import type { EventStore, Position } from '../../store/types.ts';
import { readCheckpoints } from './checkpoints.ts';
import { heldLocks } from './locks.ts';
import { allProjectors } from './registry.ts';
import type { Projector } from '../types.ts';

export interface ProjectionOverview {
  name: string;
  checkpoint: Position;
  head: Position;
  lag: number;
  /** What some process is doing with it, judged from the advisory locks held (PGlite: 'stopped'). */
  state: 'running' | 'rebuilding' | 'stopped';
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
  return Promise.all(
    names.map(async (name) => {
      const checkpoint = checkpoints.get(name)!;
      return { name, checkpoint, head, lag: await store.countAfter(checkpoint), state: states.get(name) ?? 'stopped' };
    }),
  );
}
