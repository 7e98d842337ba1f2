import { createServer, type IncomingMessage, type Server } from 'node:http';
import type { AddressInfo } from 'node:net';
import { Webhook as Verifier } from 'standardwebhooks';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { loadConfig } from '../../../src/config/config.ts';
import { readFeed } from '../../../src/integration/feed.ts';
import { addWebhook } from '../../../src/integration/webhooks/repository.ts';
import { createLogger } from '../../../src/logger.ts';
import { importReferenceData } from '../../../src/reference/import.ts';
import { createApiKey } from '../../../src/security/api-keys.ts';
import { createService, type Service } from '../../../src/service.ts';
import { START } from '../../../src/store/types.ts';
import { freshDb, hasServer, NEEDS_SERVER, type TestDb } from '../../support/db.ts';
import { ADMIN, W, client, vacationForm, type Client, type Json } from '../../support/http.ts';
import { loadFixture } from '../../support/server.ts';

/** A small seeded generator, so that a failing run can be run again the same. */
function mulberry32(seed: number) {
  return () => {
    seed = (seed + 0x6d2b79f5) | 0;
    let t = Math.imul(seed ^ (seed >>> 15), 1 | seed);
    t = (t + Math.imul(t ^ (t >>> 7), 61 | t)) ^ t;
    return ((t ^ (t >>> 14)) >>> 0) / 4294967296;
  };
}

interface Received {
  headers: Record<string, string>;
  body: string;
}

/** A receiver that answers 500, hangs past the deliverer's timeout, or redirects, at random; otherwise 204. */
function flakyReceiver(random: () => number) {
  const received: Received[] = [];
  const server: Server = createServer((req: IncomingMessage, res) => {
    const chunks: Buffer[] = [];
    req.on('data', (c: Buffer) => chunks.push(c));
    req.on('end', () => {
      received.push({ headers: req.headers as Record<string, string>, body: Buffer.concat(chunks).toString('utf8') });
      const roll = random();
      if (roll < 0.2) res.writeHead(500).end('no');
      else if (roll < 0.3) setTimeout(() => res.writeHead(204).end(), 600);
      else if (roll < 0.35) res.writeHead(302, { location: '/elsewhere' }).end();
      else res.writeHead(204).end();
    });
  });
  return { server, received };
}

const SEED = 20261126;

describe.skipIf(!hasServer())(`webhooks and the feed against a flaky receiver${hasServer() ? '' : ` (skipped: ${NEEDS_SERVER})`}`, () => {
  let t: TestDb;
  let key: string;
  let feedKey: string;
  let port = 0;
  const services: Service[] = [];
  const receiver = flakyReceiver(mulberry32(SEED));

  async function startService(listenPort: number): Promise<{ service: Service; url: string }> {
    const config = loadConfig({
      DATABASE_URL: t.url!,
      VACACIONES_TODAY: '2026-11-21',
      LOG_LEVEL: 'silent',
      PORT: '0',
      WEBHOOK_TIMEOUT_MS: '300',
      WEBHOOK_RETRY_BASE_MS: '20',
      // The receiver is on this machine.
      WEBHOOK_ALLOW_PRIVATE: '1',
    });
    const service = await createService(config, createLogger(config));
    services.push(service);
    const url = await service.app.listen({ port: listenPort, host: '127.0.0.1' });
    return { service, url };
  }

  beforeAll(async () => {
    t = await freshDb();
    const data = loadFixture();
    for (const k of data.contratosEmpresa) if (k.vacaciones) k.vacaciones.numeroPersonasVacaciones = null;
    await importReferenceData(t.db, data);
    key = (await createApiKey(t.db, { name: 'nomina' })).key;
    feedKey = (await createApiKey(t.db, { name: 'nomina-eventos', scopes: ['eventos'] })).key;
    await new Promise<void>((r) => receiver.server.listen(0, '127.0.0.1', r));
  });
  afterAll(async () => {
    for (const s of services) await s.close().catch(() => {});
    await new Promise((r) => receiver.server.close(r));
    await t?.drop();
  });

  it('delivers every event exactly once after deduplication, in log order, signed, across a restart and two instances; so does the feed', async () => {
    const first = await startService(0);
    port = Number(new URL(first.url).port);
    const hook = await addWebhook(t.db, {
      name: 'nomina',
      url: `http://127.0.0.1:${(receiver.server.address() as AddressInfo).port}/hook`,
      position: START,
      allowPrivate: true,
    });

    // A client following the feed with long polls, through the restart.
    const followed: Json[] = [];
    let following = true;
    const follower = (async () => {
      let desde = '';
      while (following) {
        try {
          const r = await client(`http://127.0.0.1:${port}`, feedKey).get('/api/eventos', {
            espera: '1',
            limite: '50',
            ...(desde ? { desde } : {}),
          });
          if (r.status !== 200) throw new Error(r.text);
          followed.push(...r.body.eventos);
          desde = r.body.siguiente;
        } catch {
          await new Promise((res) => setTimeout(res, 100));
        }
      }
    })();

    let c: Client = client(first.url, key);
    const post = async (path: string, form: Record<string, string>) => {
      const r = await c.post(path, { emailUserResponsable: ADMIN, ...form });
      expect([200, 201], `${path} ${r.text}`).toContain(r.status);
      return r.body.data;
    };
    // Two approved vacations in course, interrupted: five events each with the approvals.
    for (const doc of [W.juan, W.maria]) {
      const code = (await post('/api/vacaciones/add', vacationForm(doc, '2026-11-17', 6))).codigo_pila;
      await post('/api/vacaciones/approve', { codigoPila: code });
      await post('/api/vacaciones/interrupt', { codigoPila: code, fechaInterrupcion: '2026-11-19', motivo: 'licencia' });
    }
    // Then cycles of add, edit and delete on the same weeks, spread over workers; a restart half-way,
    // after which two instances serve at once.
    const docs = [W.juan, W.maria, W.luisa, W.camilo];
    const weeks = ['2027-01-12', '2027-01-18'];
    const cycles = 64;
    let ops = 6;
    for (let i = 0; i < cycles; i++) {
      if (i === cycles / 2) {
        await first.service.close();
        const again = await startService(port);
        await startService(0);
        c = client(again.url, key);
      }
      const doc = docs[i % docs.length]!;
      const week = weeks[Math.floor(i / docs.length) % weeks.length]!;
      const code = (await post('/api/vacaciones/add', vacationForm(doc, week, 6))).codigo_pila;
      const edited = (await post('/api/vacaciones/edit', { codigoPila: code, ...vacationForm(doc, week, 7) })).codigoPilaNuevo;
      await post('/api/vacaciones/delete', { codigoPila: edited });
      ops += 3;
    }
    expect(ops).toBeGreaterThanOrEqual(198);

    const store = services.at(-1)!.store;
    const feed = await readFeed(store, START, 1000, async () => []);
    const ids = feed.events.map((e) => e.id);
    // Created, approved, interrupted twice; created, replaced, edited, deleted per cycle.
    expect(ids).toHaveLength(6 + cycles * 4);

    const firstSeen = () => [...new Set(receiver.received.map((r) => r.headers['webhook-id']))];
    const deadline = Date.now() + 90_000;
    while (Date.now() < deadline && (firstSeen().length < ids.length || followed.length < ids.length)) {
      await new Promise((r) => setTimeout(r, 200));
    }
    following = false;
    await follower;

    // Every event once after deduplication, none other, first received in log order.
    expect(firstSeen()).toEqual(ids);
    const verifier = new Verifier(hook.secret);
    for (const r of receiver.received) {
      const event = verifier.verify(r.body, r.headers) as Json;
      expect(event.id).toBe(r.headers['webhook-id']);
    }
    const byId = new Map(feed.events.map((e) => [e.id, e]));
    for (const r of receiver.received) expect(JSON.parse(r.body)).toEqual(byId.get(r.headers['webhook-id']!));
    // The receiver failed often enough that retries happened.
    expect(receiver.received.length).toBeGreaterThan(ids.length);
    // The feed's follower saw the same events, once each, in the same order.
    expect(followed.map((e) => e.id)).toEqual(ids);
  }, 180_000);
});
