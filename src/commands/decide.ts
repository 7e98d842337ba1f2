import type { HolidayLookup } from '../domain/index.ts';
import type { DomainEvent } from '../events/types.ts';
import { booked, released } from '../events/places.ts';
import { createdEvents, live, newRecord, reaches, snapshot, type Decision, type Given } from './decider-shared.ts';
import { evaluate, place, type EvaluationInput, type Placement } from './evaluate.ts';
import { interrupt, type InterruptVacation } from './interrupt.ts';
import type { UnitOccupancy } from './occupancy.ts';
import type { Scope, VacationRequest, WorkerFile } from './types.ts';
import { emptyWorkerState, evolve, type WorkerState } from '../events/worker-state.ts';

export type { Decision, Given, Moment } from './decider-shared.ts';
export type { Changed, Created, Edited, Interrupted } from './answers.ts';
export type { InterruptionRequest, InterruptVacation } from './interrupt.ts';

/** A request with everything judging it reads besides the worker's state. */
export interface Judged {
  request: VacationRequest;
  file: WorkerFile;
  calendar: HolidayLookup;
  /** Occupancy of the governing contract's subgerencia over the period, when rule (d) applies. */
  occupancy?: UnitOccupancy;
  /** Where the period falls, when already worked out (null: no contract governs). */
  placement?: Placement | null;
}

/** Where the actor may act (the actor's scope): every command judges it before anything else of the record. */
export interface Scoped {
  scope: Scope;
}

export interface CreateVacation {
  type: 'CreateVacation';
  data: Judged & Given & Scoped;
}

export interface EditVacation {
  type: 'EditVacation';
  data: Judged & Given & Scoped & { code: string; userId: number };
}

/** Delete and approve: a user acting on a pending record at a time. */
export interface OnRecord extends Scoped {
  code: string;
  userId: number;
  nowIso: string;
}

export type VacationCommand =
  | CreateVacation
  | EditVacation
  | { type: 'DeleteVacation'; data: OnRecord }
  | { type: 'ApproveVacation'; data: OnRecord }
  | InterruptVacation;

/**
 * The decider of a worker's vacations: what a command gives, as events, on the state their
 * stream folds to. Pure: whatever a decision needs from outside (the time, the ids, random
 * bytes, the occupancy of the subgerencia, the actor's scope) comes in the command. Where the
 * events are written, and at which revisions, is streams-of.ts's business.
 *
 * A scoped actor (an area head) acts only on records whose subgerencia, as the record's own
 * stream holds it (its governing contract's on its start, as the command that made it read it),
 * is in their scope, and books only where the request's governing contract is: nothing a read
 * model holds decides it, so a read model behind the log can never widen it.
 */
export function decide(command: VacationCommand, state: WorkerState): Decision {
  switch (command.type) {
    case 'CreateVacation':
      return create(command.data, state);
    case 'EditVacation':
      return edit(command.data, state);
    case 'DeleteVacation':
      return onPending(command.data, state, (previous) => [
        {
          type: 'VacationDeleted',
          data: {
            codigoPila: previous.codigoPila,
            workerId: previous.workerId,
            reason: 'delete',
            replacedBy: null,
            snapshot: snapshot(previous),
            deletedByUserId: command.data.userId,
            deletedAt: command.data.nowIso,
          },
        },
        ...released(previous),
      ]);
    case 'ApproveVacation':
      return onPending(command.data, state, (previous) => [
        {
          type: 'VacationApproved',
          data: {
            codigoPila: previous.codigoPila,
            workerId: previous.workerId,
            approvedByUserId: command.data.userId,
            approvedAt: command.data.nowIso,
          },
        },
      ]);
    case 'InterruptVacation':
      return interrupt(command.data, state);
  }
}

export const initialState = emptyWorkerState;
export { evolve };

const judging = (c: Judged, state: WorkerState, replacing?: string): EvaluationInput => ({
  request: c.request,
  file: c.file,
  state,
  calendar: c.calendar,
  occupancy: c.occupancy,
  placement: c.placement,
  replacing,
});

/** Whether the contract governing a request's start is in the scope. */
function requestInScope(c: Judged & Scoped): boolean {
  if (c.scope === null) return true;
  const placement = c.placement !== undefined ? c.placement : (place(c.request, c.file, c.calendar) ?? null);
  return reaches(c.scope, placement?.contract.subgerenciaId ?? null);
}

const OUT_OF_SCOPE = { ok: false, kind: 'out_of_scope' } as const;

function create(c: CreateVacation['data'], state: WorkerState): Decision {
  if (!requestInScope(c)) return OUT_OF_SCOPE;
  const ev = evaluate(judging(c, state));
  if (!ev.ok) return { ok: false, kind: 'rules', violations: ev.violations };
  const record = newRecord(ev.figures, c, null, c.request.continues ?? null);
  return { ok: true, figures: ev.figures, events: createdEvents(record) };
}

/**
 * Replaces a record: the rules are checked as if the old record were already gone, then
 * approval; the start of the edit, the deletion and the new record go out together.
 */
function edit(c: EditVacation['data'], state: WorkerState): Decision {
  const { code } = c;
  const previous = live(state, code);
  if (!previous) return { ok: false, kind: 'record_not_found' };
  // Both ends are judged: the record replaced and where the new one would fall.
  if (!reaches(c.scope, previous.subgerenciaId) || !requestInScope(c)) return OUT_OF_SCOPE;
  // A record that continues an interrupted one keeps doing so when edited.
  const continues = c.request.continues ?? previous.continues ?? null;
  const ev = evaluate({ ...judging(c, state, code), request: { ...c.request, continues } });
  if (!ev.ok) return { ok: false, kind: 'rules', violations: ev.violations };
  if (previous.approved) return { ok: false, kind: 'approved' };
  const record = newRecord(ev.figures, c, code, continues);
  return {
    ok: true,
    figures: ev.figures,
    events: [
      {
        type: 'VacationEditStarted',
        data: {
          codigoPila: code,
          workerId: previous.workerId,
          newRecordId: record.recordId,
          newCodigoPila: record.codigoPila,
          startedAt: c.nowIso,
        },
      },
      {
        type: 'VacationDeleted',
        data: {
          codigoPila: code,
          workerId: previous.workerId,
          reason: 'edit',
          replacedBy: record.codigoPila,
          snapshot: snapshot(previous),
          deletedByUserId: c.userId,
          deletedAt: c.nowIso,
        },
      },
      { type: 'VacationCreated', data: record },
      { type: 'PilaCodeAssigned', data: { codigoPila: record.codigoPila, workerId: record.workerId } },
      ...released(previous),
      ...booked(record),
    ],
  };
}

/** Delete and approve both act on a live record that is not yet approved. */
function onPending(c: OnRecord, state: WorkerState, change: (previous: NonNullable<ReturnType<typeof live>>) => DomainEvent[]): Decision {
  const previous = live(state, c.code);
  if (!previous) return { ok: false, kind: 'record_not_found' };
  if (!reaches(c.scope, previous.subgerenciaId)) return OUT_OF_SCOPE;
  if (previous.approved) return { ok: false, kind: 'approved' };
  return { ok: true, events: change(previous) };
}
