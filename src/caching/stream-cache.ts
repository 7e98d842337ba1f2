import { LRUCache } from 'lru-cache';
import { decode } from '../events/codec.ts';
import { isUnitStream } from '../events/streams.ts';
import type { DomainEvent } from '../events/types.ts';
import { Gatherer, batchLimit, type Asked } from '../store/gather.ts';
import type { Vouch } from './vouch.ts';
import type { EventStore, StoredEvent } from '../store/types.ts';

import type { StreamEvent as CachedEvent } from '../store/aggregate-port.ts';

export type { CachedEvent };

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
 *
 * Bounded by the events held (an empty stream counts as one), the least recently used stream
 * dropped first: a dropped stream is read again in full, which costs the same query. A
 * subgerencia's month streams are few, long and read by every request of its workers, while a
 * large company has tens of thousands of short worker streams each read now and then; the two
 * have bounds of their own, so that a walk over every worker never pushes out the month streams
 * (each dropped one would be read again in full by the next request of any of its workers).
 *
 * Given a vouch (vouch.ts), month streams read while it holds are answered by current() from
 * memory alone, as current as the log its reader has applied: for queries, not decisions.
 */
export class StreamCache {
  private readonly workers: LRUCache<string, CachedEvent[]>;
  private readonly units: LRUCache<string, CachedEvent[]>;
  private readonly reads: Gatherer<{ stream: string; fromRevision: number }[], Map<string, StoredEvent[]>>;
  private readonly vouch: Vouch | undefined;
  /** The vouch's generation each held month stream was read or extended under, by the held array itself. */
  private readonly vouched = new WeakMap<readonly CachedEvent[], number>();

  constructor(
    private readonly store: Pick<EventStore, 'readStreams'>,
    opts: {
      maxEvents?: number;
      maxInFlight?: number;
      maxUnitEvents?: number;
      /** Off: every read goes to the store on its own (VACACIONES_BATCHING=off). */
      batching?: boolean;
      vouch?: Vouch;
    } = {},
  ) {
    const { maxEvents = 30_000, maxInFlight = 2, maxUnitEvents = 100_000, batching = true } = opts;
    this.vouch = opts.vouch;
    const sizeCalculation = (events: CachedEvent[]) => events.length + 1;
    this.workers = new LRUCache({ maxSize: maxEvents, sizeCalculation });
    this.units = new LRUCache({ maxSize: maxUnitEvents, sizeCalculation });
    this.reads = new Gatherer((batch) => this.readTogether(batch), maxInFlight, batchLimit(Number.POSITIVE_INFINITY, batching));
  }

  /** Events held now, counting each stream as one more. */
  get size(): number {
    return this.workers.calculatedSize + this.units.calculatedSize;
  }

  private entries(stream: string): LRUCache<string, CachedEvent[]> {
    return isUnitStream(stream) ? this.units : this.workers;
  }

  async read(streams: readonly string[]): Promise<Map<string, CachedEvent[]>> {
    const known = streams.map((stream) => ({ stream, held: this.entries(stream).get(stream) ?? [] }));
    const requests = known.map(({ stream, held }) => ({ stream, fromRevision: held.length ? held[held.length - 1]!.revision + 1 : 0 }));
    const generation = this.vouch?.now;
    const fresh = await this.reads.ask(requests);
    // Sent after it was asked for, the read holds every change announced before; one announced
    // while it was on its way may have come after its snapshot.
    const vouchedAt = generation !== undefined && this.vouch!.now === generation ? generation : undefined;
    const out = new Map<string, CachedEvent[]>();
    for (const { stream } of known) {
      // Another request may have extended the entry meanwhile: take only what it lacks.
      const current = this.entries(stream).get(stream) ?? [];
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
      if (vouchedAt !== undefined && isUnitStream(stream)) this.vouched.set(events, vouchedAt);
      out.set(stream, events);
    }
    return out;
  }

  /** Every caller's streams in one read, each from the lowest revision any of them needs. */
  private async readTogether(batch: Asked<{ stream: string; fromRevision: number }[], Map<string, StoredEvent[]>>[]): Promise<void> {
    const from = new Map<string, number>();
    for (const r of batch.flatMap((a) => a.item)) {
      const seen = from.get(r.stream);
      if (seen === undefined || r.fromRevision < seen) from.set(r.stream, r.fromRevision);
    }
    const requests = [...from].map(([stream, fromRevision]) => ({ stream, fromRevision }));
    const read = await this.store.readStreams(requests);
    for (const a of batch) a.resolve(read);
  }

  /**
   * The streams as held, without asking the store; undefined unless every one of them is held
   * (an empty stream included). Possibly behind the store: only for decisions whose append names
   * the revisions they were made on, so that a stale picture ends in a conflict, never a write.
   */
  peek(streams: readonly string[]): Map<string, CachedEvent[]> | undefined {
    const out = new Map<string, CachedEvent[]>();
    for (const stream of streams) {
      const held = this.entries(stream).get(stream);
      if (!held) return undefined;
      out.set(stream, held);
    }
    return out;
  }

  /**
   * The month streams as held, when every one of them is held under the vouch in force: as current
   * as the log its reader has applied, and this process's acknowledged appends. Undefined
   * otherwise (then read()). For queries; a decision reads fresh or names the revisions it read.
   */
  current(streams: readonly string[]): Map<string, CachedEvent[]> | undefined {
    const now = this.vouch?.now;
    if (now === undefined) return undefined;
    const out = new Map<string, CachedEvent[]>();
    for (const stream of streams) {
      const held = this.entries(stream).get(stream);
      if (!held || this.vouched.get(held) !== now) return undefined;
      out.set(stream, held);
    }
    return out;
  }

  /** Events this process just appended, ending at `lastRevision`: held if they follow what is. */
  appended(stream: string, events: DomainEvent[], lastRevision: number): void {
    const held = this.entries(stream).get(stream);
    if (!held || events.length === 0) return;
    const first = lastRevision - events.length + 1;
    if ((held.length ? held[held.length - 1]!.revision : -1) !== first - 1) {
      // Someone else appended in between: what is held is behind, and vouched for no longer.
      this.vouched.delete(held);
      return;
    }
    // A new array: readers may still hold the old one.
    const extended = [...held, ...events.map((event, i) => ({ event, revision: first + i }))];
    this.remember(stream, extended);
    const generation = this.vouched.get(held);
    if (generation !== undefined) this.vouched.set(extended, generation);
  }

  private remember(stream: string, events: CachedEvent[]): void {
    // Empty streams are held too: knowing a worker has no events yet is worth as much. A stream
    // longer than the whole bound is not held at all.
    this.entries(stream).set(stream, events);
  }
}
