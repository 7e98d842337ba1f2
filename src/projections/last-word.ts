import type { DecodedEvent } from '../events/codec.ts';
import type { VacationRecord } from '../events/types.ts';

/**
 * For read models that only care whether a record is live: the unit its last event leaves, the
 * record as it then stands (an interruption carries it too) made into `live`'s unit (none when
 * `live` answers null), or none after a deletion. Events that say nothing of the record leave
 * the unit as it was.
 */
export function lastWord<T>(unit: T | undefined, events: readonly DecodedEvent[], live: (r: VacationRecord) => T | null): T | undefined {
  let out = unit;
  for (const { event } of events) {
    if (event.type === 'VacationCreated' || event.type === 'VacationImported' || event.type === 'VacationInterrupted') {
      out = live(event.data) ?? undefined;
    } else if (event.type === 'VacationDeleted') {
      out = undefined;
    }
  }
  return out;
}
