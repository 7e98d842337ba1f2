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
