import { mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { Readable } from 'node:stream';
import { gunzipSync } from 'node:zlib';
import pg from 'pg';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { verifyBundle } from '../../../src/integrity/bundle-verify.ts';
import * as R from '../../../src/http/response-schemas.ts';
import {
  ADMIN,
  AUDITOR,
  EMPLOYEE,
  LOOKUP_MESSAGES as M,
  W,
  addVacation,
  call,
  client,
  expectLookupError,
  vacationForm,
} from '../../support/http.ts';
import { startTestServer, type TestServer } from '../../support/server.ts';

let srv: TestServer;
let dir: string;

beforeAll(async () => {
  srv = await startTestServer({
    keys: [
      { name: 'acceptance' },
      { name: 'auditor', scopes: ['auditoria'] },
      { name: 'todo', scopes: ['vacaciones', 'contratos:verificar', 'auditoria'] },
    ],
  });
  dir = mkdtempSync(join(tmpdir(), 'vac-http-audit-'));
  const api = client(srv.url, srv.keys.acceptance!);
  const booked = await addVacation(api, vacationForm(W.maria, '2026-03-16', 6));
  const approved = await api.post('/api/vacaciones/approve', { codigoPila: booked.codigo_pila, emailUserResponsable: ADMIN });
  expect(approved.status, approved.text).toBe(200);
  await addVacation(api, vacationForm(W.juan, '2026-03-16', 6));
  expect((await api.get('/api/vacaciones/consultdatavacations', { numeroDocumento: W.maria, emailResponsable: ADMIN })).status).toBe(200);
});
afterAll(async () => {
  await srv?.stop();
  if (dir) rmSync(dir, { recursive: true, force: true });
});

const verificar = (key: string, query: Record<string, string>) => call(srv.url, '/api/auditoria/verificar', { key, query });

async function exportar(key: string, query: Record<string, string>) {
  const res = await fetch(`${srv.url}/api/auditoria/exportar?${new URLSearchParams(query)}`, { headers: { 'x-api-key': `Bearer ${key}` } });
  const bytes = Buffer.from(await res.arrayBuffer());
  return { res, bytes };
}

describe('the auditoria scope', () => {
  it('is not given to a key created without scopes: such a key is refused in the lookup envelope', async () => {
    expectLookupError(await verificar(srv.keys.acceptance!, { numeroDocumento: W.maria, emailResponsable: ADMIN }), 403, 'Acceso denegado');
    const { res, bytes } = await exportar(srv.keys.acceptance!, { numeroDocumento: W.maria, emailResponsable: ADMIN });
    expect(res.status).toBe(403);
    expect(JSON.parse(bytes.toString('utf8'))).toEqual({ success: false, statusCode: 403, message: 'Acceso denegado' });
    // And the key with only auditoria cannot book.
    const book = await call(srv.url, '/api/vacaciones/calculate', { key: srv.keys.auditor!, form: vacationForm(W.maria, '2026-05-04', 6) });
    // (AUDITOR, an administrator of the reference data without permissions, may be the responsible one.)
    expect((await verificar(srv.keys.auditor!, { numeroDocumento: W.maria, emailResponsable: AUDITOR })).status).toBe(200);
    expect(book.status).toBe(403);
    expect((await verificar(srv.keys.todo!, { numeroDocumento: W.maria, emailResponsable: ADMIN })).status).toBe(200);
  });
});

describe('GET /api/auditoria/verificar', () => {
  it("tells whether a worker's streams verify, with the streams it checked", async () => {
    const r = await verificar(srv.keys.auditor!, { numeroDocumento: W.maria, emailResponsable: ADMIN });
    expect(r.status, r.text).toBe(200);
    expect(R.auditVerifyOk.parse(r.body)).toMatchObject({
      success: true,
      statusCode: 200,
      asociadoId: 1001,
      numeroDocumento: W.maria,
      verificado: true,
      rupturas: [],
    });
    // Its vacations, its audit records, and the stream of each of its PILA codes (the fixture's historic ones too).
    expect(r.body.flujos.slice(0, 2)).toEqual(['worker-1001', 'audit-worker-1001']);
    expect(r.body.flujos.length).toBeGreaterThanOrEqual(3);
    for (const s of r.body.flujos.slice(2)) expect(s).toMatch(/^pila-VAC_/);
    expect(r.body.eventos).toBeGreaterThanOrEqual(4);
  });

  it('answers bad requests as the other reads do, in Spanish', async () => {
    const key = srv.keys.auditor!;
    expectLookupError(await verificar(key, { emailResponsable: ADMIN }), 400, M.documentRequired);
    expectLookupError(await verificar(key, { numeroDocumento: W.maria }), 400, M.emailRequired);
    expectLookupError(await verificar(key, { numeroDocumento: '9999999999', emailResponsable: ADMIN }), 404, M.workerNotFound);
    expectLookupError(await verificar(key, { numeroDocumento: W.maria, emailResponsable: EMPLOYEE }), 404, M.adminNotFound);
    expect((await call(srv.url, '/api/auditoria/verificar', { key, form: { numeroDocumento: W.maria } })).status).toBe(405);
  });
});

describe('GET /api/auditoria/exportar', () => {
  it("streams a worker's bundle, which verifies and holds the worker's streams", async () => {
    const { res, bytes } = await exportar(srv.keys.auditor!, { numeroDocumento: W.maria, emailResponsable: ADMIN });
    expect(res.status).toBe(200);
    expect(res.headers.get('content-type')).toBe('application/gzip');
    expect(res.headers.get('content-disposition')).toBe(`attachment; filename="auditoria-${W.maria}.ndjson.gz"`);
    const report = await verifyBundle(Readable.from([bytes]));
    expect(report).toMatchObject({
      workers: 1,
      breaks: [],
      problems: [],
      manifest: { selection: { kind: 'documento', documento: W.maria } },
    });
    expect(report.streams).toBeGreaterThanOrEqual(2);
    writeFileSync(join(dir, 'maria.ndjson.gz'), bytes);
  });

  it("streams a subgerencia's bundle: its workers and their streams", async () => {
    const { res, bytes } = await exportar(srv.keys.auditor!, { subgerencia: 'SG-OPS', emailResponsable: ADMIN });
    expect(res.status).toBe(200);
    const records = gunzipSync(bytes)
      .toString('utf8')
      .trim()
      .split('\n')
      .map((l) => JSON.parse(l) as { record: string; id?: number; stream?: string });
    expect(records.filter((r) => r.record === 'worker').map((r) => r.id)).toEqual(expect.arrayContaining([1001, 1002]));
    expect(records.filter((r) => r.record === 'head').map((r) => r.stream)).toEqual(expect.arrayContaining(['worker-1001', 'worker-1002']));
    expect((await verifyBundle(Readable.from([bytes]))).problems).toEqual([]);
  });

  it('answers bad requests in the lookup envelope, in Spanish', async () => {
    const key = srv.keys.auditor!;
    const err = async (q: Record<string, string>) => {
      const { res, bytes } = await exportar(key, q);
      return { status: res.status, body: JSON.parse(bytes.toString('utf8')) as unknown };
    };
    const both = { success: false, statusCode: 400, message: 'Indique numeroDocumento o subgerencia, no ambos.' };
    expect(await err({ emailResponsable: ADMIN })).toEqual({ status: 400, body: both });
    expect(await err({ numeroDocumento: W.maria, subgerencia: 'SG-OPS', emailResponsable: ADMIN })).toEqual({ status: 400, body: both });
    expect(await err({ numeroDocumento: W.maria, emailResponsable: ADMIN, fechaCorte: 'ayer' })).toEqual({
      status: 400,
      body: { success: false, statusCode: 400, message: 'fechaCorte debe ser una fecha YYYY-MM-DD o una hora ISO 8601.' },
    });
    expect(await err({ numeroDocumento: W.maria })).toEqual({
      status: 400,
      body: { success: false, statusCode: 400, message: M.emailRequired },
    });
    expect(await err({ numeroDocumento: '9999999999', emailResponsable: ADMIN })).toEqual({
      status: 404,
      body: { success: false, statusCode: 404, message: M.workerNotFound },
    });
    expect(await err({ subgerencia: 'SG-NADA', emailResponsable: ADMIN })).toEqual({
      status: 404,
      body: { success: false, statusCode: 404, message: 'Subgerencia no encontrada.' },
    });
    expect(await err({ numeroDocumento: W.maria, emailResponsable: EMPLOYEE })).toEqual({
      status: 404,
      body: { success: false, statusCode: 404, message: M.adminNotFound },
    });
  });
});

describe('after someone edits a stored event', () => {
  it('verificar names the broken link, and the bundle exported since fails verification at the same link', async (ctx) => {
    if (!srv.postgres) ctx.skip('needs a PostgreSQL server: on PGlite the server holds the one connection to the database');
    const db = new pg.Client({ connectionString: srv.env.DATABASE_URL });
    await db.connect();
    try {
      await db.query(`UPDATE events SET data = jsonb_set(data, '{businessDays}', '99') WHERE stream = 'worker-1001' AND revision = 0`);
    } finally {
      await db.end();
    }
    const r = await verificar(srv.keys.auditor!, { numeroDocumento: W.maria, emailResponsable: ADMIN });
    expect(r.status, r.text).toBe(200);
    const body = R.auditVerifyOk.parse(r.body);
    expect(body.verificado).toBe(false);
    expect(body.rupturas).toEqual([
      {
        flujo: 'worker-1001',
        revision: 0,
        tipo: 'alterado',
        esperado: expect.stringMatching(/^[0-9a-f]{64}$/),
        encontrado: expect.stringMatching(/^[0-9a-f]{64}$/),
        detalle: 'el evento de la revisión 0 no corresponde a su hash: fue modificado o no está en su lugar',
      },
    ]);
    const { bytes } = await exportar(srv.keys.auditor!, { numeroDocumento: W.maria, emailResponsable: ADMIN });
    const report = await verifyBundle(Readable.from([bytes]));
    expect(report.breaks).toEqual([
      { stream: 'worker-1001', revision: 0, kind: 'altered', expected: body.rupturas[0]!.esperado, found: body.rupturas[0]!.encontrado },
    ]);
  });
});
