import type { Queryable } from '../../db/types.ts';
import { WorkerRowCache } from '../runtime/row-cache.ts';
import type { ProjectionService } from '../runtime/service.ts';
import { NOTHING_TAKEN, availabilityOfMany, type AvailabilityView } from './queries.ts';

/** Availability rows kept beside the runner that writes them (see WorkerRowCache). */
export class AvailabilityCache extends WorkerRowCache<AvailabilityView> {
  constructor(
    db: Queryable,
    projections: ProjectionService,
    // An entry is four counts: a hundred bytes or so, so a large employer's workers all fit.
    maxEntries = 100_000,
  ) {
    super(projections, 'availability', (ids) => availabilityOfMany(db, ids), NOTHING_TAKEN, { maxEntries });
  }
}
