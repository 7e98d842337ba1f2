import { readFileSync } from 'node:fs';
import pino from 'pino';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { loadConfig } from '../../../src/config/config.ts';
import { importReferenceData } from '../../../src/reference/import.ts';
import { createApiKey } from '../../../src/security/api-keys.ts';
import { createService, type Service } from '../../../src/service.ts';
import { freshDb, hasServer, NEEDS_SERVER, type TestDb } from '../../support/db.ts';
import { TcpProxy } from '../../support/tcp-proxy.ts';

const fixture = JSON.parse(readFileSync('test/fixtures/reference-data.json', 'utf8'));

async function waitUntil(what: string, check: () => Promise<boolean>, ms = 15_000): Promise<void> {
  const deadline = Date.now() + ms;
  while (Date.now() < deadline) {
    if (await check().catch(() => false)) return;
    await new Promise((r) => setTimeout(r, 100));
  }
  throw new Error(`timed out waiting for ${what}`);
}

describe.skipIf(!hasServer())(
  `a service whose database goes away and comes back${hasServer() ? '' : ` (skipped: ${NEEDS_SERVER})`}`,
  () => {
    let t: TestDb;
    let proxy: TcpProxy;
    let service: Service;
    let base: string;
    let key: string;
    const logLines: string[] = [];

    beforeAll(async () => {
      t = await freshDb();
      await importReferenceData(t.db, fixture);
      key = (await createApiKey(t.db, { name: 'ops' })).key;
      const u = new URL(t.url!);
      proxy = new TcpProxy(u.hostname, Number(u.port || 5432));
      await proxy.open();
      u.hostname = '127.0.0.1';
      u.port = String(proxy.port);
      const config = loadConfig({ DATABASE_URL: u.toString(), VACACIONES_TODAY: '2026-11-21', LOG_LEVEL: 'error', PORT: '0' });
      // Error lines kept in memory, to see what a failure logs.
      service = await createService(config, pino({ level: config.logLevel }, { write: (line: string) => void logLines.push(line) }));
      base = await service.app.listen({ port: 0, host: '127.0.0.1' });
    });
    afterAll(async () => {
      await service?.close().catch(() => {});
      await proxy?.cut();
      await t?.drop();
    });

    const calculate = () =>
      fetch(`${base}/api/vacaciones/calculate`, {
        method: 'POST',
        headers: { 'x-api-key': `Bearer ${key}` },
        body: new URLSearchParams({
          documentoAsociado: '1020307007',
          vacFechaInicio: '2026-01-05',
          vacDiasVacaciones: '15',
          emailUserResponsable: 'admin@empresa.co',
        }),
      });

    it('is ready, fails readiness and answers 503 in the envelope while cut off, then recovers without a restart', async () => {
      expect((await fetch(`${base}/health/ready`)).status).toBe(200);
      expect((await calculate()).status).toBe(200);

      await proxy.cut();
      const ready = await fetch(`${base}/health/ready`);
      expect(ready.status).toBe(503);
      expect(await ready.json()).toMatchObject({ status: 'unavailable' });
      // Liveness is about the process, not its dependencies.
      expect((await fetch(`${base}/health`)).status).toBe(200);
      const down = await calculate();
      expect(down.status).toBe(503);
      expect(await down.json()).toEqual({
        success: false,
        statusCode: 503,
        message: 'Servicio no disponible temporalmente. Intente de nuevo en unos segundos.',
        errors: { detalle: 'La base de datos o el almacén de eventos no responde' },
      });

      await proxy.open();
      await waitUntil('readiness', async () => (await fetch(`${base}/health/ready`)).status === 200);
      await waitUntil('a request to succeed', async () => (await calculate()).status === 200);
    });

    it('answers an internal failure of every vacation write with 500, errors.detalle naming the request, and logs it', async () => {
      const post = (op: string, form: Record<string, string>) =>
        fetch(`${base}/api/vacaciones/${op}`, {
          method: 'POST',
          headers: { 'x-api-key': `Bearer ${key}` },
          body: new URLSearchParams(form),
        });
      const vacation = {
        documentoAsociado: '1020307007',
        vacFechaInicio: '2026-01-05',
        vacDiasVacaciones: '15',
        emailUserResponsable: 'admin@empresa.co',
      };
      const byCode = { codigoPila: 'VAC_1760000000000_11223344_0badf00d', emailUserResponsable: 'admin@empresa.co' };
      // Every write reads the event log first: without its table each fails as a bug would, not as an outage.
      // calculate is a query: months it has read before may come from memory while the occupancy
      // runner vouches for them (and the worker from the read models), so it is asked about months
      // it has not read yet, which it must read from the log.
      await t.db.query('ALTER TABLE events RENAME TO events_away');
      try {
        for (const [op, form] of [
          ['calculate', { ...vacation, vacFechaInicio: '2026-02-02' }],
          ['add', vacation],
          ['edit', { ...byCode, ...vacation }],
          ['delete', byCode],
          ['approve', byCode],
        ] as const) {
          const r = await post(op, form);
          const body = (await r.json()) as { errors: { detalle: string } };
          expect({ op, status: r.status, body }).toEqual({
            op,
            status: 500,
            body: { success: false, statusCode: 500, message: expect.any(String), errors: { detalle: expect.any(String) } },
          });
          expect(JSON.stringify(body)).not.toMatch(/events_away|relation|\bat \w/);
          if (op !== 'delete') expect(body.errors.detalle).toContain(r.headers.get('x-request-id'));
          expect(
            logLines.some((l) => l.includes(r.headers.get('x-request-id')!) && l.includes('events')),
            `${op} logged`,
          ).toBe(true);
        }
      } finally {
        await t.db.query('ALTER TABLE events_away RENAME TO events');
      }
      await waitUntil('a request to succeed', async () => (await calculate()).status === 200);
    });

    it('serves Prometheus metrics with request, command, append and projection figures', async () => {
      const add = await fetch(`${base}/vacaciones/add`, {
        method: 'POST',
        headers: { 'x-api-key': `Bearer ${key}` },
        body: new URLSearchParams({
          documentoAsociado: '1020307014',
          vacFechaInicio: '2026-03-02',
          vacDiasVacaciones: '6',
          emailUserResponsable: 'admin@empresa.co',
        }),
      });
      expect(add.status).toBe(201);
      const res = await fetch(`${base}/metrics`);
      expect(res.status).toBe(200);
      expect(res.headers.get('content-type')).toMatch(/text\/plain/);
      const text = await res.text();
      expect(text).toMatch(/vacaciones_http_requests_total\{route="\/vacaciones\/add",method="POST",status="201"\} 1/);
      expect(text).toMatch(
        /vacaciones_http_request_duration_seconds_bucket\{le="0\.\d+",route="\/api\/vacaciones\/calculate",method="POST"\} \d+/,
      );
      expect(text).toMatch(/vacaciones_commands_total\{command="create",outcome="ok"\} 1/);
      expect(text).toMatch(/vacaciones_event_store_append_seconds_count\{store="postgres"\} [1-9]/);
      expect(text).toMatch(/vacaciones_projection_lag_events\{projector="vacations"\} \d+/);
      expect(text).toMatch(/vacaciones_process_resident_memory_bytes \d+/);
      // The loop has run this test's requests: some time, and never more than the process has lived.
      const loopSeconds = (t: string) => Number(/^vacaciones_nodejs_eventloop_active_seconds_total (\S+)$/m.exec(t)?.[1]);
      const first = loopSeconds(text);
      expect(first).toBeGreaterThan(0);
      expect(first).toBeLessThan(process.uptime());
      await fetch(`${base}/vacaciones/calculate`, {
        method: 'POST',
        headers: { 'x-api-key': `Bearer ${key}` },
        body: new URLSearchParams({}),
      });
      expect(loopSeconds(await (await fetch(`${base}/metrics`)).text())).toBeGreaterThan(first);
    });
  },
);
