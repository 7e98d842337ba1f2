import type { VacationInterrupted, VacationRecord } from '../events/types.ts';
import type { VacationState } from '../events/worker-state.ts';

/**
 * What the commands answer once their events are written (src/commands/vacation-commands.ts): only what
 * the events and the state they were decided on hold, so that a request found written by an
 * earlier run is answered as that run would have been.
 */

export interface Created {
  record: VacationRecord;
}

export interface Edited extends Created {
  previous: VacationState;
}

/** A record deleted or approved, and the time the event records for it (what the answer shows). */
export interface Changed {
  record: VacationState;
  at: string;
}

export interface Interrupted {
  /** The record as it stands after the interruption. */
  record: VacationInterrupted;
  previous: VacationState;
}
