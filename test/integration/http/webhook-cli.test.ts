import { createServer, type Server } from 'node:http';
import type { AddressInfo } from 'node:net';
import { Webhook as Verifier } from 'standardwebhooks';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { loadConfig } from '../../../src/config/config.ts';
import { cursorKeyOf, cursorOf } from '../../../src/integration/feed.ts';
import { deadLetterCounts, listWebhooks } from '../../../src/integration/webhooks/repository.ts';
import { createLogger } from '../../../src/logger.ts';
import { importReferenceData } from '../../../src/reference/import.ts';
import { createApiKey } from '../../../src/security/api-keys.ts';
import { createService, type Service } from '../../../src/service.ts';
import { freshDb, hasServer, NEEDS_SERVER, type TestDb } from '../../support/db.ts';
import { ADMIN, W, addVacation, client, vacationForm, type Client, type Json } from '../../support/http.ts';
import { loadFixture, runCli } from '../../support/server.ts';

interface Hit {
  path: string;
  headers: Record<string, string>;
  body: string;
}

describe.skipIf(!hasServer())(`vacaciones webhook, dead letters and filters${hasServer() ? '' : ` (skipped: ${NEEDS_SERVER})`}`, () => {
  let t: TestDb;
  let service: Service;
  let base = '';
  let env: NodeJS.ProcessEnv;
  let nomina: Client;
  const hits: Hit[] = [];
  /** /moved redirects to /ok, which would take it: a deliverer that followed redirects would deliver. */
  let movedTakes = false;
  const receiver: Server = createServer((req, res) => {
    const chunks: Buffer[] = [];
    req.on('data', (c: Buffer) => chunks.push(c));
    req.on('end', () => {
      hits.push({ path: req.url!, headers: req.headers as Record<string, string>, body: Buffer.concat(chunks).toString('utf8') });
      if (req.url === '/moved' && !movedTakes) res.writeHead(307, { location: '/ok' }).end();
      else res.writeHead(204).end();
    });
  });
  const at = (path: string) => `http://127.0.0.1:${(receiver.address() as AddressInfo).port}${path}`;
  const cli = async (args: string[]) => {
    const r = await runCli(env, ['webhook', ...args]);
    expect(r.code, r.stderr).toBe(0);
    return r.stdout.trim().split('\n');
  };
  const until = async (what: () => boolean | Promise<boolean>, ms = 20_000) => {
    const end = Date.now() + ms;
    while (!(await what())) {
      if (Date.now() > end) throw new Error('waited too long');
      await new Promise((r) => setTimeout(r, 100));
    }
  };

  beforeAll(async () => {
    t = await freshDb();
    const data = loadFixture();
    await importReferenceData(t.db, data);
    const key = (await createApiKey(t.db, { name: 'nomina' })).key;
    await new Promise<void>((r) => receiver.listen(0, '127.0.0.1', r));
    // The receiver is on this machine.
    const vars = { DATABASE_URL: t.url!, VACACIONES_TODAY: '2026-11-21', LOG_LEVEL: 'silent', PORT: '0', WEBHOOK_ALLOW_PRIVATE: '1' };
    env = { ...process.env, ...vars };
    const config = loadConfig({ ...vars, WEBHOOK_RETRY_BASE_MS: '20', WEBHOOK_GIVE_UP_AFTER_S: '1' });
    service = await createService(config, createLogger(config));
    base = await service.app.listen({ port: 0, host: '127.0.0.1' });
    nomina = client(base, key);
  }, 60_000);
  afterAll(async () => {
    await service?.close().catch(() => {});
    await new Promise((r) => receiver.close(r));
    await t?.drop();
  });

  it('adds subscriptions printing the secret once, delivers only the types asked for, and refuses bad input', async () => {
    const added = await cli(['add', '--nombre', 'aprobaciones', '--url', at('/ok'), '--tipo', 'co.vacaciones.vacacion.aprobada']);
    const secret = added.at(-1)!;
    expect(secret).toMatch(/^whsec_/);
    const moved = await cli(['add', '--nombre', 'movido', '--url', at('/moved')]);
    expect(moved.at(-1)).toMatch(/^whsec_/);
    expect((await cli(['list'])).join('\n')).not.toContain(secret);
    // A cursor of this database signed with any other key is one edited by hand.
    const forged = cursorOf({ ...(await cursorKeyOf(t.db, service.store)), secret: 'otra clave' }, { commit: 1n, prepare: 1n });
    for (const bad of [
      ['add', '--nombre', 'aprobaciones', '--url', at('/ok')],
      ['add', '--nombre', 'x', '--url', 'ftp://nomina'],
      ['replay', 'movido', '--desde', 'nada'],
      ['replay', 'movido', '--desde', forged],
    ]) {
      const r = await runCli(env, ['webhook', ...bad]);
      expect(r.code, bad.join(' ')).not.toBe(0);
      expect(r.stderr.trim().split('\n')).toHaveLength(1);
    }

    const code = (await addVacation(nomina, vacationForm(W.maria, '2026-12-01', 6))).codigo_pila;
    expect((await nomina.post('/api/vacaciones/approve', { codigoPila: code, emailUserResponsable: ADMIN })).status).toBe(200);
    await until(() => hits.some((h) => h.path === '/ok'));
    const ok = hits.filter((h) => h.path === '/ok');
    expect(ok.map((h) => JSON.parse(h.body).type)).toEqual(['co.vacaciones.vacacion.aprobada']);
    expect((new Verifier(secret).verify(ok[0]!.body, ok[0]!.headers) as Json).codigopila).toBe(code);

    // The position list prints is a cursor replay takes; the same edited is refused. Taken once the
    // delivery is recorded, replaying from it sends nothing again.
    await until(async () => (await listWebhooks(t.db)).find((w) => w.name === 'aprobaciones')?.delivered === 1);
    const row = (await cli(['list'])).find((l) => l.startsWith('aprobaciones '))!;
    const position = row.trim().split(/\s+/).at(-1)!;
    expect(await cli(['replay', 'aprobaciones', '--desde', position])).toEqual([`webhook "aprobaciones" delivers again from ${position}`]);
    expect((await runCli(env, ['webhook', 'replay', 'aprobaciones', '--desde', forged])).stderr.trim()).toBe(
      `vacaciones: --desde ${forged} is no cursor of the change feed`,
    );
  });

  it('does not follow redirects, gives up after the window into dead letters shown by list and /metrics, and replays', async () => {
    // Both events of the vacation above went to /moved and were answered 307 each time.
    await until(async () => (await deadLetterCounts(t.db)).some((w) => w.name === 'movido' && w.count === 2));
    expect(hits.filter((h) => h.path === '/moved').length).toBeGreaterThan(2);
    expect(hits.filter((h) => h.path === '/ok')).toHaveLength(1);
    const list = (await cli(['list'])).join('\n');
    expect(list).toContain('dead letters of "movido" (2)');
    expect(list).toMatch(/co\.vacaciones\.vacacion\.creada\s+\d+ attempts/);
    expect(list).toMatch(/co\.vacaciones\.vacacion\.aprobada\s+\d+ attempts/);
    const metrics = await (await fetch(`${base}/metrics`)).text();
    expect(metrics).toContain('vacaciones_webhook_dead_letters{webhook="movido"} 2');
    expect(metrics).toContain('vacaciones_webhook_dead_letters{webhook="aprobaciones"} 0');

    movedTakes = true;
    const before = hits.length;
    expect(await cli(['replay', 'movido', '--desde', 'inicio'])).toEqual(['webhook "movido" delivers again from inicio']);
    await until(() => hits.slice(before).filter((h) => h.path === '/moved').length >= 2);
    const again = hits
      .slice(before)
      .filter((h) => h.path === '/moved')
      .map((h) => JSON.parse(h.body).type);
    expect(again).toEqual(['co.vacaciones.vacacion.creada', 'co.vacaciones.vacacion.aprobada']);
    expect(await deadLetterCounts(t.db)).toContainEqual({ name: 'movido', count: 0 });

    expect(await cli(['remove', 'aprobaciones'])).toEqual(['removed webhook "aprobaciones"']);
    expect((await cli(['list'])).join('\n')).not.toContain('aprobaciones');
  });
});
