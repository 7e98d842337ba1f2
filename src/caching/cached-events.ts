import { LRUCache } from 'lru-cache';
import type { EventMetadata } from '../events/types.ts';
import type { AggregatePort, EventWrite, Fold, Loaded, Read, StreamEvent } from '../store/aggregate-port.ts';
import type { AppendResult, StoredEvent } from '../store/types.ts';
import { StreamCache } from './stream-cache.ts';
import type { Vouch } from './vouch.ts';

const NOTHING: ReadonlyMap<string, readonly StreamEvent[]> = new Map();

/**
 * An aggregate port with memory in front: the streams read again and again (a worker's, a
 * subgerencia's months) kept decoded in a StreamCache, read from the store only past what is
 * held, and the state last folded from each aggregate stream. A `held` load is answered from
 * memory alone when every stream asked for is held, a `current` one when every one is vouched for.
 */
export class CachedEvents<S extends { revision: number }> implements AggregatePort<S> {
  private readonly streams: StreamCache;
  /**
   * The state last folded from each aggregate stream. Streams only grow, so a state folded to the
   * revision the stream cache holds is the state of what it holds; states are never changed, so
   * requests share them. Only the states are kept, not the events they were folded from, which
   * the stream cache may have dropped since.
   */
  private readonly folded = new LRUCache<string, S>({ max: 2_500 });

  constructor(
    private readonly inner: AggregatePort<S>,
    private readonly fold: Fold<S>,
    opts: { batching?: boolean; vouch?: Vouch } = {},
  ) {
    this.streams = new StreamCache(inner, { batching: opts.batching, vouch: opts.vouch });
  }

  readStreams(requests: { stream: string; fromRevision: number }[]): Promise<Map<string, StoredEvent[]>> {
    return this.inner.readStreams(requests);
  }

  async load(aggregate: string | null, others: readonly string[], read: Read): Promise<Loaded<S>> {
    if (read === 'current' && others.length) {
      const vouched = this.streams.current(others);
      // The aggregate's own stream is never vouched for: read fresh, beside the months from memory.
      if (vouched) {
        if (aggregate) for (const [stream, events] of await this.streams.read([aggregate])) vouched.set(stream, events);
        return { state: this.folding(aggregate, aggregate ? vouched.get(aggregate) : undefined), streams: vouched, held: true };
      }
    }
    const wanted = aggregate ? [aggregate, ...others] : others;
    const held = read === 'held' ? this.streams.peek(wanted) : undefined;
    const streams = held ?? (wanted.length ? await this.streams.read(wanted) : NOTHING);
    return { state: this.folding(aggregate, aggregate ? streams.get(aggregate) : undefined), streams, held: held !== undefined };
  }

  /** Appends, and tells the stream cache what the append added to each stream. */
  async append(writes: readonly EventWrite[], metadata: EventMetadata): Promise<AppendResult> {
    const result = await this.inner.append(writes, metadata);
    for (const w of writes) {
      const revision = result.revisions.find((r) => r.stream === w.stream)?.revision;
      if (revision !== undefined) this.streams.appended(w.stream, w.events, revision);
    }
    return result;
  }

  firstEvent(stream: string) {
    return this.inner.firstEvent(stream);
  }

  private folding(stream: string | null, events: readonly StreamEvent[] | undefined): S {
    if (!stream || !events?.length) return this.fold([]);
    const held = this.folded.get(stream);
    if (held?.revision === events[events.length - 1]!.revision) return held;
    const state = this.fold(events);
    this.folded.set(stream, state);
    return state;
  }
}
