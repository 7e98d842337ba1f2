/**
 * How many items a batch may take: its bound, or one with batching off (VACACIONES_BATCHING=off,
 * the debugging switch), so that one request's statements stand alone in the database's logs and
 * in traces. Correctness never depends on batching; only throughput does. Whoever builds a
 * gatherer or a batched appender passes what the configuration says.
 */
export function batchLimit(max: number, batching = true): number {
  return batching ? max : 1;
}

/** One caller's item and how to answer it. */
export interface Asked<Item, Answer> {
  item: Item;
  resolve: (answer: Answer) => void;
  reject: (err: unknown) => void;
}

/**
 * Gathers what callers ask for while earlier batches are on their way, and hands it over as the
 * next batch: at most `maxInFlight` batches at once. From idle, a batch starts on the turn of the
 * event loop after the first ask, so that whatever is asked for in the meantime rides along; a
 * batch that waited for a slot starts as soon as one frees. Alone, an item waits one turn; under
 * load, batches grow with it. `run` answers every caller of its batch.
 */
export class Gatherer<Item, Answer> {
  private queue: Asked<Item, Answer>[] = [];
  private inFlight = 0;
  private scheduled = false;

  constructor(
    private readonly run: (batch: Asked<Item, Answer>[]) => Promise<void>,
    private readonly maxInFlight = 2,
    private readonly maxBatch = Number.POSITIVE_INFINITY,
    /**
     * Given, what waits is shared among the free slots whenever it says the shares are apart (their
     * order does not matter): two halves on two connections go through the database side by side,
     * where one whole batch would leave the other connection idle (appends, whose work is the
     * database's). Without it, batches stay whole: fewer statements (reads).
     */
    private readonly apart?: (first: readonly Item[], rest: readonly Item[]) => boolean,
  ) {}

  ask(item: Item): Promise<Answer> {
    return new Promise<Answer>((resolve, reject) => {
      this.queue.push({ item, resolve, reject });
      this.schedule();
    });
  }

  private schedule(): void {
    if (this.scheduled || this.inFlight >= this.maxInFlight || this.queue.length === 0) return;
    this.scheduled = true;
    setImmediate(() => {
      this.scheduled = false;
      this.launch();
    });
  }

  private launch(): void {
    if (this.inFlight >= this.maxInFlight) return;
    let size = Math.min(this.maxBatch, this.queue.length);
    const free = this.maxInFlight - this.inFlight;
    if (this.apart && free > 1 && size > 1) {
      const share = Math.ceil(size / free);
      const items = this.queue.slice(0, size).map((a) => a.item);
      if (this.apart(items.slice(0, share), items.slice(share))) size = share;
    }
    const batch = this.queue.splice(0, size);
    if (batch.length === 0) return;
    this.inFlight++;
    this.run(batch)
      .catch((err: unknown) => batch.forEach((a) => a.reject(err)))
      .finally(() => {
        this.inFlight--;
        // What gathered while this batch was out goes at once: it has waited long enough.
        if (!this.scheduled) this.launch();
      });
    this.schedule();
  }
}
