import type { LedgerRecord } from '../domain/index.ts';
import type { DomainEvent, VacationRecord } from './types.ts';

export interface VacationState extends VacationRecord {
  approved: boolean;
  deleted: boolean;
  deletedReason: 'delete' | 'edit' | null;
  replacedBy: string | null;
  /** The first day not enjoyed, once interrupted (CST art. 188); the figures are then the days enjoyed. */
  interruptedOn: string | null;
  /** Business days the interruption gave back, which a record continuing this one may book. */
  daysReturned: number;
}

const fresh = { approved: false, deleted: false, deletedReason: null, replacedBy: null, interruptedOn: null, daysReturned: 0 } as const;

/** What a worker's stream says: every vacation ever recorded for them, by PILA code. */
export interface WorkerState {
  vacations: Map<string, VacationState>;
  /** Revision of the worker stream this state was folded from (-1: no stream). */
  revision: number;
}

export const emptyWorkerState = (): WorkerState => ({ vacations: new Map(), revision: -1 });

/** What judging a request (evaluate.ts) reads of a record. */
export type JudgedVacation = Pick<
  VacationState,
  | 'codigoPila'
  | 'recordId'
  | 'startDate'
  | 'endDate'
  | 'businessDays'
  | 'compensated'
  | 'deleted'
  | 'continues'
  | 'interruptedOn'
  | 'daysReturned'
>;

/** What judging a request reads of a worker's records: the Map of a WorkerState is one. */
export interface JudgedRecords {
  get(code: string): JudgedVacation | undefined;
  values(): Iterable<JudgedVacation>;
}

/** What judging a request reads of a worker's state: a WorkerState is one. */
export interface JudgedState {
  vacations: JudgedRecords;
}

/** Folds one event into the state. Pure; returns a new state and never mutates the old one. */
export function evolve(state: WorkerState, event: DomainEvent): WorkerState {
  const vacations = new Map(state.vacations);
  return apply(vacations, event) ? { vacations, revision: state.revision } : state;
}

/**
 * Folds one event into a map of vacations the caller owns, replacing (never changing) the
 * record it touches; false when the event says nothing of them. Records are shared between
 * the states folded from one stream, so they are never changed in place.
 */
function apply(vacations: Map<string, VacationState>, event: DomainEvent): boolean {
  switch (event.type) {
    // Object.assign, not a spread: the fold's hot spot (see src/caching/README.md).
    case 'VacationCreated':
      vacations.set(event.data.codigoPila, Object.assign({}, event.data, fresh));
      return true;
    case 'VacationImported':
      vacations.set(event.data.codigoPila, Object.assign({}, event.data, fresh, { approved: event.data.approved }));
      return true;
    case 'VacationApproved': {
      const v = vacations.get(event.data.codigoPila);
      if (v) vacations.set(v.codigoPila, { ...v, approved: true });
      return true;
    }
    case 'VacationInterrupted': {
      const v = vacations.get(event.data.codigoPila);
      if (v) {
        const { interruptedOn, daysReturned, reason: _r, before: _b, interruptedByUserId: _u, interruptedAt: _a, ...record } = event.data;
        vacations.set(v.codigoPila, { ...v, ...record, interruptedOn, daysReturned: v.daysReturned + daysReturned });
      }
      return true;
    }
    case 'VacationDeleted': {
      const v = vacations.get(event.data.codigoPila);
      if (v) {
        vacations.set(v.codigoPila, {
          ...v,
          deleted: true,
          deletedReason: event.data.reason,
          replacedBy: event.data.replacedBy,
        });
      }
      return true;
    }
    default:
      return false;
  }
}

/** The state of a whole stream: one map filled in order, the same state evolve() gives event by event. */
export function foldWorker(events: readonly { event: DomainEvent; revision: number }[]): WorkerState {
  return foldOnto(emptyWorkerState(), events);
}

/**
 * `state` with the events of its stream that follow it folded in; those at or before its revision
 * are in it already and are skipped, so folding a batch twice changes nothing. `state` is kept.
 */
export function foldOnto(state: WorkerState, events: readonly { event: DomainEvent; revision: number }[]): WorkerState {
  const later = events.filter((e) => e.revision > state.revision);
  if (later.length === 0) return state;
  const vacations = new Map(state.vacations);
  for (const e of later) apply(vacations, e.event);
  return { vacations, revision: later[later.length - 1]!.revision };
}

/** The state as a read model keeps it (its records, in the order they were first recorded), and back. */
export const recordsOf = (state: WorkerState): VacationState[] => [...state.vacations.values()];
export const stateOf = (revision: number, records: readonly VacationState[]): WorkerState => ({
  vacations: new Map(records.map((v) => [v.codigoPila, v])),
  revision,
});

export const liveVacations = <V extends JudgedVacation>(state: { vacations: { values(): Iterable<V> } }): V[] =>
  [...state.vacations.values()].filter((v) => !v.deleted);

/** A judged record as the ledger counts it (src/domain/ledger.ts). */
export const ledgerRecord = (v: JudgedVacation): LedgerRecord => ({
  key: v.codigoPila,
  order: v.recordId,
  startDate: v.startDate,
  days: v.businessDays,
  compensated: v.compensated,
});
