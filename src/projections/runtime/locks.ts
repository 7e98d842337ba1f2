import type { Db, Queryable } from '../../db/types.ts';
import { PROJECTION_REBUILD_NAMESPACE, PROJECTION_RUNNER_NAMESPACE } from '../../db/advisory-locks.ts';

// Advisory lock keys are (namespace, hash of the projector name); the namespaces keep them apart.

export interface LockKey {
  namespace: number;
  id: number;
}

/** FNV-1a, kept positive so the key reads the same as int4 here and as oid in pg_locks. */
function hash(s: string): number {
  let h = 0x811c9dc5;
  for (let i = 0; i < s.length; i++) {
    h ^= s.charCodeAt(i);
    h = Math.imul(h, 0x01000193);
  }
  return (h >>> 0) & 0x7fffffff;
}

/** A key of `namespace` for a name (another owner's, such as a webhook subscription's id). */
export const hashKey = (namespace: number, name: string): LockKey => ({ namespace, id: hash(name) });

/** Held by the one runner applying the projection; a rebuild takes it to swap tables. */
export const runnerKey = (name: string): LockKey => ({ namespace: PROJECTION_RUNNER_NAMESPACE, id: hash(name) });
/** Held for a whole rebuild, so two rebuilds of one projection never share the build tables. */
export const rebuildKey = (name: string): LockKey => ({ namespace: PROJECTION_REBUILD_NAMESPACE, id: hash(name) });

// pg_locks spans the whole cluster, and advisory keys are per database.
const THIS_DATABASE = `database = (SELECT oid FROM pg_database WHERE datname = current_database())`;
const IN_PG_LOCKS = `locktype = 'advisory' AND ${THIS_DATABASE} AND classid::bigint = $1 AND objid::bigint = $2 AND objsubid = 2`;

/**
 * Session-level advisory locks on one dedicated connection, shared by every lock the owner takes.
 * If the connection fails, PostgreSQL has released its locks: the session is dropped and the next
 * call opens a new one, so callers simply try again. On PGlite (one process, one connection)
 * every lock is granted: there is nobody to exclude.
 */
export class LockSession {
  private current: Promise<Session> | undefined;
  private ended: Promise<void> = Promise.resolve();
  private queue: Promise<unknown> = Promise.resolve();

  constructor(private readonly db: Db) {}

  get exclusive(): boolean {
    return this.db.kind === 'postgres';
  }

  async tryLock(key: LockKey): Promise<boolean> {
    if (!this.exclusive) return true;
    const r = await this.run((c) => c.query<{ ok: boolean }>('SELECT pg_try_advisory_lock($1, $2) AS ok', [key.namespace, key.id]));
    return r.rows[0]?.ok === true;
  }

  /** Waits until granted. */
  async lock(key: LockKey): Promise<void> {
    if (!this.exclusive) return;
    await this.run((c) => c.query('SELECT pg_advisory_lock($1, $2)', [key.namespace, key.id]));
  }

  async unlock(key: LockKey): Promise<void> {
    if (!this.exclusive || !this.current) return;
    await this.run((c) => c.query('SELECT pg_advisory_unlock($1, $2)', [key.namespace, key.id]));
  }

  /** True when another session is queued for the key (a rebuild waiting to swap). */
  async hasWaiters(key: LockKey): Promise<boolean> {
    if (!this.exclusive) return false;
    const r = await this.run((c) =>
      c.query<{ w: boolean }>(`SELECT EXISTS (SELECT 1 FROM pg_locks WHERE ${IN_PG_LOCKS} AND NOT granted) AS w`, [key.namespace, key.id]),
    );
    return r.rows[0]?.w === true;
  }

  /** Releases every lock and hands the connection back. */
  async close(): Promise<void> {
    await this.queue;
    const current = this.current;
    this.current = undefined;
    if (current) (await current.catch(() => undefined))?.release();
    await this.ended;
  }

  /** One query at a time: the runners share the session, and a pg client must not be used concurrently. */
  private run<T>(fn: (c: Queryable) => Promise<T>): Promise<T> {
    const result = this.queue.then(() => this.runNow(fn));
    this.queue = result.catch(() => {});
    return result;
  }

  private async runNow<T>(fn: (c: Queryable) => Promise<T>): Promise<T> {
    const session = await this.session();
    try {
      return await fn(session.conn);
    } catch (err) {
      // The session's state is unknown now: drop it rather than guess which locks it still has.
      if (this.current && (await this.current.catch(() => undefined)) === session) this.current = undefined;
      session.release(err as Error);
      throw err;
    }
  }

  private session(): Promise<Session> {
    if (this.current) return this.current;
    const opening = new Promise<Session>((resolve, reject) => {
      let acquired = false;
      this.ended = this.db
        .withConnection(async (conn) => {
          acquired = true;
          const failure = await new Promise<Error | undefined>((release) => resolve({ conn, release }));
          // Throwing makes the pool destroy the connection instead of reusing it.
          if (failure) throw failure;
          await conn.query('SELECT pg_advisory_unlock_all()');
        })
        .catch((err: unknown) => {
          if (!acquired) reject(err as Error);
        });
    });
    this.current = opening;
    opening.catch(() => {
      if (this.current === opening) this.current = undefined;
    });
    return opening;
  }
}

interface Session {
  conn: Queryable;
  release: (failure?: Error) => void;
}

/** Which projections some session is running or rebuilding right now, from any process. */
export async function heldLocks(q: Queryable, names: readonly string[]): Promise<Map<string, 'running' | 'rebuilding' | 'stopped'>> {
  const r = await q.query<{ classid: string; objid: string }>(
    `SELECT classid::bigint::text AS classid, objid::bigint::text AS objid FROM pg_locks
     WHERE locktype = 'advisory' AND ${THIS_DATABASE} AND objsubid = 2 AND granted
       AND classid::bigint = ANY($1::bigint[])`,
    [[PROJECTION_RUNNER_NAMESPACE, PROJECTION_REBUILD_NAMESPACE]],
  );
  const held = new Set(r.rows.map((x) => `${x.classid}:${x.objid}`));
  const out = new Map<string, 'running' | 'rebuilding' | 'stopped'>();
  for (const n of names) {
    const k = rebuildKey(n);
    const rk = runnerKey(n);
    out.set(n, held.has(`${k.namespace}:${k.id}`) ? 'rebuilding' : held.has(`${rk.namespace}:${rk.id}`) ? 'running' : 'stopped');
  }
  return out;
}
