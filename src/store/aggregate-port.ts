import { randomUUID } from 'node:crypto';
import { decode, encode } from '../events/codec.ts';
import type { DomainEvent, EventMetadata } from '../events/types.ts';
import type { AppendResult, EventStore, ExpectedRevision, StoredEvent } from './types.ts';

/** One event of a stream, decoded, at its revision. */
export interface StreamEvent {
  event: DomainEvent;
  revision: number;
}

/** Domain events to append to one stream, with the revision the stream must still be at. */
export interface EventWrite {
  stream: string;
  expectedRevision: ExpectedRevision;
  events: DomainEvent[];
}

/**
 * How a load may read: `fresh` asks the store for what it holds now; `held` lets a port that keeps
 * streams in memory answer from them, possibly behind the store: only for decisions whose append
 * names the revisions they were decided on, so that a stale picture ends in a conflict. `current`
 * lets it answer from streams a reader of the log vouches for (src/caching/vouch.ts): as current as
 * the read models, with this process's own appends; for queries, which write nothing.
 */
export type Read = 'held' | 'fresh' | 'current';

/** What a decision is made on. */
export interface Loaded<S> {
  /** The aggregate's stream folded (the fold of no events when none was asked for). */
  state: S;
  /** The events of every stream read, by name. */
  streams: ReadonlyMap<string, readonly StreamEvent[]>;
  /** Whether the load was answered from memory (some of it, for `current`), possibly behind the store. */
  held: boolean;
}

/** The event store as a command handler uses it: load what a decision reads, append what it gave. */
export interface AggregatePort<S> extends Pick<EventStore, 'readStreams'> {
  /** The stream `aggregate` folded, and the streams `others` besides. */
  load(aggregate: string | null, others: readonly string[], read: Read): Promise<Loaded<S>>;
  /** Appends the writes, each of its events under `metadata`; all or none. */
  append(writes: readonly EventWrite[], metadata: EventMetadata): Promise<AppendResult>;
  /** The first event of a stream, if it has one. */
  firstEvent(stream: string): Promise<DomainEvent | undefined>;
}

/** How a state is folded from a stream's events. */
export type Fold<S> = (events: readonly StreamEvent[]) => S;

/** A stream's events decoded; one of a type this version does not know keeps its place, as Unknown. */
export function decodeStream(stored: readonly StoredEvent[]): StreamEvent[] {
  return stored.map((s) => ({ event: decode(s)?.event ?? ({ type: 'Unknown' } as unknown as DomainEvent), revision: s.revision }));
}

/** The store read and written as it is, every load a full read of its streams (src/caching keeps them). */
export class StoreEvents<S> implements AggregatePort<S> {
  constructor(
    private readonly store: EventStore,
    private readonly fold: Fold<S>,
  ) {}

  readStreams(requests: { stream: string; fromRevision: number }[]): Promise<Map<string, StoredEvent[]>> {
    return this.store.readStreams(requests);
  }

  async load(aggregate: string | null, others: readonly string[]): Promise<Loaded<S>> {
    const wanted = aggregate ? [aggregate, ...others] : [...others];
    const stored = wanted.length ? await this.store.readStreams(wanted.map((stream) => ({ stream, fromRevision: 0 }))) : new Map();
    const streams = new Map(wanted.map((stream) => [stream, decodeStream(stored.get(stream) ?? [])]));
    return { state: this.fold(aggregate ? streams.get(aggregate)! : []), streams, held: false };
  }

  append(writes: readonly EventWrite[], metadata: EventMetadata): Promise<AppendResult> {
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
