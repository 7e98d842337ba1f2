import { createServer, type Server } from 'node:http';
import type { AddressInfo } from 'node:net';
import { Webhook as Verifier } from 'standardwebhooks';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { loadConfig } from '../../../src/config/config.ts';
import type { CloudEvent } from '../../../src/integration/feed.ts';
import { deliver } from '../../../src/integration/webhooks/deliverer.ts';
import { addWebhook, listWebhooks } from '../../../src/integration/webhooks/repository.ts';
import { createLogger } from '../../../src/logger.ts';
import { importReferenceData } from '../../../src/reference/import.ts';
import { createApiKey } from '../../../src/security/api-keys.ts';
import { createService, type Service } from '../../../src/service.ts';
import { START } from '../../../src/store/types.ts';
import { freshDb, hasServer, NEEDS_SERVER, type TestDb } from '../../support/db.ts';
import { W, addVacation, client, vacationForm } from '../../support/http.ts';
import { loadFixture, runCli } from '../../support/server.ts';

interface Hit {
  host: string;
  headers: Record<string, string>;
  body: string;
}

const INTERNAL = 'los webhooks no se entregan a direcciones internas salvo con WEBHOOK_ALLOW_PRIVATE=1';

describe.skipIf(!hasServer())(
  `webhook destinations: no internal address, no credentials${hasServer() ? '' : ` (skipped: ${NEEDS_SERVER})`}`,
  () => {
    let t: TestDb;
    let key: string;
    let vars: Record<string, string>;
    const hits: Hit[] = [];
    const receiver: Server = createServer((req, res) => {
      const chunks: Buffer[] = [];
      req.on('data', (c: Buffer) => chunks.push(c));
      req.on('end', () => {
        hits.push({
          host: req.headers.host!,
          headers: req.headers as Record<string, string>,
          body: Buffer.concat(chunks).toString('utf8'),
        });
        res.writeHead(204).end();
      });
    });
    const port = () => (receiver.address() as AddressInfo).port;
    const cli = (args: string[], extra: Record<string, string> = {}) => runCli({ ...process.env, ...vars, ...extra }, ['webhook', ...args]);
    const until = async (what: () => boolean | Promise<boolean>, ms = 30_000) => {
      const end = Date.now() + ms;
      while (!(await what())) {
        if (Date.now() > end) throw new Error('waited too long');
        await new Promise((r) => setTimeout(r, 100));
      }
    };
    async function startService(extra: Record<string, string>): Promise<Service> {
      const config = loadConfig({ ...vars, WEBHOOK_RETRY_BASE_MS: '20', ...extra });
      const service = await createService(config, createLogger(config));
      await service.app.listen({ port: 0, host: '127.0.0.1' });
      return service;
    }

    beforeAll(async () => {
      t = await freshDb();
      await importReferenceData(t.db, loadFixture());
      key = (await createApiKey(t.db, { name: 'nomina' })).key;
      await new Promise<void>((r) => receiver.listen(0, '127.0.0.1', r));
      vars = { DATABASE_URL: t.url!, VACACIONES_TODAY: '2026-11-21', LOG_LEVEL: 'silent', PORT: '0' };
    }, 60_000);
    afterAll(async () => {
      await new Promise((r) => receiver.close(r));
      await t?.drop();
    });

    it('webhook add refuses internal addresses in any notation and credentials, in one line, storing nothing', async () => {
      const refused: [string, string][] = [
        [`http://127.0.0.1:${port()}/hook`, `127.0.0.1 es una dirección de loopback: ${INTERNAL}`],
        ['http://2130706433/', `127.0.0.1 es una dirección de loopback: ${INTERNAL}`],
        ['http://0177.0.0.1/', `127.0.0.1 es una dirección de loopback: ${INTERNAL}`],
        ['http://169.254.169.254/latest/meta-data/', `169.254.169.254 es una dirección de enlace local: ${INTERNAL}`],
        ['http://0xa9fea9fe/', `169.254.169.254 es una dirección de enlace local: ${INTERNAL}`],
        ['http://[::ffff:169.254.169.254]/', `::ffff:a9fe:a9fe es una dirección de enlace local: ${INTERNAL}`],
        ['http://10.0.0.8/', `10.0.0.8 es una dirección privada (RFC 1918): ${INTERNAL}`],
        [`http://localhost:${port()}/hook`, `localhost resuelve a 127.0.0.1, una dirección de loopback: ${INTERNAL}`],
      ];
      for (const [url, message] of refused) {
        const r = await cli(['add', '--nombre', 'interno', '--url', url]);
        expect(r.code, url).not.toBe(0);
        expect(r.stderr.trim(), url).toBe(`vacaciones: ${message}`);
      }
      for (const extra of [{}, { WEBHOOK_ALLOW_PRIVATE: '1' }] as Record<string, string>[]) {
        const r = await cli(['add', '--nombre', 'con-clave', '--url', 'https://nomina:s3creta@8.8.8.8/hooks'], extra);
        expect(r.code).not.toBe(0);
        expect(r.stderr.trim()).toBe(
          'vacaciones: la URL lleva credenciales (usuario:contraseña@), que no se guardan: cada entrega va firmada con el secreto del webhook (https://***@8.8.8.8/hooks)',
        );
        expect(r.stdout + r.stderr).not.toContain('s3creta');
      }
      expect(await listWebhooks(t.db)).toEqual([]);

      // The operator of an internal deployment allows them.
      const ok = await cli(['add', '--nombre', 'interno', '--url', `http://localhost:${port()}/hook`], { WEBHOOK_ALLOW_PRIVATE: '1' });
      expect(ok.code, ok.stderr).toBe(0);
      expect((await listWebhooks(t.db)).map((w) => w.url)).toEqual([`http://localhost:${port()}/hook`]);
      expect((await cli(['remove', 'interno'])).code).toBe(0);
    });

    it('webhook list never prints the password of a URL stored before credentials were refused', async () => {
      const w = await addWebhook(t.db, { name: 'antiguo', url: 'https://nomina.example.co/hooks', position: START });
      const legacy = 'https://nomina:s3creta@nomina.example.co/hooks';
      await t.db.query('UPDATE webhooks SET url = $2, failures = 1, last_error = $3 WHERE id = $1', [
        w.id,
        legacy,
        `Request cannot be constructed from a URL that includes credentials: ${legacy}`,
      ]);
      const r = await cli(['list']);
      expect(r.code, r.stderr).toBe(0);
      expect(r.stdout).not.toContain('s3creta');
      expect(r.stdout).toContain('https://***@nomina.example.co/hooks');
      expect(r.stdout).toContain('Request cannot be constructed from a URL that includes credentials: https://***@nomina.example.co/hooks');
      expect((await cli(['remove', 'antiguo'])).code).toBe(0);
    });

    it('checks again at each delivery: a name resolving to loopback is refused unless WEBHOOK_ALLOW_PRIVATE=1', async () => {
      // Added where internal addresses were allowed; this service does not allow them.
      const w = await addWebhook(t.db, { name: 'local', url: `http://localhost:${port()}/hook`, position: START, allowPrivate: true });
      let service = await startService({});
      try {
        const nomina = client(`http://127.0.0.1:${(service.app.server.address() as AddressInfo).port}`, key);
        await addVacation(nomina, vacationForm(W.maria, '2026-12-01', 6));
        await until(async () => (await listWebhooks(t.db))[0]!.failures >= 2);
        const [refused] = await listWebhooks(t.db);
        expect(refused!.lastError).toBe(`localhost resuelve a 127.0.0.1, una dirección de loopback: ${INTERNAL}`);
        expect(refused!.delivered).toBe(0);
        expect(hits).toEqual([]);
      } finally {
        await service.close();
      }

      service = await startService({ WEBHOOK_ALLOW_PRIVATE: '1' });
      try {
        await until(() => hits.length > 0);
        const event = new Verifier(w.secret).verify(hits[0]!.body, hits[0]!.headers) as CloudEvent;
        expect(event.type).toBe('co.vacaciones.vacacion.creada');
        await until(async () => (await listWebhooks(t.db))[0]!.delivered >= 1);
        expect((await listWebhooks(t.db))[0]!.lastError).toBeNull();
      } finally {
        await service.close();
      }
    });

    it('connects to the address it checked, with the URL name as Host: a second lookup cannot move it', async () => {
      hits.length = 0;
      const event = { id: '00000000-0000-4000-8000-000000000001', type: 'co.vacaciones.vacacion.creada' } as CloudEvent;
      const secret = `whsec_${Buffer.alloc(32, 7).toString('base64')}`;
      const url = `http://receptor.invalid:${port()}/hook`;
      let lookups = 0;
      // `.invalid` never resolves through DNS: the delivery reaches the receiver only through the
      // address the check was given.
      const resolve = async () => {
        lookups++;
        return [{ address: '127.0.0.1', family: 4 as const }];
      };
      expect(await deliver({ url, secret }, event, { timeoutMs: 5000, allowPrivate: false, resolve })).toBe(
        `receptor.invalid resuelve a 127.0.0.1, una dirección de loopback: ${INTERNAL}`,
      );
      expect(hits).toEqual([]);
      expect(await deliver({ url, secret }, event, { timeoutMs: 5000, allowPrivate: true, resolve })).toBeUndefined();
      expect(lookups).toBe(2);
      expect(hits.map((h) => h.host)).toEqual([`receptor.invalid:${port()}`]);
      expect(await deliver({ url, secret }, event, { timeoutMs: 5000, allowPrivate: true })).toMatch(
        /^no se pudo resolver receptor\.invalid/,
      );
    });
  },
);
