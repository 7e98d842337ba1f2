import { expect } from 'vitest';
import { decide, evolve, initialState, type Decision, type VacationCommand } from '../../src/commands/decide.ts';
import type { CommandFailure } from '../../src/commands/types.ts';
import type { WorkerState } from '../../src/events/worker-state.ts';
import type { DomainEvent } from '../../src/events/types.ts';

type Failure = Extract<Decision, { ok: false }>;

export interface Then {
  /**
   * The command gives exactly these events, or events `check` accepts; either way they are
   * returned, to be given to the next command.
   */
  then(expected: readonly DomainEvent[] | ((events: DomainEvent[], decision: Extract<Decision, { ok: true }>) => void)): DomainEvent[];
  /** The command is refused: for this reason, or with these fields of the failure. */
  thenFails(expected: CommandFailure['kind'] | Partial<CommandFailure>): Failure;
}

/**
 * Decider tests over events only: given the events of a worker's stream, when a command is
 * decided on the state they fold to (evolve from the initial state), then these events, or this
 * refusal. Where the events are written is streams-of.ts's, tested on its own.
 */
export function given(events: readonly DomainEvent[] = []) {
  return {
    when(command: VacationCommand): Then {
      const state: WorkerState = events.reduce(evolve, initialState());
      const decision = decide(command, state);
      return {
        then(expected) {
          if (!decision.ok) throw new Error(`refused: ${JSON.stringify(decision)}`);
          if (typeof expected === 'function') expected(decision.events, decision);
          else expect(decision.events).toEqual(expected);
          return decision.events;
        },
        thenFails(expected) {
          if (decision.ok) throw new Error(`not refused: ${JSON.stringify(decision.events.map((e) => e.type))}`);
          if (typeof expected === 'string') expect(decision.kind).toBe(expected);
          else expect(decision).toMatchObject(expected);
          return decision;
        },
      };
    },
  };
}
