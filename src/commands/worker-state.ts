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

/** The fields of a judged record that most records hold at their default. */
type Rare = Pick<JudgedVacation, 'continues' | 'interruptedOn' | 'daysReturned'>;
const COMMON: Rare = { continues: null, interruptedOn: null, daysReturned: 0 };
const STRIDE = 6;

/**
 * A worker's live records as a cache holds them for judging: one flat list of their fields,
 * STRIDE cells a record, and the fields most records hold at their default only for those that
 * do not. A record as an object of its own costs some 100 bytes more than its cells, and a
 * cache of 50,000 workers holds hundreds of thousands of records. Records are made again, as
 * objects, when they are read: once or twice a request.
 */
export class RecordList implements JudgedRecords {
  private readonly cells: readonly (string | number | boolean)[];
  private readonly rare: ReadonlyMap<number, Rare> | null;

  constructor(records: readonly JudgedVacation[]) {
    const cells = new Array<string | number | boolean>(records.length * STRIDE);
    let rare: Map<number, Rare> | null = null;
    records.forEach((v, i) => {
      const at = i * STRIDE;
      cells[at] = v.codigoPila;
      cells[at + 1] = v.recordId;
      cells[at + 2] = v.startDate;
      cells[at + 3] = v.endDate;
      cells[at + 4] = v.businessDays;
      cells[at + 5] = v.compensated;
      if ((v.continues ?? null) !== null || v.interruptedOn !== null || v.daysReturned !== 0)
        (rare ??= new Map()).set(i, { continues: v.continues ?? null, interruptedOn: v.interruptedOn, daysReturned: v.daysReturned });
    });
    this.cells = cells;
    this.rare = rare;
  }

  private record(i: number): JudgedVacation {
    const at = i * STRIDE;
    const c = this.cells;
    const r = this.rare?.get(i) ?? COMMON;
    return {
      codigoPila: c[at] as string,
      recordId: c[at + 1] as number,
      startDate: c[at + 2] as string,
      endDate: c[at + 3] as string,
      businessDays: c[at + 4] as number,
      compensated: c[at + 5] as boolean,
      deleted: false,
      continues: r.continues,
      interruptedOn: r.interruptedOn,
      daysReturned: r.daysReturned,
    };
  }

  get(code: string): JudgedVacation | undefined {
    for (let at = 0; at < this.cells.length; at += STRIDE) if (this.cells[at] === code) return this.record(at / STRIDE);
    return undefined;
  }

  values(): Iterable<JudgedVacation> {
    return Array.from({ length: this.length }, (_, i) => this.record(i));
  }

  get length(): number {
    return this.cells.length / STRIDE;
  }
}

/**
 * The part of `state` a judgement reads: its live records, each with only the fields read, the
 * dates given by `day` (which may share one string per date among many states). A deleted record
 * judges as one never recorded (a continuation of it is unknown either way), so none is kept: a
 * cache of judged states holds a fraction of the records' size.
 */
export function judgedState(
  state: { vacations: { values(): Iterable<VacationState> } },
  day: (date: string) => string = (d) => d,
): { vacations: RecordList } {
  const live = liveVacations(state).map((v): JudgedVacation => ({
    codigoPila: v.codigoPila,
    recordId: v.recordId,
    startDate: day(v.startDate),
    endDate: day(v.endDate),
    businessDays: v.businessDays,
    compensated: v.compensated,
    deleted: false,
    continues: v.continues ?? null,
    interruptedOn: v.interruptedOn && day(v.interruptedOn),
    daysReturned: v.daysReturned,
  }));
  return { vacations: new RecordList(live) };
}

/**
 * What a judged state takes in the heap, about: its list and wrappers, and each record's cells and
 * code (measured: some 750 bytes for six records, a cache's own entry included).
 */
export const judgedBytes = (state: { vacations: RecordList }): number => 150 + 100 * state.vacations.length;

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
    // Object.assign rather than spreads: an event's data comes from JSON with its keys in the
    // store's order, and V8 spreads such an object with the flags after it some six times slower
    // (5 µs a record, most of a worker's fold).
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
