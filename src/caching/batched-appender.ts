import { ContendedStreamError, type EventStore, type Position, type StreamWrite } from '../store/types.ts';

interface Pending {
  writes: StreamWrite[];
  resolve: (p: Position) => void;
  reject: (err: unknown) => void;
}

/**
 * Appends that need no expected revision (audit records of queries) gathered and written
 * together, so that a burst of audited reads costs one append instead of one each. One write is
 * in flight at a time, which keeps the records in the order they were asked for: whatever arrives
 * meanwhile waits and goes in the next write, so batches grow with the load instead of being cut
 * on a timer. Every caller still waits for its own record to be stored, and hears of a failure.
 */
export class BatchedAppender {
  private queue: Pending[] = [];
  private scheduled = false;
  private writing: Promise<void> | undefined;

  constructor(
    private readonly store: EventStore,
    /** The most records a write takes (batchLimit: one with batching off). */
    private readonly maxBatch = 500,
  ) {}

  append(writes: StreamWrite[]): Promise<Position> {
    for (const w of writes) {
      if (w.expectedRevision !== 'any') throw new Error('batched appends take no expected revision');
    }
    return new Promise<Position>((resolve, reject) => {
      this.queue.push({ writes, resolve, reject });
      // While a write is in flight, its end starts the next one. From idle, the next turn of the
      // event loop does, with whatever was asked meanwhile: a timer waiting for company left the
      // appends idle half the time under load and lowered consult's rate (docs/benchmarks.md).
      if (!this.writing && !this.scheduled) {
        this.scheduled = true;
        setImmediate(() => this.next());
      }
    });
  }

  private next(): void {
    this.scheduled = false;
    if (this.writing || this.queue.length === 0) return;
    const batch = this.queue.splice(0, this.maxBatch);
    this.writing = this.write(batch).finally(() => {
      this.writing = undefined;
      this.next();
    });
  }

  private async write(batch: Pending[]): Promise<void> {
    const byStream = new Map<string, StreamWrite>();
    for (const p of batch) {
      for (const w of p.writes) {
        const prev = byStream.get(w.stream);
        if (prev) prev.events.push(...w.events);
        else byStream.set(w.stream, { stream: w.stream, expectedRevision: 'any', events: [...w.events] });
      }
    }
    try {
      const writes = [...byStream.values()];
      const r = await this.store.appendAny(writes);
      for (const p of batch) p.resolve(r.position);
    } catch (err) {
      if (!(err instanceof ContendedStreamError) || batch.length === 1) {
        for (const p of batch) p.reject(err);
        return;
      }
      // One busy stream must not fail the records of every other stream of the batch: each
      // record is written alone, in the order asked for, and fails only on its own streams.
      for (const p of batch) {
        await this.store.appendAny(p.writes.map((w) => ({ ...w, events: [...w.events] }))).then((r) => p.resolve(r.position), p.reject);
      }
    }
  }

  /** Writes whatever is waiting; for shutdown. */
  async drain(): Promise<void> {
    while (this.writing || this.queue.length > 0) {
      this.next();
      await this.writing;
    }
  }
}
