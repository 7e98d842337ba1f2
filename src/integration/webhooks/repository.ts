import { randomBytes, randomUUID } from 'node:crypto';
import type { Db, Queryable } from '../../db/types.ts';
import type { Position } from '../../store/types.ts';
import { FEED_TYPES, type FeedType } from '../feed.ts';
import { shownUrl, vetDestination } from './destination.ts';

/** A request the operator can correct (bad name, URL or type, duplicate, unknown subscription). */
export class WebhookError extends Error {
  override name = 'WebhookError';
}

export interface Webhook {
  id: string;
  name: string;
  url: string;
  secret: string;
  /** The event types delivered; null for all. */
  types: FeedType[] | null;
  position: Position;
  failures: number;
  firstFailureAt: Date | null;
  nextAttemptAt: Date | null;
  lastError: string | null;
  delivered: number;
}

export interface DeadLetter {
  eventId: string;
  type: string;
  attempts: number;
  lastError: string | null;
  failedAt: string;
}

const NAME = /^[A-Za-z0-9][A-Za-z0-9._:@-]{0,63}$/;

type Row = Record<string, unknown>;

const toWebhook = (r: Row): Webhook => ({
  id: String(r.id),
  name: String(r.name),
  url: String(r.url),
  secret: String(r.secret),
  types: (r.types as FeedType[] | null) ?? null,
  position: { commit: BigInt(r.commit_pos as string), prepare: BigInt(r.prepare_pos as string) },
  failures: Number(r.failures),
  firstFailureAt: (r.first_failure_at as Date | null) ?? null,
  nextAttemptAt: (r.next_attempt_at as Date | null) ?? null,
  lastError: (r.last_error as string | null) ?? null,
  delivered: Number(r.delivered),
});

/** The URL as stored, once it names a destination deliveries may go to (destination.ts). */
async function checkedUrl(url: string, allowPrivate: boolean): Promise<string> {
  let u: URL;
  try {
    u = new URL(url);
  } catch {
    throw new WebhookError(`not a URL: ${shownUrl(url)}`);
  }
  const vetted = await vetDestination(u, allowPrivate);
  // A name that does not resolve yet may once the receiver is set up: each delivery checks again.
  if ('refused' in vetted) throw new WebhookError(vetted.refused);
  return u.toString();
}

/**
 * A new subscription, delivering from `position` on (the head of the log when added: what
 * happened before is read from the feed, or sent again with `webhook replay`). Its secret, in the
 * Standard Webhooks form, is given back here only.
 */
export async function addWebhook(
  db: Queryable,
  opts: {
    name: string;
    url: string;
    types?: readonly string[];
    position: Position;
    /** WEBHOOK_ALLOW_PRIVATE: internal addresses accepted. */
    allowPrivate?: boolean;
  },
): Promise<Webhook> {
  if (!NAME.test(opts.name)) throw new WebhookError(`invalid name ${JSON.stringify(opts.name)}: letters, digits and . _ : @ -, up to 64`);
  const url = await checkedUrl(opts.url, opts.allowPrivate ?? false);
  const unknown = (opts.types ?? []).filter((t) => !(FEED_TYPES as readonly string[]).includes(t));
  if (unknown.length > 0) throw new WebhookError(`unknown type ${unknown.join(', ')}: the types are ${FEED_TYPES.join(', ')}`);
  const types = opts.types && opts.types.length > 0 ? [...new Set(opts.types)] : null;
  const secret = `whsec_${randomBytes(32).toString('base64')}`;
  try {
    const r = await db.query<Row>(
      `INSERT INTO webhooks (id, name, url, secret, types, commit_pos, prepare_pos) VALUES ($1, $2, $3, $4, $5::text[], $6, $7) RETURNING *`,
      [randomUUID(), opts.name, url, secret, types, String(opts.position.commit), String(opts.position.prepare)],
    );
    return toWebhook(r.rows[0]!);
  } catch (err) {
    if ((err as { code?: string }).code === '23505') throw new WebhookError(`a webhook named ${opts.name} exists already`);
    throw err;
  }
}

export async function listWebhooks(db: Queryable): Promise<Webhook[]> {
  return (await db.query<Row>('SELECT * FROM webhooks ORDER BY name')).rows.map(toWebhook);
}

export async function removeWebhook(db: Queryable, name: string): Promise<void> {
  const r = await db.query('DELETE FROM webhooks WHERE name = $1', [name]);
  if (r.rowCount === 0) throw new WebhookError(`no webhook named ${name}`);
}

/** Delivers again from `position` on, with no failure pending; the dead letters after it are cleared (they are sent again). */
export async function replayWebhook(db: Db, name: string, position: Position): Promise<void> {
  await db.transaction(async (tx) => {
    const r = await tx.query<{ id: string }>(
      `UPDATE webhooks SET commit_pos = $2, prepare_pos = $3, failures = 0, first_failure_at = NULL, next_attempt_at = NULL, last_error = NULL
        WHERE name = $1 RETURNING id`,
      [name, String(position.commit), String(position.prepare)],
    );
    if (r.rows.length === 0) throw new WebhookError(`no webhook named ${name}`);
    await tx.query('DELETE FROM webhook_dead_letters WHERE webhook_id = $1 AND (commit_pos, prepare_pos) > ($2::bigint, $3::bigint)', [
      r.rows[0]!.id,
      String(position.commit),
      String(position.prepare),
    ]);
  });
}

export async function deadLettersOf(db: Queryable, webhookId: string): Promise<DeadLetter[]> {
  const r = await db.query<Row>(
    `SELECT event_id, type, attempts, last_error, failed_at FROM webhook_dead_letters WHERE webhook_id = $1 ORDER BY commit_pos, prepare_pos`,
    [webhookId],
  );
  return r.rows.map((x) => ({
    eventId: String(x.event_id),
    type: String(x.type),
    attempts: Number(x.attempts),
    lastError: (x.last_error as string | null) ?? null,
    failedAt: new Date(x.failed_at as string).toISOString(),
  }));
}

/** The number of dead letters of each subscription, by name, for /metrics. */
export async function deadLetterCounts(db: Queryable): Promise<{ name: string; count: number }[]> {
  const r = await db.query<{ name: string; n: string }>(
    'SELECT w.name, count(d.event_id) AS n FROM webhooks w LEFT JOIN webhook_dead_letters d ON d.webhook_id = w.id GROUP BY w.name ORDER BY w.name',
  );
  return r.rows.map((x) => ({ name: x.name, count: Number(x.n) }));
}

const AT = (p: Position) => [String(p.commit), String(p.prepare)];

/**
 * The subscription moved from `from` to `to` (the event delivered, or the events it does not
 * take): false when it had moved already (a replay, or another deliverer), so the caller stops.
 */
export async function markDelivered(db: Queryable, id: string, from: Position, to: Position, delivered: number): Promise<boolean> {
  const r = await db.query(
    `UPDATE webhooks SET commit_pos = $4, prepare_pos = $5, failures = 0, first_failure_at = NULL, next_attempt_at = NULL, last_error = NULL,
            delivered = delivered + $6
      WHERE id = $1 AND commit_pos = $2 AND prepare_pos = $3`,
    [id, ...AT(from), ...AT(to), delivered],
  );
  return r.rowCount === 1;
}

/** A failed attempt at the event after `from`: tried again at `nextAt`. */
export async function markFailed(db: Queryable, id: string, from: Position, failures: number, nextAt: Date, error: string): Promise<void> {
  await db.query(
    `UPDATE webhooks SET failures = $4, first_failure_at = coalesce(first_failure_at, now()), next_attempt_at = $5, last_error = $6
      WHERE id = $1 AND commit_pos = $2 AND prepare_pos = $3`,
    [id, ...AT(from), failures, nextAt, error.slice(0, 500)],
  );
}

/** Gives up on the event at `to`: its dead letter and the move past it in one transaction; false as markDelivered. */
export async function giveUp(
  db: Db,
  id: string,
  from: Position,
  to: Position,
  event: { id: string; type: string },
  attempts: number,
  error: string,
): Promise<boolean> {
  return db.transaction(async (tx) => {
    if (!(await markDelivered(tx, id, from, to, 0))) return false;
    await tx.query(
      `INSERT INTO webhook_dead_letters (webhook_id, event_id, type, commit_pos, prepare_pos, attempts, last_error)
       VALUES ($1, $2, $3, $4, $5, $6, $7) ON CONFLICT (webhook_id, event_id) DO UPDATE SET attempts = EXCLUDED.attempts,
         last_error = EXCLUDED.last_error, failed_at = now()`,
      [id, event.id, event.type, ...AT(to), attempts, error.slice(0, 500)],
    );
    return true;
  });
}
