import type { DecodedEvent } from '../events/codec.ts';
import type { VacationDeleted, VacationRecord } from '../events/types.ts';

/**
 * What a batch last says about each code, for read models that only care whether a record is
 * live: a later event on the same code overrides an earlier one, so each key is written once
 * (see insertRows) and replaying the batch lands on the same rows.
 */
export function lastWordPerCode<T>(
  events: readonly DecodedEvent[],
  live: (r: VacationRecord) => T,
  deleted: (d: VacationDeleted) => T,
): Map<string, T> {
  const words = new Map<string, T>();
  for (const { event } of events) {
    // An interruption carries the record as it now stands.
    if (event.type === 'VacationCreated' || event.type === 'VacationImported' || event.type === 'VacationInterrupted') {
      words.set(event.data.codigoPila, live(event.data));
    } else if (event.type === 'VacationDeleted') {
      words.set(event.data.codigoPila, deleted(event.data));
    }
  }
  return words;
}
