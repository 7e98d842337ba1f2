import type { Db } from '../../db/types.ts';
import { decode, type DecodedEvent } from '../../events/codec.ts';
import { comparePositions, type EventStore, type Position, type StoredEvent } from '../../store/types.ts';
import { readCheckpoint } from './checkpoints.ts';
import { LogMismatchError } from './log-identity.ts';
import type { BatchCommitter } from './committer.ts';
import { runnerKey, type LockKey, type LockSession } from './locks.ts';
import type { ProjectionLogger, Projector } from '../types.ts';

export type RunnerState = 'stopped' | 'standby' | 'running';

export interface RunnerOptions {
  batchSize: number;
  /** Wait after an empty read, cut short by poke(). */
  idleMs: number;
  /** How often a runner without the lock tries to take it. */
  standbyRetryMs: number;
  maxBackoffMs: number;
  logger: ProjectionLogger;
  onCommit?: (name: string, position: Position) => void;
  /** After a batch commits, with the events its projector applied (before onCommit). */
  onApplied?: (name: string, events: readonly DecodedEvent[]) => void;
  /** Whenever this runner starts or stops being the one that applies. */
  onStateChange?: (name: string, state: RunnerState) => void;
  /** Before reading on from a checkpoint just loaded: throws LogMismatchError when it is of another log. */
  checkLog?: (name: string, checkpoint: Position) => Promise<void>;
}

/** How long a runner goes without asking whether a rebuild is queued for its lock. */
const YIELD_CHECK_MS = 500;
/** How far the stored checkpoint may trail one advanced in memory over batches of no interest. */
const CHECKPOINT_WRITE_MS = 1000;
/** The pause after a batch that reached the end of the log, for the next events to gather. */
const AFTER_BATCH_MS = 10;

export const decodeAll = (stored: readonly StoredEvent[]): DecodedEvent[] =>
  stored.map(decode).filter((e): e is DecodedEvent => e !== undefined);

/**
 * Applies one projector's events in batches, each batch and its checkpoint in one transaction.
 * Only the holder of the projector's advisory lock applies; it gives the lock up between batches
 * when a rebuild queues for it, and takes it back on its next standby retry.
 */
export class ProjectionRunner {
  private current: RunnerState = 'stopped';
  /** How far this runner has read; reloaded whenever in doubt. */
  private known: Position | undefined;
  /** The checkpoint as stored, as far as this runner knows: trails `known` over skipped batches. */
  private stored: Position | undefined;
  private storedAt = 0;
  private stopping = false;
  private loop: Promise<void> | undefined;
  private wake: (() => void) | undefined;
  /** Someone waits for the read models (read-your-writes): read now. */
  private poked = false;
  /** New events of this instance: read when idle, or once the pause after a batch is over. */
  private nudged = false;
  private lastYieldCheck = 0;
  /** Set after a failed batch: the retry commits alone, not with the other runners' batches. */
  private failing = false;
  private readonly key: LockKey;

  constructor(
    readonly projector: Projector,
    private readonly db: Db,
    private readonly store: Pick<EventStore, 'readAll'>,
    private readonly locks: LockSession,
    private readonly committer: BatchCommitter,
    private readonly opts: RunnerOptions,
  ) {
    this.key = runnerKey(projector.name);
  }

  get state(): RunnerState {
    return this.current;
  }

  private setState(state: RunnerState): void {
    if (state === this.current) return;
    this.current = state;
    this.opts.onStateChange?.(this.projector.name, state);
  }

  /** The checkpoint while this runner is the active one; undefined otherwise. */
  get checkpoint(): Position | undefined {
    return this.current === 'running' ? this.known : undefined;
  }

  start(): void {
    if (this.loop) return;
    this.stopping = false;
    this.setState('standby');
    this.loop = this.run();
  }

  /** Returns once the batch in flight, if any, has committed or rolled back. */
  async stop(): Promise<void> {
    this.stopping = true;
    this.wake?.();
    await this.loop;
    this.loop = undefined;
  }

  /** A read waits for the read models: the runner reads now, whatever it was pausing for. */
  poke(): void {
    this.poked = true;
    this.wake?.();
  }

  /**
   * Events were appended: an idle runner reads now; one pausing after a batch reads when the
   * pause is over, with whatever else arrived meanwhile. Under a stream of writes nobody reads
   * back, each batch then carries some milliseconds of them instead of a few each, and the read
   * models cost a fraction of the statements.
   */
  nudge(): void {
    this.nudged = true;
    this.wake?.();
  }

  private async run(): Promise<void> {
    let failures = 0;
    while (!this.stopping) {
      let wait = this.opts.standbyRetryMs;
      try {
        if (await this.locks.tryLock(this.key)) {
          try {
            this.setState('running');
            this.known = undefined;
            try {
              await this.drive();
            } finally {
              await this.storeCheckpoint().catch(() => {});
            }
          } finally {
            this.setState('standby');
            await this.locks.unlock(this.key).catch(() => {});
          }
        }
        failures = 0;
      } catch (err) {
        failures += 1;
        wait = this.backoff(failures);
        this.opts.logger.error({ err, projection: this.projector.name }, 'projection lost its lock session; retrying');
      }
      this.setState('standby');
      await this.pause(wait, 'stop');
    }
    this.setState('stopped');
  }

  /** Runs batches while holding the lock; returns on stop or to let a rebuild swap. */
  private async drive(): Promise<void> {
    let failures = 0;
    while (!this.stopping) {
      if (await this.rebuildQueued()) {
        this.opts.logger.info({ projection: this.projector.name }, 'projection yields to a rebuild');
        return;
      }
      let read: number;
      try {
        read = await this.step();
        failures = 0;
        this.failing = false;
      } catch (err) {
        if (err instanceof LogMismatchError) {
          // Reading on would skip or misapply events: the runner stops until someone decides.
          this.opts.logger.error({ err, projection: this.projector.name }, `projection stopped: ${err.message}`);
          this.stopping = true;
          this.known = undefined;
          return;
        }
        failures += 1;
        this.failing = true;
        this.known = undefined;
        this.opts.logger.error({ err, projection: this.projector.name, failures }, 'projection batch failed; rolled back, will retry');
        await this.pause(this.backoff(failures), 'stop');
        continue;
      }
      // A full page: read on. A page short of full reached the end of the log as it stood:
      // reading again at once finds nothing, or the few events appended meanwhile (a third of the
      // queries under a stream of audited consults); a short pause lets them gather into the next
      // batch, and only a read waiting for the read models cuts it short. Nothing read: idle
      // until poked or nudged.
      if (read === 0) await this.pause(this.opts.idleMs, 'nudge');
      else if (read < this.opts.batchSize) await this.pause(Math.min(this.opts.idleMs, AFTER_BATCH_MS), 'poke');
    }
  }

  /** One batch; returns how many events were read (0: caught up). */
  private async step(): Promise<number> {
    const name = this.projector.name;
    if (this.known === undefined) {
      const checkpoint = await readCheckpoint(this.db, name);
      await this.opts.checkLog?.(name, checkpoint);
      this.known = this.stored = checkpoint;
      this.storedAt = Date.now();
    }
    const after = this.known;
    const stored = await this.store.readAll({ after, limit: this.opts.batchSize });
    if (stored.length === 0) {
      if (Date.now() - this.storedAt >= CHECKPOINT_WRITE_MS) await this.storeCheckpoint();
      return 0;
    }
    const events = decodeAll(stored);
    const last = stored[stored.length - 1]!.position;
    const relevant = events.some((e) => this.projector.handles.has(e.event.type));
    if (!relevant && Date.now() - this.storedAt < CHECKPOINT_WRITE_MS) {
      this.known = last;
      this.opts.onCommit?.(name, last);
      return stored.length;
    }
    await this.commit(relevant ? events : [], last);
    return stored.length;
  }

  /**
   * Applies `events` and moves the stored checkpoint to `to`, in one transaction (shared with the
   * other runners' batches of the moment), unless the stored checkpoint is no longer the one this
   * runner last saw (a swapped-in rebuild, a runner that took over): then the batch is stale and
   * the runner starts again from the stored one.
   */
  private async commit(events: DecodedEvent[], to: Position): Promise<void> {
    const name = this.projector.name;
    const from = this.stored;
    const moved = from !== undefined && (await this.committer.commit({ projector: this.projector, from, to, events }, this.failing));
    const committed = moved ? to : await readCheckpoint(this.db, name);
    this.stored = this.known = committed;
    this.storedAt = Date.now();
    if (moved) {
      if (events.length) this.opts.onApplied?.(name, events);
      this.opts.onCommit?.(name, to);
    } else {
      this.opts.logger.warn({ projection: name }, 'projection checkpoint moved under the runner; reloaded');
      // Someone else wrote these tables meanwhile: whatever was derived from them is suspect.
      this.opts.onStateChange?.(name, this.current);
    }
  }

  /** Writes a checkpoint advanced in memory over batches of no interest. */
  private async storeCheckpoint(): Promise<void> {
    if (this.known === undefined || this.stored === undefined || comparePositions(this.known, this.stored) === 0) return;
    await this.commit([], this.known);
  }

  private async rebuildQueued(): Promise<boolean> {
    if (!this.locks.exclusive) return false;
    const now = Date.now();
    if (now - this.lastYieldCheck < YIELD_CHECK_MS) return false;
    this.lastYieldCheck = now;
    return this.locks.hasWaiters(this.key);
  }

  private backoff(failures: number): number {
    return Math.min(this.opts.maxBackoffMs, 100 * 2 ** Math.min(failures - 1, 10));
  }

  /** Sleeps; stop() always wakes it, poke() too unless `until` is 'stop', nudge() when it is 'nudge'. */
  private pause(ms: number, until: 'stop' | 'poke' | 'nudge'): Promise<void> {
    if (this.stopping) return Promise.resolve();
    const called = () => until !== 'stop' && (this.poked || (until === 'nudge' && this.nudged));
    if (called()) {
      this.poked = this.nudged = false;
      return Promise.resolve();
    }
    return new Promise((resolve) => {
      const done = () => {
        clearTimeout(timer);
        this.wake = undefined;
        // The read that follows covers whatever poked or nudged the runner so far.
        this.poked = this.nudged = false;
        resolve();
      };
      const timer = setTimeout(done, ms);
      this.wake = () => (this.stopping || called() ? done() : undefined);
    });
  }
}
