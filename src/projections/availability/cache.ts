import type { Queryable } from '../../db/types.ts';
import type { ProjectionService } from '../service.ts';
import { availabilityOf, type AvailabilityView } from './queries.ts';

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
