import { LRUCache } from 'lru-cache';

/** A file as the lookups give it: enough to know whose it is. */
interface FileOfWorker {
  worker: { id: number; documentNumber: string };
}

/**
 * A worker's file by document and their state beside it: where the document's worker is already
 * known, the state is asked for at once, alongside the file, so that a worker held in neither
 * cache costs one round trip to the database, not two in turn. The state asked for early is used
 * only when the file still names that worker.
 */
export class KnownWorkerReads<F extends FileOfWorker, S> {
  /** The worker each document was last found to be: a few dozen bytes a worker, so a large employer's all fit. */
  private readonly workerIds = new LRUCache<string, number>({ max: 100_000 });

  constructor(
    private readonly fileOf: (documentNumber: string) => Promise<F | null>,
    private readonly stateOf: (workerId: number) => Promise<S>,
  ) {}

  async read(documentNumber: string): Promise<{ file: F | null; state?: S }> {
    const known = this.workerIds.get(documentNumber);
    const early = known === undefined ? undefined : this.stateOf(known);
    early?.catch(() => {});
    const file = await this.fileOf(documentNumber);
    if (!file) return { file };
    // Kept under the file's own string of the number where it is the same, not a copy from the request.
    if (known !== file.worker.id)
      this.workerIds.set(file.worker.documentNumber === documentNumber ? file.worker.documentNumber : documentNumber, file.worker.id);
    return { file, state: await (early && known === file.worker.id ? early : this.stateOf(file.worker.id)) };
  }
}
