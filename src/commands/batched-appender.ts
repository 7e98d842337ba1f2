import type { EventStore, Position, StreamWrite } from '../store/types.ts';

interface Pending {
  writes: StreamWrite[];
  resolve: (p: Position) => void;
  reject: (err: unknown) => void;
}

/**
 * Appends that need no expected revision (audit records of queries) gathered for a moment and
 * written together, so that a burst of audited reads costs one append instead of one each.
 * Every caller still waits for its own record to be stored, and hears of a failure.
 */
export class BatchedAppender {
  private queue: Pending[] = [];
  private timer: NodeJS.Timeout | undefined;
  private flushing: Promise<void> = Promise.resolve();

  constructor(
    private readonly store: EventStore,
    private readonly maxDelayMs = 2,
    private readonly maxBatch = 200,
  ) {}

  append(writes: StreamWrite[]): Promise<Position> {
    for (const w of writes) {
      if (w.expectedRevision !== 'any') throw new Error('batched appends take no expected revision');
    }
    return new Promise<Position>((resolve, reject) => {
      this.queue.push({ writes, resolve, reject });
      if (this.queue.length >= this.maxBatch) this.flushSoon(0);
      else this.flushSoon(this.maxDelayMs);
    });
  }

  private flushSoon(ms: number): void {
    if (this.timer && ms > 0) return;
    clearTimeout(this.timer);
    this.timer = setTimeout(() => {
      this.timer = undefined;
      const batch = this.queue;
      this.queue = [];
      // One batch at a time keeps the order of records as the order they were asked for.
      this.flushing = this.flushing.then(() => this.write(batch));
    }, ms);
  }

  private async write(batch: Pending[]): Promise<void> {
    if (batch.length === 0) return;
    const byStream = new Map<string, StreamWrite>();
    for (const p of batch) {
      for (const w of p.writes) {
        const prev = byStream.get(w.stream);
        if (prev) prev.events.push(...w.events);
        else byStream.set(w.stream, { stream: w.stream, expectedRevision: 'any', events: [...w.events] });
      }
    }
    try {
      const r = await this.store.append([...byStream.values()]);
      for (const p of batch) p.resolve(r.position);
    } catch (err) {
      for (const p of batch) p.reject(err);
    }
  }

  /** Writes whatever is waiting; for shutdown. */
  async drain(): Promise<void> {
    if (this.timer) {
      clearTimeout(this.timer);
      this.timer = undefined;
      const batch = this.queue;
      this.queue = [];
      this.flushing = this.flushing.then(() => this.write(batch));
    }
    await this.flushing;
  }
}
