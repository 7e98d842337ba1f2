import { LRUCache } from 'lru-cache';
import type { Queryable } from '../db/types.ts';
import { heapShare } from '../memory.ts';
import { ReferenceRepository, type ReferenceLookups, type User, type Worker } from '../reference/repository.ts';
import { workerFilesByDocuments, workersChangedSince, type WorkerFileRow } from '../reference/worker-files.ts';
import { Gatherer, batchLimit } from '../store/gather.ts';
import { SHARED_PARTS, fileBytes } from './worker-file-entry.ts';

export interface CachedReferenceOptions {
  /** How often, at most, ref_version is read to notice imports made by other processes. */
  checkIntervalMs?: number;
  /** Workers held at most, least recently used dropped first. */
  maxWorkers?: number;
  /** Bytes of workers' rows held at most (fileBytes), least recently used dropped first. */
  maxBytes?: number;
  /** Users held, least recently used dropped first. */
  maxUsers?: number;
  now?: () => number;
  /** Off: every miss is read on its own (the debugging switch, VACACIONES_BATCHING=off). */
  batching?: boolean;
}

/** The share of the heap limit the workers' rows may hold by default: at the default heap, some 35,000 workers. */
const FILES_SHARE = 0.12;

/** What is cached per key: the answer, a miss included. */
type Held<T> = { value: T | null };

/**
 * Serves the hot lookups (worker file by document, user by e-mail) from memory, each bounded with
 * least-recently-used eviction; a miss costs one indexed row read. Reference data only changes
 * through imports, which bump ref_version and stamp the per-worker rows they change with it, so a
 * new version drops exactly the workers that changed since the one known (and the users, a few
 * rows that carry no version). Misses asked for while others are on their way go together in the
 * next query, so a crowd of first requests costs a few round trips instead of one each.
 */
export class CachedReferenceRepository implements ReferenceLookups {
  private readonly inner: ReferenceRepository;
  private readonly checkIntervalMs: number;
  private readonly now: () => number;
  private readonly files: LRUCache<string, Held<WorkerFileRow>>;
  private readonly users: LRUCache<string, Held<User>>;
  private readonly misses: Gatherer<string, WorkerFileRow | null>;
  /** The document each cached worker is held under, so that a worker whose number changed is found. */
  private readonly documentOf = new Map<number, string>();
  private knownVersion: number | undefined;
  private checkedAt = -Infinity;
  private pendingCheck: Promise<void> | undefined;
  /** Bumped on every drop, so a read that started before the drop does not refill stale data. */
  private generation = 0;

  constructor(db: Queryable | ReferenceRepository, opts: CachedReferenceOptions = {}) {
    this.inner = db instanceof ReferenceRepository ? db : new ReferenceRepository(db);
    this.checkIntervalMs = opts.checkIntervalMs ?? 1000;
    this.now = opts.now ?? Date.now;
    this.files = new LRUCache({
      ...(opts.maxWorkers === undefined ? {} : { max: opts.maxWorkers }),
      maxSize: opts.maxBytes ?? heapShare(FILES_SHARE),
      sizeCalculation: (held) => (held.value ? fileBytes(held.value) : 100),
      dispose: (held, document) => {
        const id = held.value?.worker.id;
        if (id !== undefined && this.documentOf.get(id) === document) this.documentOf.delete(id);
      },
    });
    this.users = new LRUCache({ max: opts.maxUsers ?? 1_000 });
    this.misses = new Gatherer(
      async (batch) => {
        const found = await workerFilesByDocuments(
          this.inner.db,
          batch.map((a) => a.item),
          SHARED_PARTS,
        );
        for (const a of batch) a.resolve(found.get(a.item) ?? null);
      },
      2,
      batchLimit(Number.POSITIVE_INFINITY, opts.batching),
    );
  }

  /**
   * An import was announced (or ran in this process): the next lookup reads the version at once
   * and drops what changed, instead of waiting for the check interval.
   */
  invalidate(): void {
    this.checkedAt = -Infinity;
  }

  /** Workers and users held now. */
  get size(): number {
    return this.files.size + this.users.size;
  }

  async workerFileByDocument(documentNumber: string): Promise<WorkerFileRow | null> {
    const doc = documentNumber.trim();
    await this.freshen();
    const hit = this.files.get(doc);
    if (hit) return hit.value;
    const generation = this.generation;
    const file = await this.misses.ask(doc);
    if (generation === this.generation) {
      // Held under the row's own string of the number, not a second copy of it from the request.
      const key = file?.worker.documentNumber === doc ? file.worker.documentNumber : doc;
      this.files.set(key, { value: file });
      if (file) this.documentOf.set(file.worker.id, key);
    }
    return file;
  }

  async workerByDocument(documentNumber: string): Promise<Worker | null> {
    return (await this.workerFileByDocument(documentNumber))?.worker ?? null;
  }

  async userByEmail(email: string): Promise<User | null> {
    const key = email.trim().toLowerCase();
    await this.freshen();
    const hit = this.users.get(key);
    if (hit) return hit.value;
    const generation = this.generation;
    const user = await this.inner.userByEmail(key);
    if (generation === this.generation) this.users.set(key, { value: user });
    return user;
  }

  async version(): Promise<number> {
    const v = await this.inner.version();
    await this.observe(v);
    return v;
  }

  private async observe(version: number): Promise<void> {
    const known = this.knownVersion;
    this.checkedAt = this.now();
    if (known === version) return;
    this.generation++;
    if (known === undefined || version < known) {
      // Nothing known to compare with (or the database went back): nothing held can be trusted.
      if (known !== undefined) this.files.clear();
    } else {
      for (const { workerId, documentNumber } of await workersChangedSince(this.inner.db, known)) {
        const before = this.documentOf.get(workerId);
        if (before !== undefined) this.files.delete(before);
        this.files.delete(documentNumber);
      }
    }
    this.users.clear();
    this.knownVersion = version;
  }

  private async freshen(): Promise<void> {
    if (this.now() - this.checkedAt < this.checkIntervalMs) return;
    // Concurrent callers share one version read instead of each issuing their own.
    this.pendingCheck ??= this.inner
      .version()
      .then((v) => this.observe(v))
      .finally(() => {
        this.pendingCheck = undefined;
      });
    await this.pendingCheck;
  }
}
