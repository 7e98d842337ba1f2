import { randomBytes } from 'node:crypto';
import { companyContractOf, type HolidayLookup } from '../domain/index.ts';
import { CachedEvents } from '../caching/cached-events.ts';
import type { Vouch } from '../caching/vouch.ts';
import { pilaStream, unitStream, workerStream } from '../events/streams.ts';
import { StoreEvents } from '../store/aggregate-port.ts';
import type { DomainEvent, VacationInterrupted, VacationRecord } from '../events/types.ts';
import type { ReferenceLookups } from '../reference/repository.ts';
import type { EventStore } from '../store/types.ts';
import type { Changed, Created, Edited, Interrupted } from './answers.ts';
import type { CreateVacation, EditVacation, InterruptionRequest, Moment, VacationCommand } from './decide.ts';
import { evaluate, place, type Placement } from './evaluate.ts';
import { handle, type CommandEvents, type HandlerDeps, type Loaded, type Written } from './handle.ts';
import { occupancyOf, monthsOf, type UnitOccupancy } from './occupancy.ts';
import type { Actor, CommandFailure, Outcome, VacationFigures, VacationRequest, WorkerFile } from './types.ts';
import { foldWorker, type JudgedState, type VacationState, type WorkerState } from '../events/worker-state.ts';

export type { InterruptionRequest } from './decide.ts';
export type { CommandEvents, Written } from './handle.ts';
export type { Changed, Created, Edited, Interrupted } from './answers.ts';

/** The store's events as the commands read them, with the caches of src/caching in front. */
export const commandEvents = (store: EventStore, opts: { batching?: boolean; vouch?: Vouch } = {}): CommandEvents =>
  new CachedEvents(new StoreEvents(store, foldWorker), foldWorker, opts);

/** The reference data the commands read: a worker's file of the per-worker read model. */
export type CommandReference = Pick<ReferenceLookups, 'workerFileByDocument'>;

export interface CommandDeps {
  store: EventStore;
  /** How the commands read and append the store's events: commandEvents(store) unless given. */
  events?: CommandEvents;
  reference: CommandReference;
  calendar: HolidayLookup;
  nextRecordId: () => Promise<number>;
  /** Real clock, for event times and PILA codes. */
  now?: () => Date;
  /** The service's business date (VACACIONES_TODAY or Bogota's date). */
  today: () => string;
  randomHex8?: () => string;
  /**
   * Where calculate, a query, reads a worker's file and state: the read model of folded states,
   * current with every write this instance acknowledged, read beside the file
   * (src/caching/known-worker.ts). Without it, calculate reads the worker's stream as the commands do.
   */
  fileAndState?: (documentNumber: string) => Promise<{ file: WorkerFile | null; state?: JudgedState }>;
  /** How many times a command is decided again after losing a race on a stream. */
  maxAttempts?: number;
  onConflict?: (stream: string) => void;
}

/**
 * How far a failed edit got, once the code named a known record: the record's worker, and the id
 * allotted to the new record (null when it failed before one was).
 */
export interface EditAttempt {
  workerId: number;
  newRecordId: number | null;
}

/** An edit's outcome. A failure past the record lookup says how far it got; one that threw carries the error. */
export type EditOutcome =
  { ok: true; value: Written<Edited> } | ({ ok: false; attempt?: EditAttempt } & (CommandFailure | { kind: 'error'; error: unknown }));

/** Where a request falls, the month streams its decision reads, and their occupancy once read. */
interface Plan {
  placement: Placement | null;
  months: readonly string[];
  occupancy(loaded: Loaded): UnitOccupancy | undefined;
}

/** The record the events created, or the one they interrupted, as its event carries it. */
function recordIn(events: readonly DomainEvent[], type: 'VacationCreated'): VacationRecord;
function recordIn(events: readonly DomainEvent[], type: 'VacationInterrupted'): VacationInterrupted;
function recordIn(events: readonly DomainEvent[], type: 'VacationCreated' | 'VacationInterrupted'): VacationRecord | VacationInterrupted {
  for (const e of events) if (e.type === type && (e.type === 'VacationCreated' || e.type === 'VacationInterrupted')) return e.data;
  throw new Error(`the events hold no ${type}`);
}

/** When the events deleted or approved their record, as they record it. */
function changedAt(events: readonly DomainEvent[]): string {
  for (const e of events) {
    if (e.type === 'VacationDeleted') return e.data.deletedAt;
    if (e.type === 'VacationApproved') return e.data.approvedAt;
  }
  throw new Error('the events hold no deletion or approval');
}

/** Who a command on a record is decided for: the user it records and the scope it is held to. */
const byActor = (actor: Actor) => ({ userId: actor.userId, scope: actor.scope ?? null });

/**
 * The commands on vacations, as the API and the panel call them: each finds what its command
 * names (the worker's file, the record's owner), then runs it through the handler (handle.ts:
 * load → decide → append → retry) and answers with what it wrote.
 */
export class VacationCommands {
  private readonly events: CommandEvents;
  private readonly loop: HandlerDeps;

  constructor(private readonly deps: CommandDeps) {
    this.events = deps.events ?? commandEvents(deps.store);
    this.loop = {
      events: this.events,
      now: deps.now ?? (() => new Date()),
      randomHex8: deps.randomHex8 ?? (() => randomBytes(4).toString('hex')),
      today: deps.today,
      maxAttempts: deps.maxAttempts ?? 25,
      onConflict: deps.onConflict,
    };
  }

  async calculate(documentNumber: string, request: VacationRequest): Promise<Outcome<VacationFigures>> {
    const { file, state: given } = this.deps.fileAndState
      ? await this.deps.fileAndState(documentNumber)
      : { file: await this.fileOf(documentNumber), state: undefined };
    if (!file) return { ok: false, kind: 'worker_not_found' };
    const plan = this.plan(file, request);
    // A query: the months as current as the read models, where their runner vouches for them.
    const loaded = await this.events.load(given ? null : workerStream(file.worker.id), plan.months, 'current');
    const state = given ?? loaded.state;
    const { calendar } = this.deps;
    const ev = evaluate({ request, file, state, calendar, occupancy: plan.occupancy(loaded), placement: plan.placement });
    return ev.ok ? { ok: true, value: ev.figures } : { ok: false, kind: 'rules', violations: ev.violations };
  }

  async create(documentNumber: string, request: VacationRequest, actor: Actor): Promise<Outcome<Written<Created>>> {
    const file = await this.fileOf(documentNumber);
    if (!file) return { ok: false, kind: 'worker_not_found' };
    const recordId = await this.deps.nextRecordId();
    const { placement, months, occupancy } = this.plan(file, request);
    const { calendar } = this.deps;
    return handle(this.loop, actor, {
      workerId: file.worker.id,
      others: months,
      optimistic: true,
      command: (moment, loaded): CreateVacation => ({
        type: 'CreateVacation',
        data: { request, file, calendar, placement, occupancy: occupancy(loaded), recordId, scope: actor.scope ?? null, ...moment },
      }),
      answer: (events) => ({ record: recordIn(events, 'VacationCreated') }),
    });
  }

  async edit(code: string, documentNumber: string, request: VacationRequest, actor: Actor): Promise<EditOutcome> {
    const file = await this.fileOf(documentNumber);
    if (!file) return { ok: false, kind: 'worker_not_found' };
    const owner = await this.ownerOf(code);
    if (owner === undefined) return { ok: false, kind: 'record_not_found' };
    if (owner !== file.worker.id)
      return { ok: false, kind: 'not_owner', code, documentNumber, attempt: { workerId: owner, newRecordId: null } };
    const attempt: EditAttempt = { workerId: owner, newRecordId: null };
    try {
      const recordId = await this.deps.nextRecordId();
      attempt.newRecordId = recordId;
      const { placement, months, occupancy } = this.plan(file, request);
      const { calendar } = this.deps;
      const outcome = await handle(this.loop, actor, {
        workerId: owner,
        others: months,
        command: (moment, loaded): EditVacation => ({
          type: 'EditVacation',
          data: {
            code,
            userId: actor.userId,
            scope: actor.scope ?? null,
            request,
            file,
            calendar,
            placement,
            occupancy: occupancy(loaded),
            recordId,
            ...moment,
          },
        }),
        answer: (events, before) => ({ record: recordIn(events, 'VacationCreated'), previous: before.vacations.get(code)! }),
      });
      return outcome.ok ? outcome : { ...outcome, attempt };
    } catch (error) {
      // The caller records the failure with both ids before answering it as any other error.
      return { ok: false, kind: 'error', error, attempt };
    }
  }

  async delete(code: string, actor: Actor): Promise<Outcome<Written<Changed>>> {
    return this.onRecord(code, (m) => ({ type: 'DeleteVacation', data: { ...byActor(actor), code, nowIso: m.nowIso } }), actor);
  }

  async approve(code: string, actor: Actor): Promise<Outcome<Written<Changed>>> {
    return this.onRecord(code, (m) => ({ type: 'ApproveVacation', data: { ...byActor(actor), code, nowIso: m.nowIso } }), actor);
  }

  /** Interrupts an approved, enjoyed vacation in course (CST art. 188), judged on the service's today. */
  async interrupt(code: string, request: InterruptionRequest, actor: Actor): Promise<Outcome<Written<Interrupted>>> {
    const { calendar, today } = this.deps;
    return this.onRecord(
      code,
      (m) => ({ type: 'InterruptVacation', data: { ...request, ...byActor(actor), code, nowIso: m.nowIso, today: today(), calendar } }),
      actor,
      (events, previous) => ({ record: recordIn(events, 'VacationInterrupted'), previous }),
    );
  }

  /** A command on one record, on its owner's stream; answered with the record as it was and the time its event records, unless `answer` says otherwise. */
  private async onRecord<T = Changed>(
    code: string,
    command: (moment: Moment) => VacationCommand,
    actor: Actor,
    answer: (events: readonly DomainEvent[], previous: VacationState) => T = (events, record) => ({ record, at: changedAt(events) }) as T,
  ): Promise<Outcome<Written<T>>> {
    const owner = await this.ownerOf(code);
    if (owner === undefined) return { ok: false, kind: 'record_not_found' };
    return handle(this.loop, actor, {
      workerId: owner,
      others: [],
      command,
      answer: (events, before) => answer(events, before.vacations.get(code)!),
    });
  }

  private fileOf(documentNumber: string): Promise<WorkerFile | null> {
    return this.deps.reference.workerFileByDocument(documentNumber);
  }

  async workerState(workerId: number): Promise<WorkerState> {
    return (await this.events.load(workerStream(workerId), [], 'fresh')).state;
  }

  private async ownerOf(code: string): Promise<number | undefined> {
    const first = await this.events.firstEvent(pilaStream(code));
    return first?.type === 'PilaCodeAssigned' ? first.data.workerId : undefined;
  }

  /**
   * The request's placement and, for an enjoyed vacation under a company contract that limits the
   * people on vacation at once (rule d), the month streams of the subgerencia its period touches,
   * whose occupancy the decision reads. Without a limit nothing reads the months, and the places
   * are booked with no expected revision, so they are not read at all: in a large subgerencia they
   * hold thousands of bookings.
   */
  private plan(file: WorkerFile, request: VacationRequest): Plan {
    const placement = place(request, file, this.deps.calendar) ?? null;
    const limited = placement && (companyContractOf(file, placement.contract)?.vacationParams?.maxPeopleOnVacation ?? null) !== null;
    if (!placement || request.compensated || !limited) return { placement, months: [], occupancy: () => undefined };
    const subgerenciaId = placement.contract.subgerenciaId;
    const periods = monthsOf(request.startDate, placement.endDate);
    const months = periods.map((m) => unitStream(subgerenciaId, m));
    const occupancy = (loaded: Loaded) =>
      occupancyOf(subgerenciaId, periods, (month) => loaded.streams.get(unitStream(subgerenciaId, month)) ?? []);
    return { placement, months, occupancy };
  }
}
