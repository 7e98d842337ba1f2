import { LRUCache } from 'lru-cache';
import { StoreEvents, type CommandEvents, type Loaded, type Read, type StreamEvent } from '../commands/events-port.ts';
import type { PlannedWrite } from '../commands/streams-of.ts';
import { emptyWorkerState, foldWorker, type WorkerState } from '../commands/worker-state.ts';
import { workerStream } from '../events/streams.ts';
import type { DomainEvent, EventMetadata } from '../events/types.ts';
import type { AppendResult, EventStore, StoredEvent } from '../store/types.ts';
import { StreamCache } from './stream-cache.ts';

const NOTHING: ReadonlyMap<string, readonly StreamEvent[]> = new Map();

/**
 * The commands' events with memory in front: the streams they read again and again (a worker's,
 * a subgerencia's months) kept decoded in a StreamCache, read from the store only past what is
 * held, and the state last folded from each worker stream. A `held` load is answered from memory
 * alone when every stream asked for is held.
 */
export class CachedEvents implements CommandEvents {
  private readonly streams: StreamCache;
  /**
   * The state last folded from each worker stream. Streams only grow, so a state folded to the
   * revision the stream cache holds is the state of what it holds; states are never changed, so
   * requests share them. Only the states are kept, not the events they were folded from, which
   * the stream cache may have dropped since.
   */
  private readonly folded = new LRUCache<string, WorkerState>({ max: 2_500 });

  constructor(
    private readonly inner: CommandEvents,
    opts: { batching?: boolean } = {},
  ) {
    this.streams = new StreamCache(inner, undefined, undefined, undefined, opts.batching);
  }

  readStreams(requests: { stream: string; fromRevision: number }[]): Promise<Map<string, StoredEvent[]>> {
    return this.inner.readStreams(requests);
  }

  async load(workerId: number | null, others: readonly string[], read: Read): Promise<Loaded> {
    const worker = workerId === null ? undefined : workerStream(workerId);
    const wanted = worker ? [worker, ...others] : others;
    const held = read === 'held' ? this.streams.peek(wanted) : undefined;
    const streams = held ?? (wanted.length ? await this.streams.read(wanted) : NOTHING);
    return { state: worker ? this.fold(worker, streams.get(worker)) : emptyWorkerState(), streams, held: held !== undefined };
  }

  /** Appends, and tells the stream cache what the append added to each stream. */
  async append(writes: readonly PlannedWrite[], metadata: EventMetadata): Promise<AppendResult> {
    const result = await this.inner.append(writes, metadata);
    for (const w of writes) {
      const revision = result.revisions.find((r) => r.stream === w.stream)?.revision;
      if (revision !== undefined) this.streams.appended(w.stream, w.events, revision);
    }
    return result;
  }

  firstEvent(stream: string): Promise<DomainEvent | undefined> {
    return this.inner.firstEvent(stream);
  }

  private fold(stream: string, events: readonly StreamEvent[] | undefined): WorkerState {
    if (!events?.length) return foldWorker([]);
    const held = this.folded.get(stream);
    if (held?.revision === events[events.length - 1]!.revision) return held;
    const state = foldWorker(events);
    this.folded.set(stream, state);
    return state;
  }
}

/** The store's events as the commands read them, with the caches in front. */
export const cachedEvents = (store: EventStore, opts: { batching?: boolean } = {}): CommandEvents =>
  new CachedEvents(new StoreEvents(store), opts);
