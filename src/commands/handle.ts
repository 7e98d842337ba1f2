import { workerStream } from '../events/streams.ts';
import type { DomainEvent } from '../events/types.ts';
import { decodeStream, type AggregatePort, type Loaded as LoadedOf } from '../store/aggregate-port.ts';
import { WrongExpectedRevisionError, type Position, type StoredEvent } from '../store/types.ts';
import { decide, type Moment, type VacationCommand } from './decide.ts';
import { streamsOf } from './streams-of.ts';
import { metadataOf, type Actor, type Outcome } from './types.ts';
import { foldWorker, type WorkerState } from '../events/worker-state.ts';

/** The event store as the commands use it (src/store/aggregate-port.ts), over workers' states. */
export type CommandEvents = AggregatePort<WorkerState>;

/** Streams read per query when a command reads many whole (a closure's workers, a plan's lines): a few hundred keep each read short. */
const READ_CHUNK = 500;

/** These streams read whole and fresh, a chunk at a time; a stream with no events reads as empty. */
export async function readWhole(events: CommandEvents, streams: readonly string[]): Promise<Map<string, StoredEvent[]>> {
  const stored = new Map<string, StoredEvent[]>();
  for (let i = 0; i < streams.length; i += READ_CHUNK) {
    const chunk = streams.slice(i, i + READ_CHUNK);
    const got = await events.readStreams(chunk.map((stream) => ({ stream, fromRevision: 0 })));
    for (const stream of chunk) stored.set(stream, got.get(stream) ?? []);
  }
  return stored;
}
export type Loaded = LoadedOf<WorkerState>;

export interface Written<T> {
  value: T;
  position: Position;
}

/** One command as the handler runs it. */
export interface Job<C extends VacationCommand, T> {
  /** The worker whose stream the decision is made on. */
  workerId: number;
  /** The streams it reads besides (the subgerencia's months, under a limit of people at once). */
  others: readonly string[];
  /**
   * Whether the first attempt may decide on the streams as held in memory (creates, which come
   * in crowds): the append names the revisions it was decided on, so a stale picture ends in a
   * conflict and a fresh attempt.
   */
  optimistic?: boolean;
  /** The command of one attempt, at its moment, on what was loaded. */
  command(moment: Moment, loaded: Loaded): C;
  /**
   * What the caller is answered, from the events written and the worker's state they were
   * decided on: the same whether they were written just now or found written by an earlier run
   * of the same request (`Actor.resumes`).
   */
  answer(events: readonly DomainEvent[], before: WorkerState): T;
}

export interface HandlerDeps {
  events: CommandEvents;
  now: () => Date;
  randomHex8: () => string;
  /** The service's business date, every event's metadata. */
  today: () => string;
  maxAttempts: number;
  onConflict?: (stream: string) => void;
}

/**
 * Load → decide → append, and again on a conflict: losing a race on any stream means the
 * picture was stale, so the command is decided again on fresh reads, a bounded number of times.
 * A refusal is never answered from streams as held: it is decided again on fresh reads first.
 */
export async function handle<C extends VacationCommand, T>(deps: HandlerDeps, actor: Actor, job: Job<C, T>): Promise<Outcome<Written<T>>> {
  const worker = workerStream(job.workerId);
  if (actor.resumes) {
    const written = await writtenBy(deps.events, worker, actor);
    if (written) return { ok: true, value: { value: job.answer(written.events, written.before), position: written.position } };
  }
  for (let attempt = 0; attempt < deps.maxAttempts; attempt++) {
    const now = deps.now();
    const moment: Moment = { nowIso: now.toISOString(), epochMillis: now.getTime(), randomHex8: deps.randomHex8() };
    let loaded = await deps.events.load(worker, job.others, job.optimistic && attempt === 0 ? 'held' : 'fresh');
    let command = job.command(moment, loaded);
    let decision = decide(command, loaded.state);
    if (!decision.ok && loaded.held) {
      loaded = await deps.events.load(worker, job.others, 'fresh');
      command = job.command(moment, loaded);
      decision = decide(command, loaded.state);
    }
    if (!decision.ok) return decision;
    const occupancy = command.type === 'CreateVacation' || command.type === 'EditVacation' ? command.data.occupancy : undefined;
    try {
      const writes = streamsOf(decision.events, loaded.state, occupancy);
      const { position } = await deps.events.append(writes, metadataOf(actor, now, deps.today()));
      return { ok: true, value: { value: job.answer(decision.events, loaded.state), position } };
    } catch (err) {
      if (!(err instanceof WrongExpectedRevisionError)) throw err;
      deps.onConflict?.(err.stream);
      // Spread the retries out so that a crowd of losers does not collide again at once.
      await new Promise((r) => setTimeout(r, Math.random() * Math.min(50, 2 ** attempt)));
    }
  }
  return { ok: false, kind: 'busy' };
}

/** Whether a stored event was written under the actor's idempotency key, sent with its API key. */
export function writtenUnder(e: StoredEvent, actor: Pick<Actor, 'apiKeyId' | 'idempotencyKey'>): boolean {
  const m = e.metadata as { apiKeyId?: unknown; idempotencyKey?: unknown };
  return actor.idempotencyKey !== null && m.idempotencyKey === actor.idempotencyKey && m.apiKeyId === actor.apiKeyId;
}

/**
 * The events an earlier run of the actor's request wrote to the worker's stream, found by the
 * idempotency key every event's metadata carries, and the state they were decided on; undefined
 * when none was written. Every command writes to the worker's stream at the revision it decided
 * on, so one request's events there are one run, right after the state they were decided on; an
 * API key's idempotency key is never claimed by two requests, so they are that request's.
 */
async function writtenBy(
  events: CommandEvents,
  worker: string,
  actor: Actor,
): Promise<{ events: DomainEvent[]; before: WorkerState; position: Position } | undefined> {
  if (actor.idempotencyKey === null) return undefined;
  const stored = (await events.readStreams([{ stream: worker, fromRevision: 0 }])).get(worker) ?? [];
  const first = stored.findIndex((e) => writtenUnder(e, actor));
  if (first < 0) return undefined;
  let end = first;
  while (end < stored.length && writtenUnder(stored[end]!, actor)) end++;
  return {
    events: decodeStream(stored.slice(first, end)).map((e) => e.event),
    before: foldWorker(decodeStream(stored.slice(0, first))),
    position: stored[end - 1]!.position,
  };
}
