import type { Db } from '../../db/types.ts';
import type { DecodedEvent } from '../../events/codec.ts';
import { comparePositions, type EventStore, type Position } from '../../store/types.ts';
import { readCheckpoints } from './checkpoints.ts';
import { lagsAfter, type ProjectorStatus } from './status.ts';

export type { ProjectorStatus } from './status.ts';
import { LockSession } from './locks.ts';
import { BULK_START, catchUpInBulk, type BulkRebuild, type BulkStartOptions } from './bulk-start.ts';
import { allProjectors } from '../registry.ts';
import { BatchCommitter } from './committer.ts';
import { ProjectionRunner } from './runner.ts';
import { SharedReader } from '../../caching/shared-reader.ts';
import { ensureProjectionTables } from './tables.ts';
import { LogIdentity, checkLog } from './log-identity.ts';
import { consoleLogger, type ProjectionHooks, type ProjectionLogger, type Projector } from '../types.ts';

export interface ProjectionServiceOptions {
  projectors?: readonly Projector[];
  logger?: ProjectionLogger;
  /** Events per batch (default 1000). */
  batchSize?: number;
  /** Wait after an empty read unless poked (default 100 ms). */
  idleMs?: number;
  /** How often a standby runner tries to take over (default 1000 ms). */
  standbyRetryMs?: number;
  /** Longest wait between retries of a failing batch (default 5000 ms). */
  maxBackoffMs?: number;
  hooks?: ProjectionHooks;
  /** Off: each runner's batch commits in a transaction of its own (VACACIONES_BATCHING=off). */
  batching?: boolean;
  /** When start rebuilds read models far behind the log instead of catching up live (false: never). */
  bulkStart?: BulkStartOptions | false;
  /** How start rebuilds them (default: in this process). */
  bulkRebuild?: BulkRebuild;
}

/** For caches of read-model rows kept beside the runners that write them. */
export interface ProjectionWatcher {
  applied(projector: string, events: readonly DecodedEvent[]): void;
  /** The runner started or stopped applying, or found its tables written by someone else. */
  changed(projector: string): void;
}

/** How often waitFor looks at the checkpoints when the active runner is in another process. */
const WAIT_POLL_MS = 50;

/** Runs every projector of the read side, one runner each, sharing one lock connection. */
export class ProjectionService {
  readonly projectors: readonly Projector[];
  private readonly locks: LockSession;
  private readonly runners: ProjectionRunner[];
  private readonly commitListeners = new Set<() => void>();
  private readonly watchers = new Set<ProjectionWatcher>();
  private started = false;
  private readonly logger: ProjectionLogger;
  private readonly bulkStart: BulkStartOptions | false;
  private readonly bulkRebuild: BulkRebuild | undefined;

  constructor(
    private readonly db: Db,
    private readonly store: EventStore,
    opts: ProjectionServiceOptions = {},
  ) {
    this.projectors = opts.projectors ?? allProjectors;
    this.locks = new LockSession(db);
    this.logger = opts.logger ?? consoleLogger;
    this.bulkStart = opts.bulkStart ?? BULK_START;
    this.bulkRebuild = opts.bulkRebuild;
    const log = new LogIdentity(store);
    const runnerOpts = {
      batchSize: opts.batchSize ?? 1000,
      idleMs: opts.idleMs ?? 100,
      standbyRetryMs: opts.standbyRetryMs ?? 1000,
      maxBackoffMs: opts.maxBackoffMs ?? 5000,
      logger: this.logger,
      onCommit: () => {
        for (const l of [...this.commitListeners]) l();
      },
      onApplied: (name: string, events: readonly DecodedEvent[]) => {
        for (const w of this.watchers) w.applied(name, events);
      },
      onStateChange: (name: string) => {
        for (const w of this.watchers) w.changed(name);
      },
      checkLog: (name: string, checkpoint: Position) => checkLog(db, log, name, checkpoint),
    };

    // One read of the log feeds every runner of this service.
    const shared = new SharedReader(store);
    // and one transaction commits the batches they apply together.
    const committer = new BatchCommitter(db, opts.hooks, opts.batching);
    this.runners = this.projectors.map((p) => new ProjectionRunner(p, db, shared, this.locks, committer, runnerOpts));
  }

  async start(): Promise<void> {
    if (this.started) return;
    await ensureProjectionTables(this.db, this.projectors);
    if (this.bulkStart) await catchUpInBulk(this.db, this.store, this.projectors, this.logger, this.bulkStart, this.bulkRebuild);
    for (const r of this.runners) r.start();
    this.started = true;
  }

  /** Stops at batch boundaries: resolves once no batch is in flight and the locks are released. */
  async stop(): Promise<void> {
    await Promise.all(this.runners.map((r) => r.stop()));
    await this.locks.close();
    this.started = false;
  }

  /** Told of every batch this service's runners apply, and of every change of who applies. */
  watch(watcher: ProjectionWatcher): void {
    this.watchers.add(watcher);
  }

  /** True while this process's runner of `name` is the one applying its events. */
  isApplying(name: string): boolean {
    return this.runners.some((r) => r.projector.name === name && r.state === 'running');
  }

  /** A read waits for the read models: every runner reads now. */
  poke(): void {
    for (const r of this.runners) r.poke();
  }

  /** New events were appended: idle runners read now, busy ones once their pause after a batch is over. */
  nudge(): void {
    for (const r of this.runners) r.nudge();
  }

  /**
   * Read-your-writes: true once every projector's checkpoint (or those named in `only`) is at or
   * past `position`, false when `timeoutMs` passes first. Never throws.
   */
  async waitFor(position: Position, timeoutMs: number, only?: readonly string[]): Promise<boolean> {
    const deadline = Date.now() + timeoutMs;
    const runners = only ? this.runners.filter((r) => only.includes(r.projector.name)) : this.runners;
    let poked = false;
    for (;;) {
      const local = runners.every((r) => r.checkpoint !== undefined);
      if (local && runners.every((r) => comparePositions(r.checkpoint!, position) >= 0)) return true;
      if (
        !local &&
        (await this.reachedInDb(
          position,
          runners.map((r) => r.projector.name),
        ))
      )
        return true;
      const left = deadline - Date.now();
      if (left <= 0) return false;
      // Idle runners read now rather than at their next poll; not needed when already there.
      if (!poked) {
        poked = true;
        this.poke();
      }
      // Re-checked now and then even when local: a runner may have handed its lock to a rebuild.
      await this.nextCommit(Math.min(left, local ? 250 : WAIT_POLL_MS));
    }
  }

  async status(): Promise<ProjectorStatus[]> {
    const checkpoints = await readCheckpoints(
      this.db,
      this.projectors.map((p) => p.name),
    );
    const positions = this.runners.map((r) => {
      // A running runner knows better than the table: it writes the checkpoint of batches it
      // had nothing to do for only now and then.
      const stored = checkpoints.get(r.projector.name)!;
      return r.checkpoint && comparePositions(r.checkpoint, stored) > 0 ? r.checkpoint : stored;
    });
    const lags = await lagsAfter(this.store, positions);
    return this.runners.map((r, i) => ({ name: r.projector.name, checkpoint: positions[i]!, lag: lags[i]!, state: r.state }));
  }

  private async reachedInDb(position: Position, names: readonly string[]): Promise<boolean> {
    try {
      const checkpoints = await readCheckpoints(this.db, names);
      return [...checkpoints.values()].every((c) => comparePositions(c, position) >= 0);
    } catch {
      // A failed look is a "not yet": the deadline decides.
      return false;
    }
  }

  /**
   * Resolves at the next batch this service's runners commit, or after `ms`: listening starts at
   * the call, so a commit between the call and the wait is not missed.
   */
  nextCommit(ms: number): Promise<void> {
    return new Promise((resolve) => {
      const done = () => {
        clearTimeout(timer);
        this.commitListeners.delete(done);
        resolve();
      };
      const timer = setTimeout(done, ms);
      this.commitListeners.add(done);
    });
  }
}
