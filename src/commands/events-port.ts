import { randomUUID } from 'node:crypto';
import { decode, encode } from '../events/codec.ts';
import { workerStream } from '../events/streams.ts';
import type { DomainEvent, EventMetadata } from '../events/types.ts';
import type { AppendResult, EventStore, StoredEvent } from '../store/types.ts';
import type { PlannedWrite } from './streams-of.ts';
import { emptyWorkerState, foldWorker, type WorkerState } from './worker-state.ts';

/** One event of a stream, decoded, at its revision. */
export interface StreamEvent {
  event: DomainEvent;
  revision: number;
}

/**
 * How a load may read: `fresh` asks the store for what it holds now; `held` lets a port that keeps
 * streams in memory answer from them, possibly behind the store. Only for decisions whose append
 * names the revisions they were decided on, so that a stale picture ends in a conflict.
 */
export type Read = 'held' | 'fresh';

/** What a decision is made on. */
export interface Loaded {
  /** The worker's stream folded (the initial state when no worker was asked for). */
  state: WorkerState;
  /** The events of every stream read, by name. */
  streams: ReadonlyMap<string, readonly StreamEvent[]>;
  /** Whether the load was answered from memory, as `held` allows. */
  held: boolean;
}

/** The event store as the commands use it: load what a decision reads, append what it gave. */
export interface CommandEvents extends Pick<EventStore, 'readStreams'> {
  /** The stream of `workerId` folded, and the streams `others` besides. */
  load(workerId: number | null, others: readonly string[], read: Read): Promise<Loaded>;
  /** Appends the writes, each of its events under `metadata`; all or none. */
  append(writes: readonly PlannedWrite[], metadata: EventMetadata): Promise<AppendResult>;
  /** The first event of a stream, if it has one. */
  firstEvent(stream: string): Promise<DomainEvent | undefined>;
}

/** A stream's events decoded; one of a type this version does not know keeps its place, as Unknown. */
export function decodeStream(stored: readonly StoredEvent[]): StreamEvent[] {
  return stored.map((s) => ({ event: decode(s)?.event ?? ({ type: 'Unknown' } as unknown as DomainEvent), revision: s.revision }));
}

/** The store read and written as it is, every load a full read of its streams (src/caching keeps them). */
export class StoreEvents implements CommandEvents {
  constructor(private readonly store: EventStore) {}

  readStreams(requests: { stream: string; fromRevision: number }[]): Promise<Map<string, StoredEvent[]>> {
    return this.store.readStreams(requests);
  }

  async load(workerId: number | null, others: readonly string[]): Promise<Loaded> {
    const worker = workerId === null ? undefined : workerStream(workerId);
    const wanted = worker ? [worker, ...others] : [...others];
    const stored = wanted.length ? await this.store.readStreams(wanted.map((stream) => ({ stream, fromRevision: 0 }))) : new Map();
    const streams = new Map(wanted.map((stream) => [stream, decodeStream(stored.get(stream) ?? [])]));
    return { state: worker ? foldWorker(streams.get(worker)!) : emptyWorkerState(), streams, held: false };
  }

  append(writes: readonly PlannedWrite[], metadata: EventMetadata): Promise<AppendResult> {
    return this.store.append(
      writes.map((w) => ({
        stream: w.stream,
        expectedRevision: w.expectedRevision,
        events: w.events.map((e) => encode(e, metadata, randomUUID())),
      })),
    );
  }

  async firstEvent(stream: string): Promise<DomainEvent | undefined> {
    const [first] = await this.store.readStream(stream);
    return first && decode(first)?.event;
  }
}
