import { decode } from '../events/codec.ts';
import type { DomainEvent } from '../events/types.ts';
import type { EventStore } from '../store/types.ts';

export interface CachedEvent {
  event: DomainEvent;
  revision: number;
}

/**
 * Streams the commands read again and again (a worker's, a subgerencia's months), kept decoded in
 * memory. Every read still asks the store, but only for what follows the revision already held,
 * so the answer is as current as a full read while usually costing an empty result. Streams are
 * append-only, which is what makes this safe.
 */
export class StreamCache {
  private readonly entries = new Map<string, CachedEvent[]>();

  constructor(
    private readonly store: EventStore,
    private readonly maxStreams = 5_000,
  ) {}

  async read(streams: string[]): Promise<Map<string, CachedEvent[]>> {
    const known = streams.map((stream) => ({ stream, held: this.entries.get(stream) ?? [] }));
    const requests = known.map(({ stream, held }) => ({ stream, fromRevision: held.length ? held[held.length - 1]!.revision + 1 : 0 }));
    const fresh = this.store.readStreams
      ? await this.store.readStreams(requests)
      : new Map(await Promise.all(requests.map(async (r) => [r.stream, await this.store.readStream(r.stream, { fromRevision: r.fromRevision })] as const)));
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

  private remember(stream: string, events: CachedEvent[]): void {
    // Most recently used last, so the oldest entries go first when the cache is full.
    this.entries.delete(stream);
    if (events.length === 0) return;
    this.entries.set(stream, events);
    if (this.entries.size > this.maxStreams) {
      const oldest = this.entries.keys().next().value;
      if (oldest !== undefined) this.entries.delete(oldest);
    }
  }
}
