import { LRUCache } from 'lru-cache';
import { workerIdOfStream } from '../../events/streams.ts';
import { Gatherer, batchLimit } from '../../store/gather.ts';
import type { ProjectionService } from './service.ts';

/**
 * How many rows a cache holds: a number of entries, or (where rows differ in size by much, as a
 * worker's records do) an estimate of the bytes each takes in the heap and a total not to pass.
 */
export type RowBound<V> = { maxEntries: number } | { maxBytes: number; bytesOf: (view: V) => number };

/** Reads of one worker on their way to the database, and whether a batch touched the worker meanwhile. */
interface Flight {
  reads: number;
  stale: boolean;
}

/**
 * One read model's rows of each worker, kept beside the runner that writes them, the least
 * recently used dropped first. An entry is served only while this process's runner of that read
 * model is the one applying, and only if no batch touching that worker (an event of the worker's
 * stream) has been applied since it was read: each applied batch drops its workers' entries and
 * marks their reads in flight as stale, and any change of who applies makes every entry read
 * before it unusable. Reads asked for while others are on their way go together in the next
 * query: a miss costs one indexed row read, shared.
 */
export class WorkerRowCache<V> {
  private readonly entries: LRUCache<number, { view: V; epoch: number }>;
  private readonly flights = new Map<number, Flight>();
  private readonly reads: Gatherer<number, V>;
  private epoch = 0;

  constructor(
    private readonly projections: ProjectionService,
    private readonly projector: string,
    /** The rows of these workers; a worker left out gets `missing`. */
    read: (workerIds: number[]) => Promise<Map<number, V>>,
    missing: V,
    bound: RowBound<V>,
    /** Off: every miss is read on its own (VACACIONES_BATCHING=off). */
    batching = true,
  ) {
    this.entries = new LRUCache(
      'maxEntries' in bound
        ? { max: bound.maxEntries }
        : { maxSize: bound.maxBytes, sizeCalculation: (entry) => Math.max(1, Math.ceil(bound.bytesOf(entry.view))) },
    );
    this.reads = new Gatherer(
      async (batch) => {
        const views = await read([...new Set(batch.map((a) => a.item))]);
        for (const a of batch) a.resolve(views.get(a.item) ?? missing);
      },
      2,
      batchLimit(Number.POSITIVE_INFINITY, batching),
    );
    projections.watch({
      applied: (name, events) => {
        if (name !== projector) return;
        for (const e of events) {
          const workerId = workerIdOfStream(e.stored.stream);
          if (workerId === undefined) continue;
          this.entries.delete(workerId);
          const flight = this.flights.get(workerId);
          if (flight) flight.stale = true;
        }
      },
      changed: (name) => {
        if (name === projector) this.epoch += 1;
      },
    });
  }

  get size(): number {
    return this.entries.size;
  }

  async get(workerId: number): Promise<V> {
    if (!this.projections.isApplying(this.projector)) return this.reads.ask(workerId);
    const epoch = this.epoch;
    const hit = this.entries.get(workerId);
    if (hit && hit.epoch === epoch) return hit.view;
    // Reads of the same worker at once share the flag: a batch applied during any of them may
    // have been missed by all of them.
    let flight = this.flights.get(workerId);
    if (!flight) this.flights.set(workerId, (flight = { reads: 0, stale: false }));
    flight.reads++;
    let view: V;
    try {
      view = await this.reads.ask(workerId);
    } finally {
      if (--flight.reads === 0) this.flights.delete(workerId);
    }
    if (!flight.stale && this.epoch === epoch && this.projections.isApplying(this.projector)) this.entries.set(workerId, { view, epoch });
    return view;
  }
}
