import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import {
  ADMIN,
  CODE_RE,
  W,
  WORKED_EXAMPLE,
  call,
  client,
  expectKeyedErrors,
  expectVacationError,
  vacationForm,
  type Answer,
  type CallOptions,
  type Client,
} from '../support/http.ts';
import { logLines, startTestServer, type TestServer } from '../support/server.ts';

const UNAUTHORIZED = { success: false, statusCode: 401, message: 'API key inválida o ausente' };
const CODE = 'VAC_1700000000000_00000000_00000000';

/** Every endpoint behind a key, with a request it would otherwise accept or judge on its merits. */
const ENDPOINTS: [string, string, CallOptions][] = [
  ['POST', '/api/vacaciones/calculate', { form: vacationForm(W.maria, '2026-01-05', 15) }],
  ['POST', '/api/vacaciones/add', { form: vacationForm(W.maria, '2026-01-05', 15) }],
  ['POST', '/api/vacaciones/edit', { form: { codigoPila: CODE, ...vacationForm(W.maria, '2026-01-05', 15) } }],
  ['POST', '/api/vacaciones/delete', { form: { codigoPila: CODE, emailUserResponsable: ADMIN } }],
  ['POST', '/api/vacaciones/approve', { form: { codigoPila: CODE, emailUserResponsable: ADMIN } }],
  ['GET', '/api/vacaciones/consultdatavacations', { query: { numeroDocumento: W.maria, emailResponsable: ADMIN } }],
  ['GET', '/api/contratos/verificarContratoActivo', { query: { numeroDocumento: W.maria, emailResponsable: ADMIN } }],
  ['GET', '/api/vacaciones', { query: { numeroDocumento: W.maria, emailResponsable: ADMIN } }],
  ['GET', `/api/vacaciones/registro/${CODE}`, { query: { emailResponsable: ADMIN } }],
  ['GET', '/api/vacaciones/auditoria', { query: { numeroDocumento: W.maria, emailResponsable: ADMIN } }],
  ['POST', '/vacaciones/calculate', { form: vacationForm(W.maria, '2026-01-05', 15) }],
  ['GET', '/contratos/verificarContratoActivo', { query: { numeroDocumento: W.maria, emailResponsable: ADMIN } }],
];
const VACATION_WRITES = ['calculate', 'add', 'edit', 'delete', 'approve'];

let srv: TestServer;
let c: Client;

beforeAll(async () => {
  srv = await startTestServer({
    keys: [
      { name: 'acceptance' },
      { name: 'solo-contratos', scopes: ['contratos:verificar'] },
      { name: 'solo-vacaciones', scopes: ['vacaciones'] },
      { name: 'revocable' },
    ],
  });
  c = client(srv.url, srv.keys.acceptance!);
});
afterAll(async () => {
  await srv?.stop();
});

const at = (o: CallOptions & { method: string }, path: string) => call(srv.url, path, o);

describe('API key', () => {
  const variants: [string, (key: string) => Partial<CallOptions>][] = [
    ['no key', () => ({ key: null })],
    ['a "Token" scheme', (key) => ({ rawKeyHeader: `Token ${key}` })],
    ['the key without "Bearer"', (key) => ({ rawKeyHeader: key })],
    ['an unknown key', () => ({ rawKeyHeader: 'Bearer vac_AAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAA' })],
  ];
  describe.each(variants)('with %s', (_, header) => {
    it.each(ENDPOINTS)('%s %s is 401', async (method, path, o) => {
      const r = await at({ method, ...o, ...header(srv.keys.acceptance!) }, path);
      expect({ status: r.status, body: r.body }).toEqual({ status: 401, body: UNAUTHORIZED });
    });
  });

  it.each(VACATION_WRITES)('a key with only contratos:verificar gets 403 "Acceso denegado" from %s', async (op) => {
    const [, , o] = ENDPOINTS.find(([, p]) => p === `/api/vacaciones/${op}`)!;
    const r = await at({ method: 'POST', ...o, key: srv.keys['solo-contratos']! }, `/api/vacaciones/${op}`);
    expectVacationError(r, 403, 'Acceso denegado');
  });

  it("a key with only vacaciones gets the contract check's own 403", async () => {
    const r = await call(srv.url, '/api/contratos/verificarContratoActivo', {
      key: srv.keys['solo-vacaciones']!,
      query: { numeroDocumento: W.maria, emailResponsable: ADMIN },
    });
    expect(r.status).toBe(403);
    expect(r.body).toEqual({ success: false, status: 403, error: { message: expect.stringMatching(/^Acceso denegado/) } });
  });

  it('each scope opens its own endpoints', async () => {
    const consult = await call(srv.url, '/api/vacaciones/consultdatavacations', {
      key: srv.keys['solo-vacaciones']!,
      query: { numeroDocumento: W.maria, emailResponsable: ADMIN },
    });
    expect(consult.status, consult.text).toBe(200);
    const check = await call(srv.url, '/api/contratos/verificarContratoActivo', {
      key: srv.keys['solo-contratos']!,
      query: { numeroDocumento: W.maria, emailResponsable: ADMIN },
    });
    expect(check.status, check.text).toBe(200);
    expect(check.body).toMatchObject({ success: true, activo: true });
  });

  it('a key revoked through the CLI is refused at once', async (ctx) => {
    if (!srv.postgres) ctx.skip('needs a PostgreSQL server: on PGlite the CLI cannot open the database the server holds');
    const k = client(srv.url, srv.keys.revocable!);
    const q = { numeroDocumento: W.maria, emailResponsable: ADMIN };
    expect((await k.get('/api/contratos/verificarContratoActivo', q)).status).toBe(200);
    const r = await srv.cli(['apikey', 'revoke', 'revocable']);
    expect(r.code, r.stderr).toBe(0);
    const after = await k.get('/api/contratos/verificarContratoActivo', q);
    expect({ status: after.status, body: after.body }).toEqual({ status: 401, body: UNAUTHORIZED });
    const write = await k.post('/api/vacaciones/calculate', vacationForm(W.maria, '2026-01-05', 15));
    expect({ status: write.status, body: write.body }).toEqual({ status: 401, body: UNAUTHORIZED });
  });
});

describe('Authorization: Bearer', () => {
  it('is taken as well as X-Api-Key: Bearer, on writes and reads', async () => {
    const bearer = { key: null, headers: { authorization: `Bearer ${srv.keys.acceptance}` } };
    const write = await at({ method: 'POST', ...bearer, form: vacationForm(W.maria, '2026-01-05', 15) }, '/api/vacaciones/calculate');
    expect(write.status, write.text).toBe(200);
    const read = await at({ method: 'GET', ...bearer, query: { numeroDocumento: W.maria, emailResponsable: ADMIN } }, '/api/vacaciones');
    expect(read.status, read.text).toBe(200);
  });

  it('is refused like the interface header when malformed or unknown, and X-Api-Key decides when both come', async () => {
    for (const authorization of [`Basic ${srv.keys.acceptance}`, 'Bearer vac_AAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAA']) {
      const r = await at(
        { method: 'GET', key: null, headers: { authorization }, query: { numeroDocumento: W.maria, emailResponsable: ADMIN } },
        '/api/vacaciones',
      );
      expect({ status: r.status, body: r.body }).toEqual({ status: 401, body: UNAUTHORIZED });
    }
    const both = await at(
      {
        method: 'GET',
        rawKeyHeader: 'Bearer vac_AAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAA',
        headers: { authorization: `Bearer ${srv.keys.acceptance}` },
        query: { numeroDocumento: W.maria, emailResponsable: ADMIN },
      },
      '/api/vacaciones',
    );
    expect(both.status).toBe(401);
  });
});

describe("the other family's e-mail parameter", () => {
  it("on a read keeps the interface's message and says which parameter the endpoint takes", async () => {
    const hint = 'El correo del responsable es obligatorio. Este endpoint lo recibe en emailResponsable, no en emailUserResponsable.';
    for (const path of ['/api/vacaciones/consultdatavacations', '/api/vacaciones', '/api/vacaciones/auditoria']) {
      const r = await c.get(path, { numeroDocumento: W.maria, emailUserResponsable: ADMIN });
      expect({ status: r.status, body: r.body }, path).toEqual({ status: 400, body: { success: false, statusCode: 400, message: hint } });
    }
    // Without any e-mail, the interface's answer as it is.
    const none = await c.get('/api/vacaciones/consultdatavacations', { numeroDocumento: W.maria });
    expect(none.body).toEqual({ success: false, statusCode: 400, message: 'El correo del responsable es obligatorio.' });
  });

  it("on a write keeps the interface's message and names the parameter in errors", async () => {
    const { emailUserResponsable: _, ...form } = vacationForm(W.maria, '2026-01-05', 15);
    const r = await c.post('/api/vacaciones/calculate', { ...form, emailResponsable: ADMIN });
    expect({ status: r.status, body: r.body }).toEqual({
      status: 400,
      body: {
        success: false,
        statusCode: 400,
        message: 'Email del usuario responsable es requerido',
        errors: {
          emailUserResponsable:
            'El campo emailUserResponsable es requerido. Este endpoint lo recibe en emailUserResponsable, no en emailResponsable.',
        },
      },
    });
    const del = await c.post('/api/vacaciones/delete', { codigoPila: CODE, emailResponsable: ADMIN });
    expectKeyedErrors(expectVacationError(del, 400, 'Datos requeridos faltantes'), ['emailUserResponsable']);
    expect(del.body.errors.emailUserResponsable).toMatch(/lo recibe en emailUserResponsable, no en emailResponsable/);
  });
});

describe('a malformed responsible e-mail', () => {
  const ANSWER = {
    success: false,
    statusCode: 400,
    message: 'Datos requeridos faltantes',
    errors: { emailUserResponsable: 'emailUserResponsable no tiene un formato de correo válido' },
  };
  it.each(VACATION_WRITES.flatMap((op) => ['admin.empresa.co', 'admin@empresa', 'admin@'].map((email) => [op, email])))(
    'gets the same 400 keyed emailUserResponsable from %s (%s)',
    async (op, email) => {
      const [, , o] = ENDPOINTS.find(([, p]) => p === `/api/vacaciones/${op}`)!;
      const r = await c.post(`/api/vacaciones/${op}`, { ...o.form!, emailUserResponsable: email });
      expect({ status: r.status, body: r.body }).toEqual({ status: 400, body: ANSWER });
    },
  );
});

describe('methods and routes', () => {
  const posts = VACATION_WRITES.flatMap((op) => ['/api', ''].map((p) => `${p}/vacaciones/${op}`));
  it.each(posts.flatMap((path) => ['GET', 'PUT', 'DELETE'].map((m) => [m, path])))(
    '%s %s is 405 "Use POST" without errors',
    async (method, path) => {
      const r = await c.call(path, { method });
      expect({ status: r.status, body: r.body }).toEqual({
        status: 405,
        body: { success: false, statusCode: 405, message: 'Método no permitido. Use POST' },
      });
    },
  );

  it.each([
    '/api/vacaciones/consultdatavacations',
    '/vacaciones/consultdatavacations',
    '/api/contratos/verificarContratoActivo',
    '/contratos/verificarContratoActivo',
    '/api/vacaciones',
    '/api/vacaciones/auditoria',
  ])('POST %s is 405 "Use GET"', async (path) => {
    const r = await c.post(path, { numeroDocumento: W.maria, emailResponsable: ADMIN });
    expect({ status: r.status, body: r.body }).toEqual({
      status: 405,
      body: { success: false, statusCode: 405, message: 'Método no permitido. Use GET' },
    });
  });

  it('an unknown route is a JSON 404', async () => {
    const r = await c.get('/api/vacaciones/no-existe/otra');
    expect(r.status).toBe(404);
    expect(r.headers.get('content-type')).toMatch(/application\/json/);
    expect(r.body).toEqual({ success: false, statusCode: 404, message: expect.any(String) });
  });
});

describe('request bodies', () => {
  const CALC = '/api/vacaciones/calculate';
  const form = vacationForm(W.maria, '2026-01-05', 15);
  const expectWorkedExample = (r: Answer) => {
    expect(r.status, r.text).toBe(200);
    expect(r.body).toMatchObject({ success: true, statusCode: 200, data: WORKED_EXAMPLE });
  };
  const expectEnvelope = (r: Answer, status: number) => {
    expect(r.status, r.text).toBe(status);
    expect(r.body).toMatchObject({ success: false, statusCode: status, message: expect.any(String) });
  };

  it('URL-encoded, multipart and JSON bodies give the same answer', async () => {
    expectWorkedExample(await c.call(CALC, { form }));
    expectWorkedExample(await c.call(CALC, { multipart: form }));
    expectWorkedExample(await c.call(CALC, { json: form }));
  });

  it('a multipart body with a file part is refused in the vacation envelope', async () => {
    const fd = new FormData();
    for (const [k, v] of Object.entries(form)) fd.append(k, v);
    fd.append('adjunto', new Blob(['contenido'], { type: 'text/plain' }), 'soporte.txt');
    const r = await c.call(CALC, { multipart: fd });
    expect(r.status, r.text).toBeGreaterThanOrEqual(400);
    expect(r.status).toBeLessThan(500);
    expectEnvelope(r, r.status);
  });

  it('an unsupported content type is 415 in the envelope', async () => {
    expectEnvelope(
      await c.call(CALC, { method: 'POST', raw: { body: new URLSearchParams(form).toString(), contentType: 'text/plain' } }),
      415,
    );
  });

  it('a URL-encoded body over 64 KiB is 413 in the envelope', async () => {
    expectEnvelope(await c.call(CALC, { form: { ...form, relleno: 'x'.repeat(70 * 1024) } }), 413);
  });

  it('a multipart body over 64 KiB is 413 in the envelope', async () => {
    expectEnvelope(await c.call(CALC, { multipart: { ...form, relleno: 'x'.repeat(70 * 1024) } }), 413);
  });

  it('a JSON body over 64 KiB is 413 in the envelope', async () => {
    expectEnvelope(await c.call(CALC, { json: { ...form, relleno: 'x'.repeat(70 * 1024) } }), 413);
  });

  it('malformed JSON is 400 in the envelope', async () => {
    expectEnvelope(
      await c.call(CALC, { method: 'POST', raw: { body: '{"documentoAsociado": "1020307007",', contentType: 'application/json' } }),
      400,
    );
  });

  // Refused before any handler runs, yet answered like the handlers' own errors: with errors.detalle.
  const unreadable: [string, number, (op: string) => CallOptions][] = [
    ['malformed JSON', 400, () => ({ method: 'POST', raw: { body: '{"codigoPila": "VAC_1",', contentType: 'application/json' } })],
    ['a text/plain body', 415, () => ({ method: 'POST', raw: { body: 'codigoPila=VAC_1', contentType: 'text/plain' } })],
    ['a body over 64 KiB', 413, () => ({ form: { codigoPila: CODE, emailUserResponsable: ADMIN, relleno: 'x'.repeat(70 * 1024) } })],
  ];
  it.each(VACATION_WRITES.flatMap((op) => unreadable.map(([what, status, o]) => [op, what, status, o] as const)))(
    '%s: %s is %i with errors.detalle',
    async (op, _, status, o) => {
      const r = await c.call(`/api/vacaciones/${op}`, o(op));
      expect({ status: r.status, body: r.body }).toEqual({
        status,
        body: { success: false, statusCode: status, message: expect.any(String), errors: { detalle: expect.stringMatching(/\S/) } },
      });
    },
  );

  it('parameter names match in any case', async () => {
    const r = await c.post(CALC, {
      DOCUMENTOASOCIADO: W.maria,
      VacFechaInicio: '2026-01-05',
      vacdiasvacaciones: '15',
      EMAILUSERRESPONSABLE: ADMIN,
    });
    expectWorkedExample(r);
  });

  it('add takes vaclaboraSabado (lower-case l) as vacLaboraSabado', async () => {
    const r = await c.post('/api/vacaciones/add', vacationForm(W.maria, '2026-05-04', 6, { vaclaboraSabado: '1' }));
    expect(r.status, r.text).toBe(201);
    // Saturday 2026-05-09 is the sixth business day.
    expect(r.body.data.vacaciones).toMatchObject({ vacFechaInicio: '2026-05-04', vacFechaFinal: '2026-05-09', vacDiasCalendario: 6 });
  });
});

describe('Idempotency-Key', () => {
  const codesOf = async (doc: string): Promise<string[]> => {
    const r = await c.get('/api/vacaciones', { numeroDocumento: doc, emailResponsable: ADMIN });
    expect(r.status, r.text).toBe(200);
    return (r.body.vacaciones as Record<string, unknown>[]).map((v) => String(v.codigoPila));
  };

  it('a repeated add answers the first result again and stores one record', async () => {
    const before = await codesOf(W.juan);
    const body = vacationForm(W.juan, '2026-06-01', 6);
    const headers = { 'Idempotency-Key': 'aceptacion-add-1' };
    const first = await c.post('/api/vacaciones/add', body, { headers });
    const second = await c.post('/api/vacaciones/add', body, { headers });
    expect(first.status, first.text).toBe(201);
    expect(second.status).toBe(first.status);
    expect(second.body).toEqual(first.body);
    expect(first.body.data.codigo_pila).toMatch(CODE_RE);
    const after = await codesOf(W.juan);
    expect(after.filter((code) => !before.includes(code))).toEqual([first.body.data.codigo_pila]);
  });

  it('the same key with another body is 422', async () => {
    const before = await codesOf(W.juan);
    const headers = { 'Idempotency-Key': 'aceptacion-add-2' };
    const first = await c.post('/api/vacaciones/add', vacationForm(W.juan, '2026-07-06', 6), { headers });
    expect(first.status, first.text).toBe(201);
    const other = await c.post('/api/vacaciones/add', vacationForm(W.juan, '2026-08-03', 6), { headers });
    expect(other.status, other.text).toBe(422);
    expect(other.body).toMatchObject({ success: false, statusCode: 422, message: expect.any(String) });
    const after = await codesOf(W.juan);
    expect(after.filter((code) => !before.includes(code))).toEqual([first.body.data.codigo_pila]);
  });

  it('a retried delete answers the first 200 again', async () => {
    const created = await c.post('/api/vacaciones/add', vacationForm(W.juan, '2026-10-05', 6));
    expect(created.status, created.text).toBe(201);
    const code = created.body.data.codigo_pila as string;
    const headers = { 'Idempotency-Key': 'aceptacion-delete-1' };
    const first = await c.post('/api/vacaciones/delete', { codigoPila: code, emailUserResponsable: ADMIN }, { headers });
    const second = await c.post('/api/vacaciones/delete', { codigoPila: code, emailUserResponsable: ADMIN }, { headers });
    expect(first.status, first.text).toBe(200);
    expect(second.status).toBe(200);
    expect(second.body).toEqual(first.body);
    expect(first.body.data).toMatchObject({ idEliminado: created.body.data.id, codigoPila: code });
  });

  it('a keyed add whose JSON body nests too deep to compare is 400 and changes nothing', async () => {
    const before = await codesOf(W.juan);
    const deep = '['.repeat(30_000) + ']'.repeat(30_000);
    const raw = `{"documentoAsociado":"${W.juan}","vacFechaInicio":"2026-11-03","vacDiasVacaciones":"6","emailUserResponsable":"${ADMIN}","x":${deep}}`;
    const r = await c.call('/api/vacaciones/add', {
      method: 'POST',
      raw: { body: raw, contentType: 'application/json' },
      headers: { 'Idempotency-Key': 'aceptacion-deep-1' },
    });
    expect(r.status, r.text).toBe(400);
    expect(r.body).toMatchObject({ success: false, statusCode: 400 });
    expect(await codesOf(W.juan)).toEqual(before);
  });
});

// Last in the file: it reads the log lines of every request above.
describe('request log', () => {
  interface Line {
    msg?: string;
    route?: string;
    status?: number;
    apiKey?: string | null;
  }
  const lines = () => logLines<Line>(srv);

  it('has one JSON line per request with route, status and the key name', async () => {
    const r = await c.post('/api/vacaciones/calculate', vacationForm(W.maria, '2026-03-16', 6));
    expect(r.status).toBe(200);
    await expect
      .poll(
        () =>
          lines().filter(
            (l) => l.msg === 'request' && l.route === '/api/vacaciones/calculate' && l.status === 200 && l.apiKey === 'acceptance',
          ).length,
      )
      .toBeGreaterThan(0);
    const unauthorized = lines().find((l) => l.msg === 'request' && l.status === 401);
    expect(unauthorized).toBeDefined();
  });

  it('never contains a key secret', () => {
    const all = srv.logs() + srv.stderr();
    for (const [name, secret] of Object.entries(srv.keys)) {
      expect(secret.length, name).toBeGreaterThan(20);
      expect(all.includes(secret), `secret of ${name} in the logs`).toBe(false);
    }
  });
});
