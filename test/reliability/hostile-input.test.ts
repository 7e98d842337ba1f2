import fc from 'fast-check';
import pg from 'pg';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { ADMIN, W, call, vacationForm, type Answer } from '../support/http.ts';
import { ENDPOINTS, bodyLength, encodeBody, fuzzRequest, queryOf, type Endpoint, type FuzzRequest } from '../support/reliability-fuzz.ts';
import { startTestServer, type TestServer } from '../support/server.ts';

/**
 * Property-based fuzzing of every endpoint over HTTP: whatever arrives, the answer is a success
 * or a 4xx in the endpoint's envelope, never a 5xx, and a refused request leaves the event store
 * as it was. The seed is fixed so that a run can be repeated; RELIABILITY_SEED picks another.
 */

const BODY_LIMIT = 4096;
const SEED = Number(process.env.RELIABILITY_SEED ?? 20261121);
const RUNS = 100;
const UNAUTHORIZED = { success: false, statusCode: 401, message: 'API key inválida o ausente' };
const TOO_LARGE = 'La solicitud supera el tamaño máximo permitido';

let srv: TestServer;
let events: EventCounter;

/** What a request appended to the event store. */
interface Appended {
  count: number;
  /** Types and streams of the new events (PostgreSQL only). */
  detail: string[];
}

interface EventCounter {
  mark(): Promise<unknown>;
  since(mark: unknown): Promise<Appended>;
  close(): Promise<void>;
}

/** PostgreSQL: the events table itself. */
async function sqlCounter(url: string): Promise<EventCounter> {
  const c = new pg.Client({ connectionString: url });
  await c.connect();
  return {
    async mark() {
      return (await c.query<{ p: string }>('SELECT coalesce(max(position), 0)::text AS p FROM events')).rows[0]!.p;
    },
    async since(mark) {
      const r = await c.query<{ type: string; stream: string }>('SELECT type, stream FROM events WHERE position > $1 ORDER BY position', [
        mark,
      ]);
      return { count: r.rows.length, detail: r.rows.map((e) => `${e.type}@${e.stream}`) };
    },
    close: () => c.end(),
  };
}

/**
 * PGlite: the server holds the only connection, so the store is watched through the appends the
 * server reports in /metrics (every attempt counts, so "none" is a stronger claim than "no row").
 */
function metricsCounter(base: string): EventCounter {
  const appends = async () => {
    const r = await call(base, '/metrics', { key: null });
    let n = 0;
    for (const line of r.text.split('\n')) {
      const m = /^vacaciones_event_store_append_seconds_count(?:\{[^}]*\})? (\d+)/.exec(line);
      if (m) n += Number(m[1]);
    }
    return n;
  };
  return {
    mark: appends,
    async since(mark) {
      const n = (await appends()) - (mark as number);
      return { count: n, detail: [] };
    },
    async close() {},
  };
}

beforeAll(async () => {
  srv = await startTestServer({
    env: { BODY_LIMIT_BYTES: String(BODY_LIMIT), RATE_LIMIT_PER_MINUTE: '0' },
    keys: [
      { name: 'acceptance' },
      { name: 'solo-contratos', scopes: ['contratos:verificar'] },
      { name: 'solo-vacaciones', scopes: ['vacaciones'] },
    ],
  });
  events = srv.postgres ? await sqlCounter(srv.env.DATABASE_URL!) : metricsCounter(srv.url);
});
afterAll(async () => {
  await events?.close();
  await srv?.stop();
});

function headerFor(r: FuzzRequest): { key?: string | null; rawKeyHeader?: string } {
  switch (r.key) {
    case 'full':
      return { key: srv.keys.acceptance! };
    case 'none':
      return { key: null };
    case 'wrong':
      return { rawKeyHeader: 'Bearer vac_AAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAA' };
    case 'malformed':
      return { rawKeyHeader: `Bearer ${srv.keys.acceptance!} extra` };
    default:
      return { key: srv.keys[r.key]! };
  }
}

function pathOf(e: Endpoint, r: FuzzRequest): string {
  let p = r.prefix + e.path.replace(':code', encodeURIComponent(r.code));
  if (r.upperPath) p = p.toUpperCase();
  return p;
}

/** The answer, or null when the server closed the connection while an oversized body was still being sent. */
async function send(e: Endpoint, r: FuzzRequest): Promise<Answer | null> {
  const bodyless = r.method === 'GET' || r.method === 'HEAD';
  const encoded = bodyless || e.method === 'GET' ? { body: undefined } : encodeBody(r);
  const headers = new Headers();
  const auth = headerFor(r);
  if (auth.rawKeyHeader !== undefined) headers.set('x-api-key', auth.rawKeyHeader);
  else if (auth.key) headers.set('x-api-key', `Bearer ${auth.key}`);
  if (encoded.contentType) headers.set('content-type', encoded.contentType);
  if (r.idempotencyKey !== null) headers.set('idempotency-key', r.idempotencyKey);
  const qs = queryOf(e, r);
  let res: Response;
  try {
    res = await fetch(`${srv.url}${pathOf(e, r)}${qs ? `?${qs}` : ''}`, { method: r.method, headers, body: encoded.body });
  } catch (err) {
    // Refusing a body by its size may end the connection before the client has finished writing it.
    if (bodyLength(encoded.body) > BODY_LIMIT) return null;
    throw err;
  }
  const text = await res.text();
  let body: unknown;
  try {
    body = text === '' ? undefined : JSON.parse(text);
  } catch {
    body = undefined;
  }
  return { status: res.status, headers: res.headers, text, body };
}

/** Asserts the answer is a success or a 4xx in the endpoint's envelope. */
function expectWellFormed(e: Endpoint, r: FuzzRequest, a: Answer): void {
  const what = `${r.method} ${pathOf(e, r)} → ${a.status} ${a.text.slice(0, 500)}`;
  expect(a.status, what).toBeGreaterThanOrEqual(200);
  expect(a.status, what).toBeLessThan(500);
  if (r.method === 'HEAD') return;
  expect(a.headers.get('content-type') ?? '', what).toMatch(/^application\/json/);
  const body = a.body as Record<string, unknown>;
  expect(body, what).toBeTypeOf('object');
  expect(Array.isArray(body), what).toBe(false);
  if (a.status < 300) {
    expect(body.success, what).toBe(true);
    return;
  }
  if (a.status === 401) {
    expect(body, what).toEqual(UNAUTHORIZED);
    return;
  }
  expect(body.success, what).toBe(false);
  if (e.envelope === 'contract' && a.status === 403 && 'error' in body) {
    expect(body, what).toEqual({ success: false, status: 403, error: { message: expect.stringMatching(/^Acceso denegado/) } });
    return;
  }
  expect(body.message, what).toEqual(expect.stringMatching(/\S/));
  if (e.envelope === 'vacation') {
    expect(body.statusCode, what).toBe(a.status);
    if ('errors' in body) expect(body.errors, what).toBeTypeOf('object');
    expect(
      Object.keys(body).filter((k) => !['success', 'statusCode', 'message', 'errors'].includes(k)),
      what,
    ).toEqual([]);
  } else {
    if ('statusCode' in body) expect(body.statusCode, what).toBe(a.status);
    expect(
      Object.keys(body).filter((k) => !['success', 'statusCode', 'message'].includes(k)),
      what,
    ).toEqual([]);
  }
}

/** Asserts what the request appended is what its answer allows. */
function expectAppends(e: Endpoint, r: FuzzRequest, a: Answer, appended: Appended): void {
  const what = `${r.method} ${pathOf(e, r)} → ${a.status} ${a.text.slice(0, 300)}\nappended: ${appended.count} ${appended.detail.join(', ')}`;
  const handled = r.method === e.method || (r.method === 'HEAD' && e.method === 'GET');
  if (handled && e.appends === 'writes' && a.status < 300) return;
  // An answered consult or contract check is audited; so is the consult's 422 (a contract not configured).
  if (handled && e.appends === 'audit' && (a.status < 300 || a.status === 422)) {
    expect(appended.count, what).toBe(1);
    for (const d of appended.detail) expect(d, what).toMatch(/^(VacationDataConsulted|ContractStatusChecked)@audit-worker-\d+$/);
    return;
  }
  // A refused edit of a known record records its failure, and nothing else, in the audit stream.
  if (handled && e.name === 'edit' && a.status >= 400 && a.status < 500 && appended.count > 0) {
    expect(appended.count, what).toBe(1);
    for (const d of appended.detail) expect(d, what).toMatch(/^VacationEditFailed@audit-worker-\d+$/);
    return;
  }
  expect(appended.count, `a refused or read-only request appended events: ${what}`).toBe(0);
}

describe('fuzzed requests', () => {
  it.each(ENDPOINTS.map((e, i) => [e.name, e, i] as const))(
    '%s: every answer is a success or a 4xx in the envelope, and refusals append nothing',
    async (_, e, i) => {
      await fc.assert(
        fc.asyncProperty(fuzzRequest(e), async (r) => {
          const mark = await events.mark();
          const answer = await send(e, r);
          if (answer === null) {
            expect((await events.since(mark)).count, 'an oversized request cut short appended events').toBe(0);
            return;
          }
          expectWellFormed(e, r, answer);
          expectAppends(e, r, answer, await events.since(mark));
        }),
        // A seed of its own per endpoint: the same stream everywhere would repeat the same idempotency keys.
        { numRuns: RUNS, seed: SEED + i },
      );
    },
  );
});

describe(`bodies over BODY_LIMIT_BYTES (${BODY_LIMIT})`, () => {
  const writes = ['calculate', 'add', 'edit', 'delete', 'approve'];
  const formOf = (op: string): Record<string, string> =>
    op === 'delete' || op === 'approve'
      ? { codigoPila: 'VAC_1760000000000_11223344_0badf00d', emailUserResponsable: ADMIN }
      : { ...(op === 'edit' ? { codigoPila: 'VAC_1760000000000_11223344_0badf00d' } : {}), ...vacationForm(W.paula, '2026-12-01', 6) };
  const big = 'x'.repeat(BODY_LIMIT + 512);
  const encodings = {
    urlencoded: (f: Record<string, string>) => ({ form: f }),
    multipart: (f: Record<string, string>) => ({ multipart: f }),
    json: (f: Record<string, string>) => ({ json: f }),
  };
  const cases = writes.flatMap((op) => Object.keys(encodings).map((enc) => [op, enc] as const));

  it.each(cases)('%s with a %s body over the limit is 413 in the vacation envelope and appends nothing', async (op, enc) => {
    const mark = await events.mark();
    const body = encodings[enc as keyof typeof encodings]({ ...formOf(op), relleno: big });
    const a = await call(srv.url, `/api/vacaciones/${op}`, { key: srv.keys.acceptance!, ...body });
    expect({ status: a.status, body: a.body }).toEqual({
      status: 413,
      body: {
        success: false,
        statusCode: 413,
        message: TOO_LARGE,
        errors: { detalle: `El cuerpo supera el máximo de ${BODY_LIMIT} bytes` },
      },
    });
    expect((await events.since(mark)).count).toBe(0);
  });

  it.each(Object.keys(encodings))('a %s body over the limit made of many small fields is 413 too', async (enc) => {
    const form: Record<string, string> = { ...formOf('add') };
    for (let i = 0; i < 60; i++) form[`campo${i}`] = 'y'.repeat(90);
    const a = await call(srv.url, '/api/vacaciones/add', { key: srv.keys.acceptance!, ...encodings[enc as keyof typeof encodings](form) });
    expect({ status: a.status, body: a.body }).toEqual({
      status: 413,
      body: {
        success: false,
        statusCode: 413,
        message: TOO_LARGE,
        errors: { detalle: `El cuerpo supera el máximo de ${BODY_LIMIT} bytes` },
      },
    });
  });

  it.each(Object.keys(encodings))('a %s body just under the limit is read', async (enc) => {
    const form = { ...vacationForm(W.maria, '2026-01-05', 15), relleno: 'z'.repeat(BODY_LIMIT - 1200) };
    const a = await call(srv.url, '/api/vacaciones/calculate', {
      key: srv.keys.acceptance!,
      ...encodings[enc as keyof typeof encodings](form),
    });
    expect(a.status, a.text).toBe(200);
  });
});

describe('inputs the database, the multipart parser or the router cannot take', () => {
  const q = (extra: Record<string, string>) => ({ numeroDocumento: W.maria, emailResponsable: ADMIN, ...extra });
  const form = (extra: Record<string, string>) => ({ ...vacationForm(W.maria, '2026-12-01', 6), ...extra });
  const NUL = '\u0000';
  // PostgreSQL text cannot hold U+0000: such a value must be refused, not sent to a query.
  const cases: [string, string, 'vacation' | 'lookup' | 'contract', Parameters<typeof call>[2]][] = [
    ['calculate, documentoAsociado', '/api/vacaciones/calculate', 'vacation', { form: form({ documentoAsociado: `10${NUL}20307007` }) }],
    ['add, documentoAsociado', '/api/vacaciones/add', 'vacation', { form: form({ documentoAsociado: `10${NUL}20307007` }) }],
    ['add, emailUserResponsable', '/api/vacaciones/add', 'vacation', { form: form({ emailUserResponsable: `adm${NUL}in@empresa.co` }) }],
    ['edit, codigoPila', '/api/vacaciones/edit', 'vacation', { form: form({ codigoPila: `VAC_${NUL}` }) }],
    ['delete, codigoPila', '/api/vacaciones/delete', 'vacation', { form: { codigoPila: `VAC_${NUL}`, emailUserResponsable: ADMIN } }],
    ['approve, codigoPila', '/api/vacaciones/approve', 'vacation', { form: { codigoPila: `VAC_${NUL}`, emailUserResponsable: ADMIN } }],
    [
      'consultdatavacations, numeroDocumento',
      '/api/vacaciones/consultdatavacations',
      'lookup',
      { query: q({ numeroDocumento: `1${NUL}` }) },
    ],
    [
      'consultdatavacations, emailResponsable',
      '/api/vacaciones/consultdatavacations',
      'lookup',
      { query: q({ emailResponsable: `a${NUL}@x.co` }) },
    ],
    [
      'verificarContratoActivo, numeroDocumento',
      '/api/contratos/verificarContratoActivo',
      'contract',
      { query: q({ numeroDocumento: `1${NUL}` }) },
    ],
    ['vacaciones, numeroDocumento', '/api/vacaciones', 'lookup', { query: q({ numeroDocumento: `1${NUL}` }) }],
    [
      'registro, the code',
      `/api/vacaciones/registro/${encodeURIComponent(`VAC_${NUL}`)}`,
      'lookup',
      { query: { emailResponsable: ADMIN } },
    ],
    ['auditoria, codigoPila', '/api/vacaciones/auditoria', 'lookup', { query: { codigoPila: `VAC_${NUL}`, emailResponsable: ADMIN } }],
  ];

  it.each(cases)('a NUL character in %s is a 400 or 404 in the envelope, not a 500, and appends nothing', async (_, path, envelope, o) => {
    const mark = await events.mark();
    const a = await call(srv.url, path, { key: srv.keys.acceptance!, ...o });
    expect([400, 404], `${a.status} ${a.text}`).toContain(a.status);
    expect(a.body).toMatchObject({ success: false, message: expect.any(String) });
    if (envelope === 'vacation' || 'statusCode' in a.body) expect(a.body.statusCode).toBe(a.status);
    expect((await events.since(mark)).count).toBe(0);
  });

  it.each(['calculate', 'add'])('%s with multipart/form-data without a boundary is 400 in the vacation envelope', async (op) => {
    const mark = await events.mark();
    const a = await call(srv.url, `/api/vacaciones/${op}`, {
      key: srv.keys.acceptance!,
      raw: { body: '--x\r\nContent-Disposition: form-data; name="a"\r\n\r\n1\r\n--x--\r\n', contentType: 'multipart/form-data' },
    });
    expect({ status: a.status, body: a.body }).toEqual({
      status: 400,
      body: {
        success: false,
        statusCode: 400,
        message: 'El cuerpo de la solicitud no se pudo leer',
        errors: { detalle: expect.stringMatching(/formulario/) },
      },
    });
    expect((await events.since(mark)).count).toBe(0);
  });

  it('a record code longer than the router takes is a 4xx in the lookup envelope', async () => {
    const a = await call(srv.url, `/api/vacaciones/registro/VAC_${'9'.repeat(120)}`, {
      key: srv.keys.acceptance!,
      query: { emailResponsable: ADMIN },
    });
    expect(a.status, a.text).toBeGreaterThanOrEqual(400);
    expect(a.status, a.text).toBeLessThan(500);
    expect(a.body).toEqual({ success: false, statusCode: a.status, message: expect.any(String) });
  });

  it('a query string too long for the HTTP parser is a 4xx in the envelope', async () => {
    const a = await call(srv.url, '/api/vacaciones', { key: srv.keys.acceptance!, query: q({ relleno: 'a'.repeat(20_000) }) });
    expect(a.status, a.text).toBeGreaterThanOrEqual(400);
    expect(a.status, a.text).toBeLessThan(500);
    expect(a.body).toEqual({ success: false, statusCode: a.status, message: expect.any(String) });
  });
});

describe('inputs that answered 500', () => {
  const key = () => srv.keys.acceptance!;
  // Within BODY_LIMIT: a list 1,500 deep; the limit on depth is far below it.
  const deep = (depth: number) => '['.repeat(depth) + ']'.repeat(depth);

  it.each(['add', 'edit'])(
    '%s with an Idempotency-Key and a JSON list nested past the limit is 400 in the envelope, nothing appended',
    async (op) => {
      const mark = await events.mark();
      const a = await call(srv.url, `/api/vacaciones/${op}`, {
        key: key(),
        headers: { 'idempotency-key': `profundo-${op}` },
        raw: { body: `{"documentoAsociado":${deep(1_500)}}`, contentType: 'application/json' },
      });
      expect({ status: a.status, body: a.body }).toEqual({
        status: 400,
        body: {
          success: false,
          statusCode: 400,
          message: 'El cuerpo anida listas u objetos a más de 32 niveles',
          errors: { detalle: expect.any(String) },
        },
      });
      expect((await events.since(mark)).count).toBe(0);
    },
  );

  it('a JSON body exactly as deep as the limit is read and judged on its fields', async () => {
    const a = await call(srv.url, '/api/vacaciones/calculate', {
      key: key(),
      raw: { body: `{"relleno":${'['.repeat(31)}${']'.repeat(31)},"documentoAsociado":"${W.maria}"}`, contentType: 'application/json' },
    });
    expect(a.status, a.text).toBe(400);
    expect(a.body.message).toBe('Email del usuario responsable es requerido');
  });

  it.each([
    ['consultdatavacations', '/api/vacaciones/consultdatavacations', { success: false, statusCode: 400 }],
    ['vacaciones', '/api/vacaciones', { success: false, statusCode: 400 }],
    ['verificarContratoActivo', '/api/contratos/verificarContratoActivo', { success: false }],
  ])('GET %s with numeroDocumento given twice in different case is 400 naming it', async (_, path, envelope) => {
    const a = await fetch(`${srv.url}${path}?numeroDocumento=${W.maria}&NUMERODOCUMENTO=${W.juan}&emailResponsable=${ADMIN}`, {
      headers: { 'x-api-key': `Bearer ${key()}` },
    });
    expect({ status: a.status, body: await a.json() }).toEqual({
      status: 400,
      body: { ...envelope, message: 'El campo numeroDocumento viene repetido, no es un valor simple o tiene caracteres no permitidos' },
    });
  });

  it.each(['urlencoded', 'json'])(
    'POST calculate with documentoAsociado given twice in different case (%s) is 400 naming it',
    async (enc) => {
      const rest = `"vacFechaInicio":"2026-12-01","vacDiasVacaciones":"6","emailUserResponsable":"${ADMIN}"`;
      const raw =
        enc === 'json'
          ? { body: `{"documentoAsociado":"${W.maria}","DOCUMENTOASOCIADO":"${W.juan}",${rest}}`, contentType: 'application/json' }
          : {
              body: `documentoAsociado=${W.maria}&DOCUMENTOASOCIADO=${W.juan}&vacFechaInicio=2026-12-01&vacDiasVacaciones=6&emailUserResponsable=${ADMIN}`,
              contentType: 'application/x-www-form-urlencoded',
            };
      const a = await call(srv.url, '/api/vacaciones/calculate', { key: key(), raw });
      expect({ status: a.status, body: a.body }).toEqual({
        status: 400,
        body: {
          success: false,
          statusCode: 400,
          message: 'Datos requeridos faltantes',
          errors: ['El campo documentoAsociado viene repetido, no es un valor simple o tiene caracteres no permitidos'],
        },
      });
    },
  );

  it.each([
    ['alCorte', '0000-01-01', 'alCorte debe ser una fecha entre 1900-01-01 y 2999-12-31'],
    ['alCorte', '0000-01-01T00:00:00Z', 'alCorte debe ser una fecha entre 1900-01-01 y 2999-12-31'],
    ['periodo', '0000-01', 'periodo debe ser un mes entre 1900-01 y 2999-12'],
  ])('novedades with %s=%s is 400 naming it', async (name, value, text) => {
    const a = await call(srv.url, '/api/vacaciones/novedades', {
      key: key(),
      query: { periodo: '2026-12', emailResponsable: ADMIN, [name]: value },
    });
    expect({ status: a.status, body: a.body }).toEqual({
      status: 400,
      body: { success: false, statusCode: 400, message: 'Datos requeridos faltantes', errors: { [name]: text } },
    });
  });
});
