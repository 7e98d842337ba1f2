import type { Queryable } from '../db/types.ts';
import { sha256 } from './accounts.ts';

/** A session ends after this long without a request. */
export const SESSION_IDLE_MS = 8 * 3600_000;
/** A session ends this long after sign-in, however busy: a stolen cookie is not good for ever. */
export const SESSION_MAX_MS = 12 * 3600_000;
/** A session read again within this long is not written back only to move its expiry. */
const TOUCH_EVERY_MS = 60_000;
const REMEMBERED = 10_000;

type Callback<T = void> = (err?: Error | null, value?: T) => void;
type SessionLike = Record<string, unknown> & { cookie?: unknown; email?: unknown; signedInAt?: unknown };

/**
 * @fastify/session's store on the panel_sessions table. Sessions are found by the SHA-256 of
 * their id, and expire SESSION_IDLE_MS after their last write. The plugin saves the session on
 * every response (rolling cookies); a write that would change nothing but the expiry is skipped
 * for a minute, so a busy page does not write its session row on every request.
 */
export class PgSessionStore {
  /** Session id hash → what was last written and when (bounded: oldest forgotten first). */
  private readonly written = new Map<string, { data: string; at: number }>();

  constructor(private readonly db: Queryable) {}

  get(sessionId: string, callback: (err: Error | null, value?: never) => void): void {
    // The plugin restores its session object from the stored fields.
    this.db.query<{ data: never }>('SELECT data FROM panel_sessions WHERE id_hash = $1 AND expires_at > now()', [sha256(sessionId)]).then(
      (r) => callback(null, r.rows[0]?.data),
      (err: Error) => callback(err),
    );
  }

  set(sessionId: string, whole: object, callback: Callback): void {
    const session = whole as SessionLike;
    const key = sha256(sessionId);
    const { cookie: _cookie, ...rest } = session;
    const data = JSON.stringify(rest);
    const last = this.written.get(key);
    const now = Date.now();
    if (last && last.data === data && now - last.at < TOUCH_EVERY_MS) return callback(null);
    const email = typeof session.email === 'string' ? session.email : null;
    // The row goes when the session would end anyway, so the sweep takes it.
    const signedInAt = typeof session.signedInAt === 'number' ? session.signedInAt : null;
    this.db
      .query(
        `INSERT INTO panel_sessions (id_hash, email, data, expires_at)
         VALUES ($1, $2, $3::jsonb, least(now() + make_interval(secs => $4), to_timestamp($5::double precision / 1000)))
         ON CONFLICT (id_hash) DO UPDATE SET email = EXCLUDED.email, data = EXCLUDED.data, expires_at = EXCLUDED.expires_at`,
        [key, email, JSON.stringify(session), SESSION_IDLE_MS / 1000, signedInAt === null ? null : signedInAt + SESSION_MAX_MS],
      )
      .then(
        () => {
          this.remember(key, data, now);
          callback(null);
        },
        (err: Error) => callback(err),
      );
  }

  destroy(sessionId: string, callback: Callback): void {
    const key = sha256(sessionId);
    this.written.delete(key);
    this.db.query('DELETE FROM panel_sessions WHERE id_hash = $1', [key]).then(
      () => callback(null),
      (err: Error) => callback(err),
    );
  }

  /** Drops sessions past their expiry (also those never signed in, made to carry a message to the sign-in page). */
  async sweep(): Promise<number> {
    return (await this.db.query('DELETE FROM panel_sessions WHERE expires_at <= now()')).rowCount;
  }

  private remember(key: string, data: string, at: number) {
    this.written.delete(key);
    this.written.set(key, { data, at });
    if (this.written.size > REMEMBERED) this.written.delete(this.written.keys().next().value!);
  }
}
