import type { Vouch } from '../../caching/vouch.ts';
import { movesPlaces } from '../../events/places.ts';
import type { ProjectionService } from '../runtime/service.ts';
import { occupancyProjector } from './projector.ts';

/**
 * The occupancy read model's runner vouches for the subgerencias' month streams held in memory,
 * so that calculate, a query, reads them as current as the read models without asking the store:
 * every place booked or released is appended together with a vacation event this read model
 * applies (a creation, an import, a deletion, an interruption), so the runner meets each change
 * of places in the batch that holds that event, and announces it; while another process applies
 * the read model, nothing is vouched for and calculate reads the months from the store.
 */
export function vouchForMonths(projections: ProjectionService, vouch: Vouch): void {
  const name = occupancyProjector.name;
  projections.watch({
    applied: (projector, events) => {
      if (projector === name && events.some((e) => movesPlaces(e.event))) vouch.changed();
    },
    changed: (projector) => {
      if (projector !== name) return;
      vouch.reading(projections.isApplying(name));
      // Also where the runner goes on applying from a checkpoint another moved (a rebuild swapped
      // in): it never applies what lay between, so nothing it vouched for before stands.
      vouch.changed();
    },
  });
  // The runner may have started before it was watched.
  vouch.reading(projections.isApplying(name));
}
