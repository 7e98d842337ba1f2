import { request as httpRequest } from 'node:http';
import { request as httpsRequest } from 'node:https';
import type { LookupFunction } from 'node:net';
import { Webhook as Signer } from 'standardwebhooks';
import { WEBHOOK_DELIVERER_NAMESPACE } from '../../db/advisory-locks.ts';
import type { Db } from '../../db/types.ts';
import { LockSession, hashKey } from '../../projections/runtime/locks.ts';
import { comparePositions, type EventStore } from '../../store/types.ts';
import { readFeed, type CloudEvent } from '../feed.ts';
import type { ContractsOf } from '../../projections/vacations/shown.ts';
import { vetDestination, type Resolve } from './destination.ts';
import { giveUp, listWebhooks, markDelivered, markFailed, type Webhook } from './repository.ts';

/** What a delivery needs besides the subscription and the event. */
interface DeliveryOptions {
  /** Longest wait for a receiver's answer. */
  timeoutMs: number;
  /** WEBHOOK_ALLOW_PRIVATE: internal addresses delivered to. */
  allowPrivate: boolean;
  /** A name's addresses; the system resolver's (dns.lookup) unless given. */
  resolve?: Resolve;
}

export interface DelivererOptions extends DeliveryOptions {
  /** A worker's contracts, to show each record as the interface does (ShownVacation). */
  contractsOf: ContractsOf;
  /** The first retry's delay; each failure doubles it, up to an hour, with jitter. */
  retryBaseMs: number;
  /** How long an event is retried before it goes to the dead letters (24 h). */
  giveUpAfterMs: number;
  /** How often subscriptions are looked at when nothing wakes the deliverer. */
  tickMs?: number;
  logger: { warn(obj: object, msg?: string): void; info(obj: object, msg?: string): void };
  /** Resolves when new events may be there (the runners' commits here), or undefined. */
  wake?: (ms: number) => Promise<void> | undefined;
  random?: () => number;
}

const MAX_DELAY_MS = 3_600_000;
const EVENTS_PER_READ = 100;
/** Retries due within this are waited for by the delivery itself rather than the next look. */
const SHORT_WAIT_MS = 2000;

/** The delay before the `failures`-th retry: doubling from the base up to an hour, each between half and all of it. */
export function retryDelay(failures: number, baseMs: number, random: () => number = Math.random): number {
  const full = Math.min(MAX_DELAY_MS, baseMs * 2 ** Math.min(failures - 1, 30));
  return Math.round(full * (0.5 + random() / 2));
}

/**
 * One POST of one CloudEvent, signed per Standard Webhooks; undefined when answered 2xx, else why
 * not. The destination is checked again here (DNS may have changed since the subscription was
 * added) and the connection goes to the address checked: the request's own lookup answers with it
 * alone, while the Host header and TLS's server name and certificate stay the URL's.
 */
export async function deliver(w: Pick<Webhook, 'url' | 'secret'>, event: CloudEvent, opts: DeliveryOptions): Promise<string | undefined> {
  const signal = AbortSignal.timeout(opts.timeoutMs);
  const url = new URL(w.url);
  const vetted = await vetDestination(url, opts.allowPrivate, opts.resolve);
  if ('refused' in vetted) return vetted.refused;
  if ('unresolved' in vetted) return vetted.unresolved;
  const { address, family } = vetted.address;
  const pinned: LookupFunction = (_host, options, callback) => {
    if (options.all) callback(null, [{ address, family }]);
    else callback(null, address, family);
  };
  const body = JSON.stringify(event);
  const at = new Date();
  try {
    const status = await new Promise<number>((resolve, reject) => {
      const req = (url.protocol === 'https:' ? httpsRequest : httpRequest)(url, {
        method: 'POST',
        headers: {
          'content-type': 'application/cloudevents+json; charset=utf-8',
          'content-length': Buffer.byteLength(body),
          'webhook-id': event.id,
          'webhook-timestamp': String(Math.floor(at.getTime() / 1000)),
          'webhook-signature': new Signer(w.secret).sign(event.id, at, body),
        },
        lookup: pinned,
        // One connection per delivery: a pooled socket would outlive the check it was opened on.
        agent: false,
        signal,
      });
      // A redirect is an answer that is not 2xx: it is not followed (a request never follows one).
      req.on('response', (res) => {
        res.destroy();
        resolve(res.statusCode ?? 0);
      });
      req.on('error', reject);
      req.end(body);
    });
    return status >= 200 && status < 300 ? undefined : `HTTP ${status}`;
  } catch (err) {
    return signal.aborted ? `sin respuesta en ${opts.timeoutMs} ms` : (err as Error).message;
  }
}

/**
 * Delivers each subscription's events in log order, at least once: an event is sent until a 2xx
 * (or until given up on) before the next, and the subscription's position moves only after. One
 * deliverer per subscription across instances (an advisory lock per subscription, held while
 * delivering); subscriptions are served side by side, so a failing receiver holds back only its
 * own events.
 */
export class WebhookDeliverer {
  private readonly locks: LockSession;
  private readonly busy = new Set<string>();
  private readonly held = new Set<string>();
  private stopped = true;
  private loop: Promise<void> | undefined;

  constructor(
    private readonly db: Db,
    private readonly store: EventStore,
    private readonly opts: DelivererOptions,
  ) {
    this.locks = new LockSession(db);
  }

  start(): void {
    if (!this.stopped) return;
    this.stopped = false;
    this.loop = this.run();
  }

  async stop(): Promise<void> {
    this.stopped = true;
    await this.loop;
    while (this.busy.size > 0) await new Promise((r) => setTimeout(r, 20));
    await this.locks.close();
    this.held.clear();
  }

  private async run(): Promise<void> {
    const tick = this.opts.tickMs ?? 500;
    let subscribed = true;
    while (!this.stopped) {
      // With no subscription, a commit has nobody to be delivered to: the list is looked at on
      // the tick alone. Woken by every commit it was read some 130 times a second under load.
      const woken = (subscribed ? this.opts.wake?.(tick) : undefined) ?? new Promise<void>((r) => setTimeout(r, tick));
      try {
        const subscriptions = await listWebhooks(this.db);
        subscribed = subscriptions.length > 0;
        const ids = new Set(subscriptions.map((w) => w.id));
        for (const id of [...this.held]) {
          if (ids.has(id) || this.busy.has(id)) continue;
          this.held.delete(id);
          await this.locks.unlock(hashKey(WEBHOOK_DELIVERER_NAMESPACE, id));
        }
        for (const w of subscriptions) {
          if (this.busy.has(w.id)) continue;
          this.busy.add(w.id);
          void this.serve(w)
            .catch((err) =>
              this.opts.logger.warn({ err: (err as Error).message, webhook: w.name }, 'webhook delivery stopped; tried again soon'),
            )
            .finally(() => this.busy.delete(w.id));
        }
      } catch (err) {
        this.opts.logger.warn({ err: (err as Error).message }, 'webhook subscriptions could not be read');
      }
      await woken;
    }
  }

  /** Sends what the subscription has not had yet, until it is caught up, a delivery fails, or the deliverer stops. */
  private async serve(w: Webhook): Promise<void> {
    if (!this.held.has(w.id)) {
      if (!(await this.locks.tryLock(hashKey(WEBHOOK_DELIVERER_NAMESPACE, w.id)))) return;
      this.held.add(w.id);
    }
    if (w.nextAttemptAt !== null && w.nextAttemptAt.getTime() > Date.now()) return;
    let from = w.position;
    let failures = w.failures;
    let since = failures > 0 && w.firstFailureAt ? w.firstFailureAt.getTime() : undefined;
    while (!this.stopped) {
      const page = await readFeed(this.store, from, EVENTS_PER_READ, this.opts.contractsOf);
      let i = 0;
      while (i < page.events.length && !this.stopped) {
        const event = page.events[i]!;
        const at = page.positions[i]!;
        if (w.types !== null && !w.types.includes(event.type)) {
          i++;
          continue;
        }
        const failed = await deliver(w, event, this.opts);
        if (failed === undefined) {
          // Moving from the position read: a replay meanwhile, or another deliverer, wins.
          if (!(await markDelivered(this.db, w.id, from, at, 1))) return;
        } else {
          failures++;
          since ??= Date.now();
          if (failures === 1 || Date.now() - since < this.opts.giveUpAfterMs) {
            const delay = retryDelay(failures, this.opts.retryBaseMs, this.opts.random);
            await markFailed(this.db, w.id, from, failures, new Date(Date.now() + delay), failed);
            // A short wait is waited here; a longer one by the next look at the subscriptions once it is due.
            if (delay > SHORT_WAIT_MS) return;
            await new Promise((r) => setTimeout(r, delay));
            continue;
          }
          this.opts.logger.warn({ webhook: w.name, eventId: event.id, attempts: failures, error: failed }, 'webhook event given up on');
          if (!(await giveUp(this.db, w.id, from, at, event, failures, failed))) return;
        }
        from = at;
        failures = 0;
        since = undefined;
        i++;
      }
      // Stopped half-way: what is left of the page is this subscription's still.
      if (i < page.events.length) return;
      // What was looked at past the last delivery holds nothing for this subscription.
      if (comparePositions(page.next, from) > 0) {
        if (!(await markDelivered(this.db, w.id, from, page.next, 0))) return;
        from = page.next;
      }
      if (page.events.length === 0) return;
    }
  }
}
