import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { Db } from '../../../src/db/types.ts';
import { WebhookDeliverer } from '../../../src/integration/webhooks/deliverer.ts';
import { addWebhook } from '../../../src/integration/webhooks/repository.ts';
import { PostgresEventStore } from '../../../src/store/postgres-store.ts';
import { START } from '../../../src/store/types.ts';
import { freshDb, type TestDb } from '../../support/db.ts';

const sleep = (ms: number) => new Promise((r) => setTimeout(r, ms));

describe('the webhook deliverer while the log is busy', () => {
  let t: TestDb;
  let listings = 0;
  let db: Db;

  beforeAll(async () => {
    t = await freshDb();
    // The database as the deliverer sees it, counting its reads of the subscriptions.
    db = new Proxy(t.db, {
      get: (target, prop) =>
        prop === 'query'
          ? (sql: string, ...rest: unknown[]) => {
              if (/FROM webhooks ORDER BY name/.test(sql)) listings++;
              return (target.query as (...a: unknown[]) => unknown)(sql, ...rest);
            }
          : Reflect.get(target, prop, target),
    });
  });
  afterAll(async () => {
    await t?.drop();
  });

  it('looks for subscriptions on its tick alone while there are none, and follows every commit once there is one', async () => {
    const deliverer = new WebhookDeliverer(db, new PostgresEventStore(t.db), {
      contractsOf: async () => [],
      timeoutMs: 200,
      allowPrivate: true,
      retryBaseMs: 20,
      giveUpAfterMs: 60_000,
      tickMs: 100,
      logger: { warn: () => {}, info: () => {} },
      // A log committing without pause: every wait for the next commit ends on the next turn.
      wake: () => new Promise<void>((r) => setImmediate(r)),
    });
    deliverer.start();
    try {
      await sleep(1000);
      // Ten ticks in a second; woken by every commit it would have read the list hundreds of times.
      expect(listings).toBeGreaterThanOrEqual(5);
      expect(listings).toBeLessThanOrEqual(15);

      await addWebhook(t.db, { name: 'nomina', url: 'http://127.0.0.1:9/hook', position: START, allowPrivate: true });
      await sleep(300);
      const before = listings;
      await sleep(500);
      // With a subscription, commits wake it: far more looks than the five ticks of that half second.
      expect(listings - before).toBeGreaterThan(20);
    } finally {
      await deliverer.stop();
    }
  });
});
