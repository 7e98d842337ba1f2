import { comparePositions, type EventStore, type Position, type ReadAllOptions, type StoredEvent } from '../store/types.ts';

/**
 * The runners of one service read the same log at nearly the same place. This keeps the most
 * recent stretch of `readAll` results, contiguous as the store delivered them, and serves any
 * runner whose position falls inside it, so that one read of the store feeds every projector.
 * A read past the end of the window goes to the store and extends the window: nothing is ever
 * skipped, because every event in the window was delivered right after the one before it.
 */
export class SharedReader {
  private window: StoredEvent[] = [];
  /** Position the window starts after (the event before window[0]). */
  private start: Position | undefined;
  private inflight = new Map<string, Promise<StoredEvent[]>>();

  constructor(
    private readonly store: EventStore,
    private readonly maxEvents = 2_000,
  ) {}

  async readAll({ after, limit, types }: ReadAllOptions): Promise<StoredEvent[]> {
    // A filtered read is not a stretch of the log: it neither comes from the window nor extends it.
    if (types) return this.store.readAll({ after, limit, types });
    const cached = this.fromWindow(after, limit);
    if (cached && cached.length > 0) return cached;
    // Runners that reach the end of the window together share one read of the store.
    const key = `${after.commit}/${after.prepare}/${limit}`;
    let pending = this.inflight.get(key);
    if (!pending) {
      pending = this.store.readAll({ after, limit }).finally(() => this.inflight.delete(key));
      this.inflight.set(key, pending);
      void pending.then(
        (events) => this.extend(after, events),
        () => {},
      );
    }
    return pending;
  }

  /** Events after `after` from the window; undefined when the window does not reach `after`. */
  private fromWindow(after: Position, limit: number): StoredEvent[] | undefined {
    if (!this.start || this.window.length === 0) return undefined;
    let i: number;
    if (comparePositions(after, this.start) === 0) i = 0;
    else {
      i = this.indexAfter(after);
      if (i < 0) return undefined;
    }
    return this.window.slice(i, i + limit);
  }

  /** Index of the event following the one at `after`, or -1 when `after` is not in the window. */
  private indexAfter(after: Position): number {
    let lo = 0;
    let hi = this.window.length - 1;
    while (lo <= hi) {
      const mid = (lo + hi) >> 1;
      const c = comparePositions(this.window[mid]!.position, after);
      if (c === 0) return mid + 1;
      if (c < 0) lo = mid + 1;
      else hi = mid - 1;
    }
    return -1;
  }

  private extend(after: Position, events: StoredEvent[]): void {
    if (events.length === 0) return;
    const end = this.window.length ? this.window[this.window.length - 1]!.position : this.start;
    if (end && comparePositions(after, end) === 0) {
      this.window.push(...events);
    } else {
      // Not contiguous with what is kept: start a new window from this read.
      this.window = [...events];
      this.start = after;
    }
    if (this.window.length > this.maxEvents) {
      const drop = this.window.length - this.maxEvents;
      this.start = this.window[drop - 1]!.position;
      this.window = this.window.slice(drop);
    }
  }
}
