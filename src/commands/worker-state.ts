import type { DomainEvent, VacationRecord } from '../events/types.ts';

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

/** Folds one event into the state. Pure; returns a new state and never mutates the old one. */
export function evolve(state: WorkerState, event: DomainEvent): WorkerState {
  const vacations = new Map(state.vacations);
  switch (event.type) {
    case 'VacationCreated':
      vacations.set(event.data.codigoPila, { ...event.data, ...fresh });
      break;
    case 'VacationImported': {
      const { approved, ...record } = event.data;
      vacations.set(event.data.codigoPila, { ...record, ...fresh, approved });
      break;
    }
    case 'VacationApproved': {
      const v = vacations.get(event.data.codigoPila);
      if (v) vacations.set(v.codigoPila, { ...v, approved: true });
      break;
    }
    case 'VacationInterrupted': {
      const v = vacations.get(event.data.codigoPila);
      if (v) {
        const { interruptedOn, daysReturned, reason: _r, before: _b, interruptedByUserId: _u, interruptedAt: _a, ...record } = event.data;
        vacations.set(v.codigoPila, { ...v, ...record, interruptedOn, daysReturned: v.daysReturned + daysReturned });
      }
      break;
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
      break;
    }
    default:
      return state;
  }
  return { vacations, revision: state.revision };
}

export function foldWorker(events: { event: DomainEvent; revision: number }[]): WorkerState {
  let state = emptyWorkerState();
  for (const e of events) state = { ...evolve(state, e.event), revision: e.revision };
  return state;
}

export const liveVacations = (state: WorkerState): VacationState[] => [...state.vacations.values()].filter((v) => !v.deleted);
