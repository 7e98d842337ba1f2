import { randomInt } from 'node:crypto';
import pg from 'pg';
import { INSTANCE_NAMESPACE } from './advisory-locks.ts';
import type { Queryable } from './types.ts';

/**
 * Whether the process that did something (claimed an idempotency key) is still running, proved
 * rather than guessed from an age: each process holds a session-level advisory lock (namespace
 * INSTANCE_NAMESPACE, its instance id) on a connection of its own for as long as it lives, and
 * PostgreSQL drops a session's locks when the session ends, a SIGKILL of the process included.
 * The id is drawn at random and the lock taken with a try, so two live processes never hold one
 * id. On the embedded database the data directory belongs to one process (src/db/dir-lock.ts):
 * any id but this process's own is a process that has ended.
 */
export interface InstanceLiveness {
  /** This process's instance id. */
  readonly id: number;
  /** False once the process holding `id` has ended; true for this process. */
  isAlive(id: number): Promise<boolean>;
  close(): Promise<void>;
}

interface LivenessLogger {
  warn(obj: object, msg?: string): void;
}

/** Ids are positive int4, as the lock's objid reads them in pg_locks. */
const drawId = () => randomInt(1, 2 ** 31 - 1);

/** The embedded database's: one process, so every other id has ended. */
export function localLiveness(): InstanceLiveness {
  const id = drawId();
  return { id, isAlive: async (other) => other === id, close: async () => {} };
}

const HELD = `SELECT EXISTS (SELECT 1 FROM pg_locks WHERE locktype = 'advisory' AND granted
  AND database = (SELECT oid FROM pg_database WHERE datname = current_database())
  AND classid::bigint = $1 AND objid::bigint = $2 AND objsubid = 2) AS held`;

/**
 * The lock held on a connection of its own (not the pool's: it is held for the process's life).
 * Should that connection be lost, the lock is taken again under the same id on a new one; until
 * then other processes take this one for ended, which is why a claim taken over is still guarded
 * by the worker's stream (an earlier run's events are looked for before deciding again).
 */
export class PostgresLiveness implements InstanceLiveness {
  private client: pg.Client | undefined;
  private closed = false;
  private retry: NodeJS.Timeout | undefined;

  private constructor(
    private readonly connectionString: string,
    private readonly db: Queryable,
    public id: number,
    private readonly logger?: LivenessLogger,
  ) {}

  static async start(connectionString: string, db: Queryable, logger?: LivenessLogger): Promise<PostgresLiveness> {
    const l = new PostgresLiveness(connectionString, db, drawId(), logger);
    await l.connect(true);
    return l;
  }

  async isAlive(id: number): Promise<boolean> {
    if (id === this.id) return true;
    const r = await this.db.query<{ held: boolean }>(HELD, [INSTANCE_NAMESPACE, id]);
    return r.rows[0]?.held === true;
  }

  private async connect(first: boolean): Promise<void> {
    if (this.closed) return;
    const client = new pg.Client({ connectionString: this.connectionString, connectionTimeoutMillis: 5000 });
    const lost = () => {
      if (this.client !== client) return;
      this.client = undefined;
      client.end().catch(() => {});
      this.schedule();
    };
    client.on('error', lost);
    client.on('end', lost);
    try {
      await client.connect();
      // A new id only at the start: afterwards claims already carry this one.
      for (let tries = 0; ; tries++) {
        const r = await client.query<{ ok: boolean }>('SELECT pg_try_advisory_lock($1, $2) AS ok', [INSTANCE_NAMESPACE, this.id]);
        if (r.rows[0]?.ok) break;
        if (!first || tries >= 8) throw new Error(`instance id ${this.id} is held by another session`);
        this.id = drawId();
      }
      this.client = client;
    } catch (err) {
      client.end().catch(() => {});
      if (first) throw err;
      this.logger?.warn({ err: (err as Error).message }, 'the instance lock could not be taken again; tried again shortly');
      this.schedule();
    }
  }

  private schedule(): void {
    if (this.closed || this.retry) return;
    this.retry = setTimeout(() => {
      this.retry = undefined;
      void this.connect(false);
    }, 1000);
    this.retry.unref();
  }

  async close(): Promise<void> {
    this.closed = true;
    clearTimeout(this.retry);
    const c = this.client;
    this.client = undefined;
    await c?.end().catch(() => {});
  }
}
