import type { Queryable } from '../db/types.ts';
import {
  ReferenceRepository,
  type CompanyContract,
  type Contract,
  type PayrollSheet,
  type ReferenceReader,
  type User,
  type Worker,
  type WorkerFile,
} from './repository.ts';

export interface CachedReferenceOptions {
  /** How often, at most, ref_version is read to notice imports made by other processes. */
  checkIntervalMs?: number;
  /** Entries kept before the cache is emptied (a crude bound that needs no LRU bookkeeping). */
  maxEntries?: number;
  now?: () => number;
}

/**
 * Serves the hot lookups (worker by document, user by e-mail, worker file) from memory. Reference
 * data only changes through imports, which bump ref_version, so the version is the whole
 * invalidation story: a changed version empties the cache.
 */
export class CachedReferenceRepository implements ReferenceReader {
  private readonly inner: ReferenceRepository;
  private readonly checkIntervalMs: number;
  private readonly maxEntries: number;
  private readonly now: () => number;
  private readonly entries = new Map<string, unknown>();
  private knownVersion: number | undefined;
  private checkedAt = -Infinity;
  private pendingCheck: Promise<void> | undefined;
  /** Bumped on every drop, so a read that started before the drop does not refill stale data. */
  private generation = 0;

  constructor(db: Queryable | ReferenceRepository, opts: CachedReferenceOptions = {}) {
    this.inner = db instanceof ReferenceRepository ? db : new ReferenceRepository(db);
    this.checkIntervalMs = opts.checkIntervalMs ?? 1000;
    this.maxEntries = opts.maxEntries ?? 20_000;
    this.now = opts.now ?? Date.now;
  }

  /** Drops every entry now; the import calls this when it runs in the same process. */
  invalidate(): void {
    this.entries.clear();
    this.generation++;
    this.knownVersion = undefined;
    this.checkedAt = -Infinity;
  }

  /**
   * Fills the cache with worker files in bulk (a few queries per chunk instead of four per
   * worker), so that the first request for each worker after a start does not pay for it. Fills
   * at most half the entry bound, leaving the rest to lookups, and gives up quietly if an import
   * drops the cache meanwhile: lookups then fill it one worker at a time as before. Resolves to
   * the ids of the workers loaded.
   */
  async warm(chunk = 500): Promise<number[]> {
    await this.freshen();
    const generation = this.generation;
    let after = Number.MIN_SAFE_INTEGER;
    const loaded: number[] = [];
    for (;;) {
      const room = Math.floor((this.maxEntries / 2 - this.entries.size) / 2);
      if (room <= 0) break;
      const files = await this.inner.workerFiles(after, Math.min(chunk, room));
      if (generation !== this.generation) return loaded;
      for (const file of files) {
        this.entries.set(`doc:${file.worker.documentNumber.trim()}`, file.worker);
        this.entries.set(`file:${file.worker.id}`, file);
      }
      for (const file of files) loaded.push(file.worker.id);
      if (files.length < Math.min(chunk, room)) break;
      after = files[files.length - 1]!.worker.id;
    }
    return loaded;
  }

  get size(): number {
    return this.entries.size;
  }

  workerByDocument(documentNumber: string): Promise<Worker | null> {
    const doc = documentNumber.trim();
    return this.cached(`doc:${doc}`, () => this.inner.workerByDocument(doc));
  }

  userByEmail(email: string): Promise<User | null> {
    const key = email.trim().toLowerCase();
    return this.cached(`email:${key}`, () => this.inner.userByEmail(key));
  }

  workerFile(workerId: number): Promise<WorkerFile | null> {
    return this.cached(`file:${workerId}`, () => this.inner.workerFile(workerId));
  }

  workerById(id: number): Promise<Worker | null> {
    return this.inner.workerById(id);
  }

  contractsOf(workerId: number): Promise<Contract[]> {
    return this.inner.contractsOf(workerId);
  }

  payrollSheetsOf(workerId: number): Promise<PayrollSheet[]> {
    return this.inner.payrollSheetsOf(workerId);
  }

  companyContract(id: number): Promise<CompanyContract | null> {
    return this.inner.companyContract(id);
  }

  companyContracts(ids: number[]): Promise<Map<number, CompanyContract>> {
    return this.inner.companyContracts(ids);
  }

  async version(): Promise<number> {
    const v = await this.inner.version();
    this.observe(v);
    return v;
  }

  private observe(version: number): void {
    if (this.knownVersion !== undefined && this.knownVersion !== version) this.invalidate();
    this.knownVersion = version;
    this.checkedAt = this.now();
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

  private async cached<T>(key: string, load: () => Promise<T>): Promise<T> {
    await this.freshen();
    if (this.entries.has(key)) return this.entries.get(key) as T;
    const generation = this.generation;
    const value = await load();
    if (generation === this.generation) {
      if (this.entries.size >= this.maxEntries) this.entries.clear();
      this.entries.set(key, value);
    }
    return value;
  }
}
