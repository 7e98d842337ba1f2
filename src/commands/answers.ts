import type { VacationInterrupted, VacationRecord } from '../events/types.ts';
import type { VacationFigures } from './types.ts';
import type { VacationState } from './worker-state.ts';

/** What the commands answer once their events are written (src/commands/handler.ts). */

export interface Created {
  record: VacationRecord;
  figures: VacationFigures;
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
