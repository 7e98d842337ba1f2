import { randomBytes, randomUUID } from 'node:crypto';
import { LRUCache } from 'lru-cache';
import { companyContractOf, type HolidayLookup } from '../domain/index.ts';
import { decode, encode } from '../events/codec.ts';
import { pilaStream, unitStream, workerStream } from '../events/streams.ts';
import { WrongExpectedRevisionError, type EventStore, type Position } from '../store/types.ts';
import {
  decideApprove,
  decideCreate,
  decideDelete,
  decideEdit,
  decideInterrupt,
  type Changed,
  type Created,
  type Decision,
  type Edited,
  type Given,
  type InterruptionRequest,
  type Interrupted,
  type PlannedWrite,
} from './decide.ts';
import { evaluate, place, type Placement } from './evaluate.ts';
import { foldUnit, monthsOf, type UnitOccupancy } from './occupancy.ts';
import type { ReferenceLookups } from '../reference/repository.ts';
import {
  metadataOf,
  type Actor,
  type CommandFailure,
  type Outcome,
  type VacationFigures,
  type VacationRequest,
  type WorkerFile,
} from './types.ts';
import { StreamCache, type CachedEvent } from '../store/throughput/stream-cache.ts';
import { foldWorker, type JudgedState, type WorkerState } from './worker-state.ts';

/** The reference data the commands read: a worker's file of the per-worker read model. */
export type CommandReference = Pick<ReferenceLookups, 'workerFileByDocument'>;

export interface CommandDeps {
  store: EventStore;
  reference: CommandReference;
  calendar: HolidayLookup;
  nextRecordId: () => Promise<number>;
  /** Real clock, for event times and PILA codes. */
  now?: () => Date;
  /** The service's business date (VACACIONES_TODAY or Bogota's date). */
  today: () => string;
  randomHex8?: () => string;
  /**
   * Where calculate, a query, reads a worker's state: the read model of folded states, current
   * with every write this instance acknowledged (one indexed row read, cached beside its runner).
   * Without it, calculate reads the worker's stream as the commands do.
   */
  readState?: (workerId: number) => Promise<JudgedState>;
  /** How many times a command is decided again after losing a race on a stream. */
  maxAttempts?: number;
  onConflict?: (stream: string) => void;
}

export interface Written<T> {
  value: T;
  position: Position;
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

/**
 * How an attempt reads the streams it decides on: `held` takes them as the stream cache holds
 * them, without asking the store, when it holds them all; `fresh` asks the store for what
 * follows. `held` says whether the decision was made on held streams.
 */
type Read = 'held' | 'fresh';
type DecideOn<T> = (read: Read) => Promise<{ decision: Decision<T>; held: boolean }>;

/**
 * The optimistic strategy (creates, which come in crowds): the first attempt decides on the
 * streams as held, without a read; the append names the revisions it was decided on, so a stale
 * picture ends in a conflict and a fresh attempt. A refusal is never answered from held streams:
 * it is decided again on fresh reads. Later attempts read fresh.
 */
async function optimistic<T>(attempt: number, decideOn: DecideOn<T>): Promise<Decision<T>> {
  const first = await decideOn(attempt === 0 ? 'held' : 'fresh');
  return first.held && !first.decision.ok ? (await decideOn('fresh')).decision : first.decision;
}

/**
 * The command handler. Each command, in this order: load what its decision needs (the worker
 * stream, the subgerencia's month streams, reference data), decide (the pure deciders of
 * decide.ts), append with the revisions that were read, and retry: losing a race on any stream
 * means the picture was stale, so it decides again on fresh reads, a bounded number of times.
 */
export class VacationCommands {
  private readonly now: () => Date;
  private readonly randomHex8: () => string;
  private readonly maxAttempts: number;
  private readonly streams: StreamCache;
  /**
   * The state last folded from each worker stream. Streams only grow, so a state folded to the
   * revision the stream cache holds is the state of what it holds; states are never changed, so
   * requests share them. Only the states are kept, not the events they were folded from, which
   * the stream cache may have dropped since.
   */
  private readonly folded = new LRUCache<string, WorkerState>({ max: 2_500 });
  /** The worker each document was last found to be: a few dozen bytes a worker, so a large employer's all fit. */
  private readonly workerIds = new LRUCache<string, number>({ max: 100_000 });

  constructor(private readonly deps: CommandDeps) {
    this.streams = new StreamCache(deps.store);
    this.now = deps.now ?? (() => new Date());
    this.randomHex8 = deps.randomHex8 ?? (() => randomBytes(4).toString('hex'));
    this.maxAttempts = deps.maxAttempts ?? 25;
  }

  async calculate(documentNumber: string, request: VacationRequest): Promise<Outcome<VacationFigures>> {
    const { file, given } = await this.fileAndReadState(documentNumber);
    if (!file) return { ok: false, kind: 'worker_not_found' };
    const { state, occupancy, placement } = given
      ? { state: given, ...(await this.around(file, request, 'fresh')) }
      : await this.load(file, request, 'fresh');
    const ev = evaluate({ request, file, state, calendar: this.deps.calendar, occupancy, placement });
    return ev.ok ? { ok: true, value: ev.figures } : { ok: false, kind: 'rules', violations: ev.violations };
  }

  async create(documentNumber: string, request: VacationRequest, actor: Actor): Promise<Outcome<Written<Created>>> {
    const file = await this.fileOf(documentNumber);
    if (!file) return { ok: false, kind: 'worker_not_found' };
    const recordId = await this.deps.nextRecordId();
    return this.handle(actor, (given, attempt) =>
      optimistic(attempt, async (read) => {
        const { state, occupancy, placement, held } = await this.load(file, request, read);
        const input = { request, file, state, calendar: this.deps.calendar, occupancy, placement };
        return { held, decision: decideCreate(input, state, { ...given, recordId }) };
      }),
    );
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
      const outcome = await this.handle(actor, async (given) => {
        const { state, occupancy, placement } = await this.load(file, request, 'fresh');
        if (!state.vacations.get(code) || state.vacations.get(code)!.deleted) return { ok: false, kind: 'record_not_found' };
        return decideEdit(
          code,
          { request, file, state, calendar: this.deps.calendar, occupancy, placement },
          state,
          { ...given, recordId },
          actor.userId,
        );
      });
      return outcome.ok ? outcome : { ...outcome, attempt };
    } catch (error) {
      // The caller records the failure with both ids before answering it as any other error.
      return { ok: false, kind: 'error', error, attempt };
    }
  }

  async delete(code: string, actor: Actor): Promise<Outcome<Written<Changed>>> {
    return this.onRecord(code, actor, (state, given) => decideDelete(code, state, given, actor.userId));
  }

  async approve(code: string, actor: Actor): Promise<Outcome<Written<Changed>>> {
    return this.onRecord(code, actor, (state, given) => decideApprove(code, state, given, actor.userId));
  }

  /** Interrupts an approved, enjoyed vacation in course (CST art. 188), judged on the service's today. */
  async interrupt(code: string, request: InterruptionRequest, actor: Actor): Promise<Outcome<Written<Interrupted>>> {
    return this.onRecord(code, actor, (state, given) =>
      decideInterrupt(code, request, state, { calendar: this.deps.calendar, today: this.deps.today() }, given, actor.userId),
    );
  }

  private async onRecord<T>(
    code: string,
    actor: Actor,
    decide: (state: WorkerState, given: Given) => Decision<T>,
  ): Promise<Outcome<Written<T>>> {
    const owner = await this.ownerOf(code);
    if (owner === undefined) return { ok: false, kind: 'record_not_found' };
    return this.handle(actor, async (given) => decide(await this.workerState(owner), given));
  }

  /**
   * Load → decide (`loadAndDecide`, given the time, ids and random bytes of this attempt), append,
   * and retry after a conflict.
   */
  private async handle<T>(
    actor: Actor,
    loadAndDecide: (given: Given, attempt: number) => Promise<Decision<T>>,
  ): Promise<Outcome<Written<T>>> {
    for (let attempt = 0; attempt < this.maxAttempts; attempt++) {
      const now = this.now();
      const given: Given = { recordId: 0, nowIso: now.toISOString(), epochMillis: now.getTime(), randomHex8: this.randomHex8() };
      const decision = await loadAndDecide(given, attempt);
      if (!decision.ok) return decision;
      try {
        const position = await this.append(decision.writes, actor, now);
        return { ok: true, value: { value: decision.value, position } };
      } catch (err) {
        if (!(err instanceof WrongExpectedRevisionError)) throw err;
        this.deps.onConflict?.(err.stream);
        // Spread the retries out so that a crowd of losers does not collide again at once.
        await new Promise((r) => setTimeout(r, Math.random() * Math.min(50, 2 ** attempt)));
      }
    }
    return { ok: false, kind: 'busy' };
  }

  /** Appends the decision's writes, and tells the stream cache what they added to each stream. */
  private async append(writes: PlannedWrite[], actor: Actor, now: Date): Promise<Position> {
    const metadata = metadataOf(actor, now, this.deps.today());
    const result = await this.deps.store.append(
      writes.map((w) => ({
        stream: w.stream,
        expectedRevision: w.expectedRevision,
        events: w.events.map((e) => encode(e, metadata, randomUUID())),
      })),
    );
    for (const w of writes) {
      const revision = result.revisions.find((r) => r.stream === w.stream)?.revision;
      if (revision !== undefined) this.streams.appended(w.stream, w.events, revision);
    }
    return result.position;
  }

  /**
   * The worker's file and, where calculate reads the read model (readState), their state: asked
   * for beside the file when the document's worker is known, so that a worker held in neither
   * cache costs one round trip to the database, not two in turn.
   */
  private async fileAndReadState(documentNumber: string): Promise<{ file: WorkerFile | null; given?: JudgedState }> {
    const readState = this.deps.readState;
    if (!readState) return { file: await this.fileOf(documentNumber) };
    const known = this.workerIds.get(documentNumber);
    const early = known === undefined ? undefined : readState(known);
    early?.catch(() => {});
    const file = await this.fileOf(documentNumber);
    if (!file) return { file };
    // Kept under the file's own string of the number where it is the same, not a copy from the request.
    if (known !== file.worker.id)
      this.workerIds.set(file.worker.documentNumber === documentNumber ? file.worker.documentNumber : documentNumber, file.worker.id);
    return { file, given: await (early && known === file.worker.id ? early : readState(file.worker.id)) };
  }

  private fileOf(documentNumber: string): Promise<WorkerFile | null> {
    return this.deps.reference.workerFileByDocument(documentNumber);
  }

  async workerState(workerId: number): Promise<WorkerState> {
    const stream = workerStream(workerId);
    return this.fold(stream, (await this.streams.read([stream])).get(stream));
  }

  private fold(stream: string, events: readonly CachedEvent[] | undefined): WorkerState {
    if (!events?.length) return foldWorker([]);
    const held = this.folded.get(stream);
    if (held?.revision === events[events.length - 1]!.revision) return held;
    const state = foldWorker(events);
    this.folded.set(stream, state);
    return state;
  }

  private async ownerOf(code: string): Promise<number | undefined> {
    const [first] = await this.deps.store.readStream(pilaStream(code));
    const d = first ? decode(first) : undefined;
    return d?.event.type === 'PilaCodeAssigned' ? d.event.data.workerId : undefined;
  }

  /**
   * The worker's stream and, for an enjoyed vacation under a company contract that limits the
   * people on vacation at once (rule d), the month streams of the subgerencia its period touches:
   * read together (see `around`), the worker's folded.
   */
  private async load(
    file: WorkerFile,
    request: VacationRequest,
    read: Read,
  ): Promise<{ state: WorkerState; occupancy: UnitOccupancy | undefined; placement: Placement | null; held: boolean }> {
    const worker = workerStream(file.worker.id);
    const { streams, ...rest } = await this.around(file, request, read, worker);
    return { state: this.fold(worker, streams.get(worker)), ...rest };
  }

  /**
   * The request's placement and, for an enjoyed vacation under a company contract that limits the
   * people on vacation at once (rule d), the occupancy of the month streams of the subgerencia its
   * period touches, read with the stream `worker` when one is named: only past what the stream
   * cache already holds. Without a limit nothing reads the months, and the deciders book their
   * places with no expected revision, so they are not read at all: in a large subgerencia they
   * hold thousands of bookings.
   */
  private async around(
    file: WorkerFile,
    request: VacationRequest,
    read: Read,
    worker?: string,
  ): Promise<{ streams: Map<string, CachedEvent[]>; occupancy: UnitOccupancy | undefined; placement: Placement | null; held: boolean }> {
    const placement = place(request, file, this.deps.calendar) ?? null;
    const limited = placement && (companyContractOf(file, placement.contract)?.vacationParams?.maxPeopleOnVacation ?? null) !== null;
    const guarded = placement && !request.compensated && limited ? placement : undefined;
    const months = guarded ? monthsOf(request.startDate, guarded.endDate) : [];
    const units = guarded ? months.map((m) => unitStream(guarded.contract.subgerenciaId, m)) : [];
    const wanted = worker ? [worker, ...units] : units;
    const held = read === 'held' ? this.streams.peek(wanted) : undefined;
    const streams = held ?? (wanted.length ? await this.streams.read(wanted) : new Map<string, CachedEvent[]>());
    const occupancy =
      guarded &&
      foldUnit(
        guarded.contract.subgerenciaId,
        months.map((month, i) => {
          const events = streams.get(units[i]!) ?? [];
          return { month, revision: events.length ? events[events.length - 1]!.revision : -1, events: events.map((e) => e.event) };
        }),
      );
    return { streams, occupancy, placement, held: held !== undefined };
  }
}
