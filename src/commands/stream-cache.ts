import { decode } from '../events/codec.ts';
import type { DomainEvent } from '../events/types.ts';
import type { EventStore, StoredEvent } from '../store/types.ts';

export interface CachedEvent {
  event: DomainEvent;
  revision: number;
}

/**
 * Streams the commands read again and again (a worker's, a subgerencia's months), kept decoded in
 * memory. A read asks the store only for what follows the revision already held, so the answer is
 * as current as a full read while usually costing an empty result; peek() answers from memory
 * alone, for decisions that an append at the revisions read will confirm. Streams are
 * append-only, which is what makes this safe.
 *
 * Reads asked for while others are on their way to the store go together in the next query, so
 * a crowd of requests costs a few round trips instead of one each. Every read is still sent after
 * it was asked for, so it sees everything committed before.
 */
export class StreamCache {
  private readonly entries = new Map<string, CachedEvent[]>();
  private waiting: Batch | undefined;
  private inFlight = 0;

  constructor(
    private readonly store: EventStore,
    private readonly maxStreams = 5_000,
    private readonly maxInFlight = 2,
  ) {}

  async read(streams: string[]): Promise<Map<string, CachedEvent[]>> {
    const known = streams.map((stream) => ({ stream, held: this.entries.get(stream) ?? [] }));
    const requests = known.map(({ stream, held }) => ({ stream, fromRevision: held.length ? held[held.length - 1]!.revision + 1 : 0 }));
    const fresh = await this.fetch(requests);
    const out = new Map<string, CachedEvent[]>();
    for (const { stream } of known) {
      // Another request may have extended the entry meanwhile: take only what it lacks.
      const current = this.entries.get(stream) ?? [];
      const last = current.length ? current[current.length - 1]!.revision : -1;
      const added: CachedEvent[] = [];
      for (const s of fresh.get(stream) ?? []) {
        if (s.revision <= last) continue;
        const d = decode(s);
        if (d) added.push({ event: d.event, revision: s.revision });
        else added.push({ event: { type: 'Unknown' } as unknown as DomainEvent, revision: s.revision });
      }
      const events = added.length ? [...current, ...added] : current;
      this.remember(stream, events);
      out.set(stream, events);
    }
    return out;
  }

  private fetch(requests: { stream: string; fromRevision: number }[]): Promise<Map<string, StoredEvent[]>> {
    let batch = this.waiting;
    if (!batch) {
      batch = this.waiting = new Batch();
      if (this.inFlight < this.maxInFlight) setImmediate(() => this.dispatch());
    }
    for (const r of requests) {
      const from = batch.from.get(r.stream);
      if (from === undefined || r.fromRevision < from) batch.from.set(r.stream, r.fromRevision);
    }
    return batch.result;
  }

  private dispatch(): void {
    const batch = this.waiting;
    if (!batch || this.inFlight >= this.maxInFlight) return;
    this.waiting = undefined;
    this.inFlight++;
    const requests = [...batch.from].map(([stream, fromRevision]) => ({ stream, fromRevision }));
    const read = this.store.readStreams
      ? this.store.readStreams(requests)
      : Promise.all(requests.map(async (r) => [r.stream, await this.store.readStream(r.stream, { fromRevision: r.fromRevision })] as const)).then(
          (pairs) => new Map(pairs),
        );
    read.then(batch.resolve, batch.reject).finally(() => {
      this.inFlight--;
      this.dispatch();
    });
  }

  /**
   * The streams as held, without asking the store; undefined unless every one of them is held
   * (an empty stream included). Possibly behind the store: only for decisions whose append names
   * the revisions they were made on, so that a stale picture ends in a conflict, never a write.
   */
  peek(streams: string[]): Map<string, CachedEvent[]> | undefined {
    const out = new Map<string, CachedEvent[]>();
    for (const stream of streams) {
      const held = this.entries.get(stream);
      if (!held) return undefined;
      out.set(stream, held);
    }
    return out;
  }

  /** Events this process just appended, ending at `lastRevision`: held if they follow what is. */
  appended(stream: string, events: DomainEvent[], lastRevision: number): void {
    const held = this.entries.get(stream);
    if (!held || events.length === 0) return;
    const first = lastRevision - events.length + 1;
    if ((held.length ? held[held.length - 1]!.revision : -1) !== first - 1) return;
    // A new array: readers may still hold the old one.
    this.remember(stream, [...held, ...events.map((event, i) => ({ event, revision: first + i }))]);
  }

  private remember(stream: string, events: CachedEvent[]): void {
    // Most recently used last, so the oldest entries go first when the cache is full. Empty
    // streams are held too: knowing a worker has no events yet is worth as much.
    this.entries.delete(stream);
    this.entries.set(stream, events);
    if (this.entries.size > this.maxStreams) {
      const oldest = this.entries.keys().next().value;
      if (oldest !== undefined) this.entries.delete(oldest);
    }
  }
}

class Batch {
  readonly from = new Map<string, number>();
  resolve!: (m: Map<string, StoredEvent[]>) => void;
  reject!: (err: unknown) => void;
  readonly result = new Promise<Map<string, StoredEvent[]>>((resolve, reject) => {
    this.resolve = resolve;
    this.reject = reject;
  });
}
