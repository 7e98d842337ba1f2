import pg from 'pg';
import { afterAll, beforeAll, describe, expect, inject, it } from 'vitest';
import { ADMIN, LOOKUP_MESSAGES as M, W, call, client, expectLookupError, vacationForm, type Client } from '../support/http.ts';
import { importedHistoric, logLines, startTestServer, type TestServer } from '../support/server.ts';

const HISTORIC_APPROVED = 'VAC_1750000000000_a1b2c3d4_deadbeef';

interface AuditEntry {
  action: string;
  details?: Record<string, unknown>;
  userEmail: string | null;
  apiKeyName: string | null;
  codigoPila?: string | null;
}

let srv: TestServer;
let c: Client;
let historicImported = false;

beforeAll(async () => {
  srv = await startTestServer();
  c = client(srv.url, srv.keys.acceptance!);
  historicImported = importedHistoric(srv);
});
afterAll(async () => {
  await srv?.stop();
});

async function list(doc: string, includeDeleted = false) {
  const q: Record<string, string> = { numeroDocumento: doc, emailResponsable: ADMIN };
  if (includeDeleted) q.incluirEliminadas = '1';
  const r = await c.get('/api/vacaciones', q);
  expect(r.status, r.text).toBe(200);
  return r.body as { success: boolean; statusCode: number; asociadoId: number; vacaciones: Record<string, unknown>[] };
}
const codes = (l: { vacaciones: Record<string, unknown>[] }) => l.vacaciones.map((v) => v.codigoPila);

async function auditOfCode(code: string): Promise<AuditEntry[]> {
  const r = await c.get('/api/vacaciones/auditoria', { codigoPila: code, emailResponsable: ADMIN });
  expect(r.status, r.text).toBe(200);
  expect(r.body).toMatchObject({ success: true, statusCode: 200, auditoria: expect.any(Array) });
  return r.body.auditoria;
}

async function auditOfWorker(doc: string): Promise<AuditEntry[]> {
  const r = await c.get('/api/vacaciones/auditoria', { numeroDocumento: doc, emailResponsable: ADMIN });
  expect(r.status, r.text).toBe(200);
  expect(r.body).toMatchObject({ success: true, statusCode: 200, auditoria: expect.any(Array) });
  return r.body.auditoria;
}

const byThisCaller = (action: string) => expect.objectContaining({ action, userEmail: ADMIN, apiKeyName: 'acceptance' });

describe('read-your-writes through every write', () => {
  it('add, edit, approve and delete are visible in the list, the record and the audit as soon as they answer', async () => {
    const added = await c.post('/api/vacaciones/add', vacationForm(W.camilo, '2026-02-02', 6));
    expect(added.status, added.text).toBe(201);
    const first = added.body.data.codigo_pila as string;

    const l1 = await list(W.camilo);
    expect(l1).toMatchObject({ success: true, statusCode: 200, asociadoId: 1010 });
    expect(codes(l1)).toContain(first);
    expect(await auditOfCode(first)).toEqual(expect.arrayContaining([byThisCaller('CREACION')]));

    const edited = await c.post('/api/vacaciones/edit', { codigoPila: first, ...vacationForm(W.camilo, '2026-02-09', 6) });
    expect(edited.status, edited.text).toBe(200);
    const second = edited.body.data.codigoPilaNuevo as string;
    const l2 = await list(W.camilo);
    expect(codes(l2)).toContain(second);
    expect(codes(l2)).not.toContain(first);
    expect(codes(await list(W.camilo, true))).toEqual(expect.arrayContaining([first, second]));
    expect(await auditOfCode(first)).toEqual(expect.arrayContaining([byThisCaller('CREACION'), byThisCaller('EDICION_BAJA')]));
    expect(await auditOfCode(second)).toEqual(expect.arrayContaining([byThisCaller('EDICION')]));

    const approved = await c.post('/api/vacaciones/approve', { codigoPila: second, emailUserResponsable: ADMIN });
    expect(approved.status, approved.text).toBe(200);
    expect(await auditOfCode(second)).toEqual(expect.arrayContaining([byThisCaller('APROBACION')]));

    const third = await c.post('/api/vacaciones/add', vacationForm(W.camilo, '2026-03-02', 6));
    expect(third.status, third.text).toBe(201);
    const code3 = third.body.data.codigo_pila as string;
    const deleted = await c.post('/api/vacaciones/delete', { codigoPila: code3, emailUserResponsable: ADMIN });
    expect(deleted.status, deleted.text).toBe(200);
    expect(codes(await list(W.camilo))).not.toContain(code3);
    expect(codes(await list(W.camilo, true))).toContain(code3);
    const trail3 = await auditOfCode(code3);
    expect(trail3).toEqual(expect.arrayContaining([byThisCaller('CREACION'), byThisCaller('DELETE')]));
    // The history copy of the deletion: action DELETE, the Spanish label beside it, who and when.
    expect(trail3.find((e) => e.action === 'DELETE')).toMatchObject({
      details: {
        etiqueta: 'ELIMINACION',
        reason: 'delete',
        deletedByUserId: 1,
        deletedAt: expect.any(String),
        recordId: third.body.data.id,
      },
    });

    const one = await c.get(`/api/vacaciones/registro/${code3}`, { emailResponsable: ADMIN });
    expect(one.status, one.text).toBe(200);
    expect(one.body).toEqual({ success: true, statusCode: 200, vacacion: expect.objectContaining({ codigoPila: code3 }) });

    const worker = await auditOfWorker(W.camilo);
    for (const action of ['CREACION', 'EDICION', 'EDICION_BAJA', 'APROBACION', 'DELETE']) {
      expect(worker, action).toEqual(expect.arrayContaining([byThisCaller(action)]));
    }
  });

  it('calculate reads what every write left: a booking refuses its dates at once, and its deletion frees them again', async () => {
    // calculate reads the worker's folded state from its read model (cached beside the runner):
    // a booking must reach it before the add answers, and a deletion must drop what was cached.
    const form = vacationForm(W.camilo, '2026-10-05', 6);
    const overlaps = async () => {
      const r = await c.post('/api/vacaciones/calculate', form);
      if (r.status === 200) return false;
      expect(r.status, r.text).toBe(422);
      return (r.body.errors as string[]).some((e) => e.includes('se cruzan'));
    };
    expect(await overlaps()).toBe(false);
    const added = await c.post('/api/vacaciones/add', form);
    expect(added.status, added.text).toBe(201);
    expect(await overlaps()).toBe(true);
    expect(await overlaps()).toBe(true);
    const code = added.body.data.codigo_pila as string;
    const deleted = await c.post('/api/vacaciones/delete', { codigoPila: code, emailUserResponsable: ADMIN });
    expect(deleted.status, deleted.text).toBe(200);
    expect(await overlaps()).toBe(false);
  });

  it('holds while another session of the PostgreSQL server keeps a transaction open', async (ctx) => {
    if (!srv.postgres) ctx.skip('needs a PostgreSQL server: PGlite has one connection');
    // Any open transaction with an id, in any database of the server (a long import, a report,
    // another service), is enough; the service's own writes must still be readable when it answers.
    const other = new pg.Client({ connectionString: inject('pgAdminUrl') });
    await other.connect();
    try {
      await other.query('BEGIN');
      await other.query('SELECT pg_current_xact_id()');
      const added = await c.post('/api/vacaciones/add', vacationForm(W.luisa, '2026-07-06', 6));
      expect(added.status, added.text).toBe(201);
      const l = await list(W.luisa);
      expect(codes(l)).toContain(added.body.data.codigo_pila);
    } finally {
      await other.query('ROLLBACK').catch(() => {});
      await other.end();
    }
  });

  it('the bare paths answer the same', async () => {
    const r = await c.get('/vacaciones', { numeroDocumento: W.camilo, emailResponsable: ADMIN });
    expect(r.status, r.text).toBe(200);
    expect(r.body).toMatchObject({ success: true, statusCode: 200, asociadoId: 1010, vacaciones: expect.any(Array) });
    const a = await c.get('/vacaciones/auditoria', { numeroDocumento: W.camilo, emailResponsable: ADMIN });
    expect(a.status, a.text).toBe(200);
    expect(a.body.auditoria.length).toBeGreaterThan(0);
  });

  it("the fixture's historic records are listed", async (ctx) => {
    if (!historicImported) ctx.skip('the import did not bring the historic vacations in');
    expect(codes(await list(W.maria))).toContain(HISTORIC_APPROVED);
    const one = await c.get(`/api/vacaciones/registro/${HISTORIC_APPROVED}`, { emailResponsable: ADMIN });
    expect(one.status, one.text).toBe(200);
    expect(one.body.vacacion).toMatchObject({ codigoPila: HISTORIC_APPROVED });
  });
});

describe('the edit trail', () => {
  interface LogLine {
    action?: string;
    codigoPilaAnterior?: string;
    idNuevo?: number | null;
    reason?: string;
    detail?: string[];
  }
  const lines = () => logLines<LogLine>(srv);

  it('records the start of an edit with the old code, the deletion and the creation', async () => {
    const added = await c.post('/api/vacaciones/add', vacationForm(W.juan, '2026-05-04', 6));
    expect(added.status, added.text).toBe(201);
    const old = added.body.data.codigo_pila as string;
    const edited = await c.post('/api/vacaciones/edit', { codigoPila: old, ...vacationForm(W.juan, '2026-05-11', 6) });
    expect(edited.status, edited.text).toBe(200);
    const { id, codigoPilaNuevo } = edited.body.data as { id: number; codigoPilaNuevo: string };

    const trail = await auditOfCode(old);
    expect(trail.map((e) => e.action)).toEqual(['CREACION', 'EDICION_INICIO', 'EDICION_BAJA']);
    expect(trail[1]).toMatchObject({
      action: 'EDICION_INICIO',
      userEmail: ADMIN,
      apiKeyName: 'acceptance',
      details: { codigoPila: old, newRecordId: id, newCodigoPila: codigoPilaNuevo },
    });
    expect(await auditOfCode(codigoPilaNuevo)).toEqual([expect.objectContaining({ action: 'EDICION', codigoPila: codigoPilaNuevo })]);
    await expect
      .poll(() => lines().filter((l) => l.action === 'EDICION_EXITOSA' && l.codigoPilaAnterior === old && l.idNuevo === id).length)
      .toBe(1);
  });

  it('records a failed edit with the old code, the id allotted to the new record and the reason, and logs it', async () => {
    const added = await c.post('/api/vacaciones/add', vacationForm(W.juan, '2026-06-01', 6));
    expect(added.status, added.text).toBe(201);
    const code = added.body.data.codigo_pila as string;

    const rules = await c.post('/api/vacaciones/edit', { codigoPila: code, ...vacationForm(W.juan, '2026-06-01', 4) });
    expect(rules.status, rules.text).toBe(422);
    const notOwner = await c.post('/api/vacaciones/edit', { codigoPila: code, ...vacationForm(W.maria, '2026-06-01', 6) });
    expect(notOwner.status, notOwner.text).toBe(400);

    // Failed edits change no vacation, but the trail's next read waits for their records.
    const failures = (await auditOfCode(code)).filter((e) => e.action === 'ERROR_EDICION');
    expect(failures).toHaveLength(2);
    expect(failures[0]).toMatchObject({
      action: 'ERROR_EDICION',
      userEmail: ADMIN,
      apiKeyName: 'acceptance',
      codigoPila: code,
      details: {
        codigoPila: code,
        newRecordId: expect.any(Number),
        reason: 'rules',
        detail: ['Los días solicitados (4) no cumplen el mínimo de 6 días disfrutados'],
        documentNumber: W.juan,
        startDate: '2026-06-01',
        days: 4,
      },
    });
    expect(failures[1]).toMatchObject({ details: { codigoPila: code, newRecordId: null, reason: 'not_owner', documentNumber: W.maria } });
    // The record itself is untouched.
    expect((await auditOfCode(code)).map((e) => e.action)).toEqual(['CREACION', 'ERROR_EDICION', 'ERROR_EDICION']);

    const newRecordId = (failures[0]!.details as { newRecordId: number }).newRecordId;
    await expect.poll(() => lines().filter((l) => l.action === 'ERROR_EDICION' && l.codigoPilaAnterior === code).length).toBe(2);
    expect(lines().filter((l) => l.action === 'ERROR_EDICION' && l.codigoPilaAnterior === code)).toEqual([
      expect.objectContaining({
        idNuevo: newRecordId,
        reason: 'rules',
        detail: ['Los días solicitados (4) no cumplen el mínimo de 6 días disfrutados'],
      }),
      expect.objectContaining({ idNuevo: null, reason: 'not_owner' }),
    ]);
  });

  it('shows the start of an edit and a failed edit in the replay of the worker', async (ctx) => {
    if (!srv.postgres) ctx.skip('needs a PostgreSQL server: on PGlite the CLI cannot open the database the server holds');
    const r = await srv.cli(['replay', '--documento', W.juan, '--json']);
    expect(r.code, r.stderr).toBe(0);
    const events = JSON.parse(r.stdout) as { type: string; stream: string; data: Record<string, unknown> }[];
    expect(events.filter((e) => e.type === 'VacationEditStarted').map((e) => e.stream)).toEqual(['worker-1002']);
    expect(events.filter((e) => e.type === 'VacationEditFailed').map((e) => [e.stream, e.data.reason])).toEqual([
      ['audit-worker-1002', 'rules'],
      ['audit-worker-1002', 'not_owner'],
    ]);
    const table = await srv.cli(['replay', '--documento', W.juan]);
    expect(table.stdout).toMatch(/edición iniciada .* -> VAC_/);
    expect(table.stdout).toMatch(/edición fallida .* rules \(record \d+\): Los días solicitados \(4\)/);
  });
});

describe('audit of the queries', () => {
  it('the data consultation and the contract check are audited with the caller', async () => {
    const consult = await c.get('/api/vacaciones/consultdatavacations', { numeroDocumento: W.juan, emailResponsable: ADMIN });
    expect(consult.status, consult.text).toBe(200);
    const check = await c.get('/api/contratos/verificarContratoActivo', { numeroDocumento: W.juan, emailResponsable: ADMIN });
    expect(check.status, check.text).toBe(200);
    // The queries answer without waiting for the projections; the trail's next read waits for their records.
    const entries = await auditOfWorker(W.juan);
    expect(entries).toEqual(expect.arrayContaining([byThisCaller('CONSULTA_DATOS'), byThisCaller('VERIFICACION_CONTRATO')]));
  });

  it("a consult's record is in the trail read right after it, each time", async () => {
    for (let i = 0; i < 5; i++) {
      const consult = await c.get('/api/vacaciones/consultdatavacations', { numeroDocumento: W.maria, emailResponsable: ADMIN });
      expect(consult.status, consult.text).toBe(200);
      const requestId = consult.headers.get('x-request-id');
      expect(requestId).toBeTruthy();
      // Newest first: the consult just answered is among the trail's latest entries.
      const trail = (await auditOfWorker(W.maria)) as (AuditEntry & { requestId: string | null })[];
      expect(
        trail.find((e) => e.requestId === requestId),
        `round ${i}`,
      ).toMatchObject({ action: 'CONSULTA_DATOS' });
    }
  });
});

describe('read endpoint errors', () => {
  it('the list needs a document and an e-mail', async () => {
    expectLookupError(await c.get('/api/vacaciones', { emailResponsable: ADMIN }), 400, M.documentRequired);
    expectLookupError(await c.get('/api/vacaciones', { numeroDocumento: W.maria }), 400, M.emailRequired);
  });

  it('an unknown worker or administrator is 404', async () => {
    expectLookupError(await c.get('/api/vacaciones', { numeroDocumento: '9999999999', emailResponsable: ADMIN }), 404, M.workerNotFound);
    expectLookupError(
      await c.get('/api/vacaciones', { numeroDocumento: W.maria, emailResponsable: 'nadie@empresa.co' }),
      404,
      M.adminNotFound,
    );
    expectLookupError(
      await c.get('/api/vacaciones/auditoria', { numeroDocumento: '9999999999', emailResponsable: ADMIN }),
      404,
      M.workerNotFound,
    );
  });

  it('an unknown code is 404 in the lookup envelope', async () => {
    const r = await c.get('/api/vacaciones/registro/VAC_1700000000000_00000000_00000000', { emailResponsable: ADMIN });
    expect(r.status).toBe(404);
    expect(r.body).toEqual({ success: false, statusCode: 404, message: expect.any(String) });
  });

  it('the audit needs a document or a code, and an e-mail', async () => {
    const none = await c.get('/api/vacaciones/auditoria', { emailResponsable: ADMIN });
    expect(none.status).toBe(400);
    expect(none.body).toEqual({ success: false, statusCode: 400, message: expect.any(String) });
    expectLookupError(await c.get('/api/vacaciones/auditoria', { numeroDocumento: W.maria }), 400, M.emailRequired);
  });
});

describe('health and documentation', () => {
  it('GET /health is 200 and /health/ready is {status: "ready"}, both without a key', async () => {
    expect((await call(srv.url, '/health')).status).toBe(200);
    const ready = await call(srv.url, '/health/ready');
    expect(ready.status).toBe(200);
    expect(ready.body).toEqual({ status: 'ready' });
  });

  it('GET /openapi.json is an OpenAPI 3 document with every route', async () => {
    const r = await call(srv.url, '/openapi.json');
    expect(r.status).toBe(200);
    expect(r.body.openapi).toMatch(/^3\./);
    const paths = Object.keys(r.body.paths);
    for (const p of [
      '/api/vacaciones/calculate',
      '/api/vacaciones/add',
      '/api/vacaciones/edit',
      '/api/vacaciones/delete',
      '/api/vacaciones/approve',
      '/api/vacaciones/consultdatavacations',
      '/api/contratos/verificarContratoActivo',
      '/api/vacaciones',
      '/api/vacaciones/registro/{codigoPila}',
      '/api/vacaciones/auditoria',
      '/health',
      '/health/ready',
    ]) {
      expect(paths, p).toContain(p);
    }
  });

  it('GET /docs is an HTML page', async () => {
    const r = await call(srv.url, '/docs');
    expect(r.status).toBe(200);
    expect(r.headers.get('content-type')).toMatch(/text\/html/);
    expect(r.text).toMatch(/<html/i);
  });
});
