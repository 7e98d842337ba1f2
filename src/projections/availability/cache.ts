import { LRUCache } from 'lru-cache';
import type { Queryable } from '../../db/types.ts';
import { Gatherer } from '../../store/throughput/gather.ts';
import type { ProjectionService } from '../runtime/service.ts';
import { NOTHING_TAKEN, availabilityOfMany, type AvailabilityView } from './queries.ts';

const PROJECTOR = 'availability';

/** Reads of one worker on their way to the database, and whether a batch touched the worker meanwhile. */
interface Flight {
  reads: number;
  stale: boolean;
}

/**
 * Availability rows kept beside the runner that writes them, the least recently used dropped
 * first. An entry is served only while this process's availability runner is the one applying,
 * and only if no batch touching that worker has been applied since it was read: each applied
 * batch drops its workers' entries and marks their reads in flight as stale, and any change of
 * who applies makes every entry read before it unusable. Reads asked for while others are on
 * their way go together in the next query.
 */
export class AvailabilityCache {
  private readonly entries: LRUCache<number, { view: AvailabilityView; epoch: number }>;
  private readonly flights = new Map<number, Flight>();
  private readonly reads: Gatherer<number, AvailabilityView>;
  private epoch = 0;

  constructor(
    db: Queryable,
    private readonly projections: ProjectionService,
    // An entry is four counts: a hundred bytes or so, so a large employer's workers all fit.
    maxEntries = 100_000,
  ) {
    this.entries = new LRUCache({ max: maxEntries });
    this.reads = new Gatherer(async (batch) => {
      const views = await availabilityOfMany(db, [...new Set(batch.map((a) => a.item))]);
      for (const a of batch) a.resolve(views.get(a.item) ?? NOTHING_TAKEN);
    });
    projections.watch({
      applied: (projector, events) => {
        if (projector !== PROJECTOR) return;
        for (const e of events) {
          const workerId = (e.event.data as { workerId?: number }).workerId;
          if (typeof workerId !== 'number') continue;
          this.entries.delete(workerId);
          const flight = this.flights.get(workerId);
          if (flight) flight.stale = true;
        }
      },
      changed: (projector) => {
        if (projector === PROJECTOR) this.epoch += 1;
      },
    });
  }

  get size(): number {
    return this.entries.size;
  }

  async get(workerId: number): Promise<AvailabilityView> {
    if (!this.projections.isApplying(PROJECTOR)) return this.reads.ask(workerId);
    const epoch = this.epoch;
    const hit = this.entries.get(workerId);
    if (hit && hit.epoch === epoch) return hit.view;
    // Reads of the same worker at once share the flag: a batch applied during any of them may
    // have been missed by all of them.
    let flight = this.flights.get(workerId);
    if (!flight) this.flights.set(workerId, (flight = { reads: 0, stale: false }));
    flight.reads++;
    let view: AvailabilityView;
    try {
      view = await this.reads.ask(workerId);
    } finally {
      if (--flight.reads === 0) this.flights.delete(workerId);
    }
    if (!flight.stale && this.epoch === epoch && this.projections.isApplying(PROJECTOR)) this.entries.set(workerId, { view, epoch });
    return view;
  }
}
