import type { Queryable } from '../../db/types.ts';
import type { ProjectionService } from '../service.ts';
import { NOTHING_TAKEN, availabilityOf, availabilityOfMany, type AvailabilityView } from './queries.ts';

const PROJECTOR = 'availability';

/**
 * Availability rows kept beside the runner that writes them. An entry is served only while this
 * process's availability runner is the one applying, and only if no batch touching that worker
 * has been applied since it was read: each applied batch moves its workers' generations on, and
 * any change of who applies moves every generation on. Generations are taken before the read,
 * so a batch that commits during the read leaves the entry already stale.
 */
export class AvailabilityCache {
  private readonly entries = new Map<number, { view: AvailabilityView; generation: number; epoch: number }>();
  private readonly generations = new Map<number, number>();
  private epoch = 0;

  constructor(
    private readonly db: Queryable,
    private readonly projections: ProjectionService,
    private readonly maxEntries = 20_000,
  ) {
    projections.watch({
      applied: (projector, events) => {
        if (projector !== PROJECTOR) return;
        for (const e of events) {
          const workerId = (e.event.data as { workerId?: number }).workerId;
          if (typeof workerId !== 'number') continue;
          this.generations.set(workerId, (this.generations.get(workerId) ?? 0) + 1);
          this.entries.delete(workerId);
        }
      },
      changed: (projector) => {
        if (projector !== PROJECTOR) return;
        this.epoch += 1;
        this.entries.clear();
      },
    });
  }

  /**
   * Loads the availability of these workers in bulk, so that the first consult of each after a
   * start is served from memory. The same rules as get(): nothing is kept unless this process
   * applies availability, and an entry whose worker a batch touched meanwhile is not kept.
   * Resolves to the number of workers loaded.
   */
  async warm(workerIds: readonly number[], chunk = 1000): Promise<number> {
    let loaded = 0;
    for (let i = 0; i < workerIds.length; i += chunk) {
      if (!this.projections.isApplying(PROJECTOR)) return loaded;
      const ids = workerIds.slice(i, i + chunk).filter((id) => !this.entries.has(id));
      const epoch = this.epoch;
      const generations = ids.map((id) => this.generations.get(id) ?? 0);
      const views = await availabilityOfMany(this.db, ids);
      if (this.epoch !== epoch || !this.projections.isApplying(PROJECTOR)) return loaded;
      for (const [k, id] of ids.entries()) {
        if (this.entries.size >= this.maxEntries / 2) return loaded;
        if ((this.generations.get(id) ?? 0) !== generations[k]) continue;
        this.entries.set(id, { view: views.get(id) ?? NOTHING_TAKEN, generation: generations[k]!, epoch });
        loaded++;
      }
    }
    return loaded;
  }

  async get(workerId: number): Promise<AvailabilityView> {
    if (!this.projections.isApplying(PROJECTOR)) return availabilityOf(this.db, workerId);
    const generation = this.generations.get(workerId) ?? 0;
    const epoch = this.epoch;
    const hit = this.entries.get(workerId);
    if (hit && hit.generation === generation && hit.epoch === epoch) return hit.view;
    const view = await availabilityOf(this.db, workerId);
    if ((this.generations.get(workerId) ?? 0) === generation) {
      if (this.epoch === epoch && this.projections.isApplying(PROJECTOR)) {
        if (this.entries.size >= this.maxEntries) this.entries.clear();
        this.entries.set(workerId, { view, generation, epoch });
      }
    }
    return view;
  }
}
