import { randomBytes } from 'node:crypto';
import type { HolidayLookup } from '../domain/index.ts';
import { closureStream, pilaStream, unitStream, workerStream } from '../events/streams.ts';
import type { ClosureScope, CollectiveClosureScheduled, DomainEvent, VacationRecord } from '../events/types.ts';
import { foldWorker, type WorkerState } from '../events/worker-state.ts';
import { decodeStream, type EventWrite } from '../store/aggregate-port.ts';
import { WrongExpectedRevisionError, comparePositions, type Position } from '../store/types.ts';
import { closureEvents, judgeClosure, pendingOf, type ClosureLine, type ClosureRequest, type LeftOut } from './closure-decider.ts';
import { reaches, snapshot } from './decider-shared.ts';
import { readWhole, type CommandEvents } from './handle.ts';
import { monthsOf } from './occupancy.ts';
import { metadataOf, type Actor, type WorkerFile } from './types.ts';

export type { ClosureLine, ClosureRequest, LeftOut } from './closure-decider.ts';

/** A worker's file with the names a closure's lists show. */
export type NamedFile = WorkerFile & { worker: WorkerFile['worker'] & { firstNames: string; lastNames: string } };

/** What a closure reads of the reference data besides the workers' streams. */
export interface ClosureReference {
  /** The files of every worker holding a contract in the scope, in worker id order. */
  filesInScope(scope: ClosureScope): Promise<NamedFile[]>;
  /** The reference data's version now, and which of these workers changed after a version. */
  version(): Promise<number>;
  changedSince(version: number, workerIds: readonly number[]): Promise<number[]>;
  /** The subgerencias, or the company contract, of the scope that the reference data does not hold. */
  unknownIn(scope: ClosureScope): Promise<{ subgerencias: string[]; companyContract: boolean }>;
}

export interface ClosureDeps {
  events: CommandEvents;
  reference: ClosureReference;
  calendar: HolidayLookup;
  nextRecordId: () => Promise<number>;
  headPosition: () => Promise<Position>;
  now?: () => Date;
  today: () => string;
  randomHex8?: () => string;
  maxAttempts?: number;
}

/**
 * What the preview saw, for the booking to compare with: the log's head and the reference data's
 * version then. A worker whose stream moved past the head, or whose file changed after the version,
 * has a situation the preview did not show.
 */
export interface Seen {
  head: Position;
  version: number;
}

export interface ClosurePreview {
  lines: ClosureLine[];
  excluded: LeftOut[];
  files: Map<number, NamedFile>;
  seen: Seen;
}

export type ClosureFailure =
  | { kind: 'closure_rules'; problem: 'notBusinessDay' | 'nobody' | 'allLeftOut' }
  | { kind: 'closure_rules'; problem: 'belowMinimum'; minimum: number }
  | { kind: 'out_of_scope' }
  | { kind: 'unknown_scope'; subgerencias: string[]; companyContractId: number | null }
  | { kind: 'changed'; workers: { workerId: number; documentNumber: string }[] }
  | { kind: 'closure_not_found' }
  | { kind: 'closure_started'; startDate: string }
  | { kind: 'closure_cancelled' }
  | { kind: 'busy' };

export type ClosureOutcome<T> = { ok: true; value: T; position: Position } | ({ ok: false } & ClosureFailure);

export interface Booked {
  closure: CollectiveClosureScheduled;
  records: VacationRecord[];
  preview: Omit<ClosurePreview, 'seen'>;
}

export interface ClosureChange {
  closureId: string;
  codes: string[];
  at: string;
}

/**
 * The closure commands: preview, book (all or nothing), approve together and cancel together.
 * A booking is one append over the closure's own stream and every worker's, each at the revision
 * its decision read, so that an individual request landing on a worker in between makes the
 * whole booking be decided again, never both.
 */
export class ClosureCommands {
  private readonly now: () => Date;
  private readonly hex: () => string;

  constructor(private readonly deps: ClosureDeps) {
    this.now = deps.now ?? (() => new Date());
    this.hex = deps.randomHex8 ?? (() => randomBytes(4).toString('hex'));
  }

  /** Nothing is written: who the closure would book, with their figures, and who it leaves out. */
  async preview(request: ClosureRequest, actor: Actor): Promise<ClosureOutcome<ClosurePreview>> {
    const unknown = await this.unknown(request.scope);
    if (unknown) return unknown;
    const [head, version] = await Promise.all([this.deps.headPosition(), this.deps.reference.version()]);
    const read = await this.read(request.scope);
    const judged = this.judge(request, read.workers, actor);
    if (!judged.ok) return judged;
    return { ok: true, value: { ...judged, files: read.files, seen: { head, version } }, position: head };
  }

  /**
   * Books the closure as judged now; with `seen` (what a preview saw), only if no worker in scope
   * changed since: otherwise nothing is written and the answer names them.
   */
  async book(request: ClosureRequest, actor: Actor, seen?: Seen): Promise<ClosureOutcome<Booked>> {
    const attempts = this.deps.maxAttempts ?? 5;
    const unknown = await this.unknown(request.scope);
    if (unknown) return unknown;
    for (let attempt = 0; attempt < attempts; attempt++) {
      const read = await this.read(request.scope);
      if (seen) {
        const changed = await this.changedSince(seen, read);
        if (changed.length) return { ok: false, kind: 'changed', workers: changed };
      }
      const judged = this.judge(request, read.workers, actor);
      if (!judged.ok) return judged;
      // A closure that would book nobody is no decision to keep: the preview already named who is left out and why.
      if (judged.lines.length === 0) return { ok: false, kind: 'closure_rules', problem: 'allLeftOut' };
      const now = this.now();
      const moment = { nowIso: now.toISOString(), epochMillis: now.getTime(), randomHex8: this.hex() };
      const closureId = `COL_${now.getTime()}_${this.hex()}`;
      const ids: number[] = [];
      for (const _ of judged.lines) ids.push(await this.deps.nextRecordId());
      const made = closureEvents({ closureId, request, userId: actor.userId }, judged, moment, ids);
      const writes: EventWrite[] = [{ stream: closureStream(closureId), expectedRevision: 'no_stream', events: [made.closure] }];
      const units = new Map<string, DomainEvent[]>();
      for (const [workerId, events] of made.perWorker) {
        const state = read.states.get(workerId)!;
        const worker: DomainEvent[] = [];
        for (const e of events) {
          if (e.type === 'PilaCodeAssigned')
            writes.push({ stream: pilaStream(e.data.codigoPila), expectedRevision: 'no_stream', events: [e] });
          else if (e.type === 'SlotsBooked') {
            // Rule (d) is not judged among the closure's records: its places go in with no
            // expectation, and an individual request decided on the months before them conflicts.
            for (const month of monthsOf(e.data.startDate, e.data.endDate)) {
              const stream = unitStream(e.data.subgerenciaId, month);
              units.set(stream, [...(units.get(stream) ?? []), e]);
            }
          } else worker.push(e);
        }
        writes.push({
          stream: workerStream(workerId),
          expectedRevision: state.revision < 0 ? 'no_stream' : state.revision,
          events: worker,
        });
      }
      for (const [stream, events] of units) writes.push({ stream, expectedRevision: 'any', events });
      try {
        const { position } = await this.deps.events.append(writes, metadataOf(actor, now, this.deps.today()));
        if (made.closure.type !== 'CollectiveClosureScheduled') throw new Error('unreachable');
        return {
          ok: true,
          value: {
            closure: made.closure.data,
            records: made.records,
            preview: { lines: judged.lines, excluded: judged.excluded, files: read.files },
          },
          position,
        };
      } catch (err) {
        if (!(err instanceof WrongExpectedRevisionError)) throw err;
        // A worker's stream moved while the closure was decided: with a preview to compare with,
        // the next attempt names who changed; without one, it is decided again on fresh reads.
        await new Promise((r) => setTimeout(r, Math.random() * 20));
      }
    }
    return { ok: false, kind: 'busy' };
  }

  /** Approves every pending record of the closure (already approved or deleted ones are left as they are). */
  approve(closureId: string, actor: Actor): Promise<ClosureOutcome<ClosureChange>> {
    return this.onClosure(closureId, actor, (closure, states, nowIso) => {
      const byWorker = new Map<number, DomainEvent[]>();
      const codes: string[] = [];
      for (const [workerId, state] of states) {
        for (const v of pendingOf(state, closure.codes)) {
          codes.push(v.codigoPila);
          byWorker.set(workerId, [
            ...(byWorker.get(workerId) ?? []),
            { type: 'VacationApproved', data: { codigoPila: v.codigoPila, workerId, approvedByUserId: actor.userId, approvedAt: nowIso } },
          ]);
        }
      }
      const event: DomainEvent = {
        type: 'CollectiveClosureApproved',
        data: { closureId, codes, approvedByUserId: actor.userId, approvedAt: nowIso },
      };
      return { byWorker, event, codes, units: [] };
    });
  }

  /** Cancels a closure before its start: its pending records are deleted, with the reason. */
  cancel(closureId: string, reason: string, actor: Actor): Promise<ClosureOutcome<ClosureChange>> {
    return this.onClosure(closureId, actor, (closure, states, nowIso) => {
      if (closure.startDate <= this.deps.today()) return { kind: 'closure_started', startDate: closure.startDate };
      const byWorker = new Map<number, DomainEvent[]>();
      const codes: string[] = [];
      const units: { stream: string; event: DomainEvent }[] = [];
      for (const [workerId, state] of states) {
        for (const v of pendingOf(state, closure.codes)) {
          codes.push(v.codigoPila);
          const released: DomainEvent = { type: 'SlotsReleased', data: { codigoPila: v.codigoPila, workerId } };
          byWorker.set(workerId, [
            ...(byWorker.get(workerId) ?? []),
            {
              type: 'VacationDeleted',
              data: {
                codigoPila: v.codigoPila,
                workerId,
                reason: 'delete',
                replacedBy: null,
                snapshot: snapshot(v),
                deletedByUserId: actor.userId,
                deletedAt: nowIso,
                closureId,
                closureReason: reason,
              },
            },
          ]);
          if (v.subgerenciaId && !v.compensated)
            for (const month of monthsOf(v.startDate, v.endDate))
              units.push({ stream: unitStream(v.subgerenciaId, month), event: released });
        }
      }
      const event: DomainEvent = {
        type: 'CollectiveClosureCancelled',
        data: { closureId, reason, codes, cancelledByUserId: actor.userId, cancelledAt: nowIso },
      };
      return { byWorker, event, codes, units };
    });
  }

  /** A command on a booked closure: its stream and its workers' streams read, decided, appended at the revisions read. */
  private async onClosure(
    closureId: string,
    actor: Actor,
    decide: (
      closure: { startDate: string; codes: Set<string>; subgerencias: Set<string> },
      states: Map<number, WorkerState>,
      nowIso: string,
    ) =>
      | { byWorker: Map<number, DomainEvent[]>; event: DomainEvent; codes: string[]; units: { stream: string; event: DomainEvent }[] }
      | { kind: 'closure_started'; startDate: string },
  ): Promise<ClosureOutcome<ClosureChange>> {
    const stream = closureStream(closureId);
    for (let attempt = 0; attempt < (this.deps.maxAttempts ?? 5); attempt++) {
      const stored = (await this.deps.events.readStreams([{ stream, fromRevision: 0 }])).get(stream) ?? [];
      const events = decodeStream(stored);
      const scheduled = events.find((e) => e.event.type === 'CollectiveClosureScheduled')?.event;
      if (!scheduled || scheduled.type !== 'CollectiveClosureScheduled') return { ok: false, kind: 'closure_not_found' };
      if (events.some((e) => e.event.type === 'CollectiveClosureCancelled')) return { ok: false, kind: 'closure_cancelled' };
      const workerIds = [...new Set(scheduled.data.records.map((r) => r.workerId))];
      const states = await this.states(workerIds);
      const subgerencias = new Set<string>();
      for (const state of states.values())
        for (const v of state.vacations.values()) if (v.closureId === closureId && v.subgerenciaId) subgerencias.add(v.subgerenciaId);
      if (actor.scope && [...subgerencias].some((s) => !reaches(actor.scope ?? null, s))) return { ok: false, kind: 'out_of_scope' };
      const now = this.now();
      const decided = decide(
        { startDate: scheduled.data.startDate, codes: new Set(scheduled.data.records.map((r) => r.codigoPila)), subgerencias },
        states,
        now.toISOString(),
      );
      if ('kind' in decided) return { ok: false, ...decided };
      const writes: EventWrite[] = [{ stream, expectedRevision: stored.length - 1, events: [decided.event] }];
      for (const [workerId, list] of decided.byWorker) {
        const revision = states.get(workerId)!.revision;
        writes.push({ stream: workerStream(workerId), expectedRevision: revision, events: list });
      }
      const units = new Map<string, DomainEvent[]>();
      for (const u of decided.units) units.set(u.stream, [...(units.get(u.stream) ?? []), u.event]);
      for (const [s, list] of units) writes.push({ stream: s, expectedRevision: 'any', events: list });
      try {
        const { position } = await this.deps.events.append(writes, metadataOf(actor, now, this.deps.today()));
        return { ok: true, value: { closureId, codes: decided.codes, at: now.toISOString() }, position };
      } catch (err) {
        if (!(err instanceof WrongExpectedRevisionError)) throw err;
        await new Promise((r) => setTimeout(r, Math.random() * 20));
      }
    }
    return { ok: false, kind: 'busy' };
  }

  /** The files in scope and every one of those workers' states, read fresh from their streams. */
  private async read(scope: ClosureScope) {
    const list = await this.deps.reference.filesInScope(scope);
    const { states, positions } = await this.streamsOf(list.map((f) => f.worker.id));
    const files = new Map(list.map((f) => [f.worker.id, f]));
    return { files, states, workers: list.map((file) => ({ file, state: states.get(file.worker.id)! })), positions };
  }

  private async states(workerIds: readonly number[]): Promise<Map<number, WorkerState>> {
    return (await this.streamsOf(workerIds)).states;
  }

  /** The workers' states, and where each stream's last event lies in the log. */
  private async streamsOf(workerIds: readonly number[]): Promise<{ states: Map<number, WorkerState>; positions: Map<number, Position> }> {
    const states = new Map<number, WorkerState>();
    const positions = new Map<number, Position>();
    const read = await readWhole(
      this.deps.events,
      workerIds.map((id) => workerStream(id)),
    );
    for (const id of workerIds) {
      const stored = read.get(workerStream(id))!;
      states.set(id, foldWorker(decodeStream(stored)));
      if (stored.length) positions.set(id, stored[stored.length - 1]!.position);
    }
    return { states, positions };
  }

  /** The workers in scope whose stream or file changed after what the preview saw. */
  private async changedSince(seen: Seen, read: { files: Map<number, NamedFile>; positions: Map<number, Position> }) {
    const ids = [...read.files.keys()];
    const changed = new Set(await this.deps.reference.changedSince(seen.version, ids));
    for (const [id, p] of read.positions) if (comparePositions(p, seen.head) > 0) changed.add(id);
    return [...changed]
      .sort((a, b) => a - b)
      .map((workerId) => ({ workerId, documentNumber: read.files.get(workerId)?.worker.documentNumber ?? String(workerId) }));
  }

  private async unknown(scope: ClosureScope): Promise<({ ok: false } & ClosureFailure) | undefined> {
    const u = await this.deps.reference.unknownIn(scope);
    if (u.subgerencias.length === 0 && !u.companyContract) return undefined;
    return {
      ok: false,
      kind: 'unknown_scope',
      subgerencias: u.subgerencias,
      companyContractId: u.companyContract ? scope.companyContractId : null,
    };
  }

  /** The closure judged on what was read, refused as a whole when the actor does not reach every worker it books. */
  private judge(request: ClosureRequest, workers: Parameters<typeof judgeClosure>[1], actor: Actor) {
    const judged = judgeClosure(request, workers, this.deps.calendar);
    if (!judged.ok) return judged;
    const scope = actor.scope ?? null;
    if (!judged.lines.every((l) => reaches(scope, l.figures.subgerenciaId))) return { ok: false as const, kind: 'out_of_scope' as const };
    return judged;
  }
}
