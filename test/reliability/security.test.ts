import { randomBytes } from 'node:crypto';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { openDb } from '../../src/db/open.ts';
import { ADMIN, AUDITOR, W, call, client, vacationForm } from '../support/http.ts';
import { logLines, startTestServer, type TestServer } from '../support/server.ts';

/**
 * Rate limit, security headers, what reaches the logs and the database. The server allows 5
 * requests a minute per key, so each test spends the budget of keys of its own:
 * solo-vacaciones and solo-contratos the rate limit, acceptance the logs (4 requests),
 * revocable the headers and the revocation (3 requests).
 */

const LIMIT = 5;
const UNAUTHORIZED = { success: false, statusCode: 401, message: 'API key inválida o ausente' };
const TOO_MANY = 'Demasiadas solicitudes. Intente de nuevo más tarde.';
const SECRET_EMAIL = 'secreto.persona@dominio.co';

let srv: TestServer;
let apiKeyRows: Record<string, unknown>[] = [];

beforeAll(async () => {
  srv = await startTestServer({
    // The most verbose level: a secret must not reach a log at any level.
    env: { RATE_LIMIT_PER_MINUTE: String(LIMIT), LOG_LEVEL: 'trace' },
    keys: [
      { name: 'acceptance' },
      { name: 'solo-contratos', scopes: ['contratos:verificar'] },
      { name: 'solo-vacaciones', scopes: ['vacaciones'] },
      { name: 'revocable' },
      { name: 'del-auditor', user: AUDITOR },
      { name: 'personal', scopes: ['vacaciones', 'auditoria'] },
    ],
    // Read before the server opens the database: on PGlite only one process may hold it.
    beforeStart: async (env) => {
      const db = await openDb({ databaseUrl: env.DATABASE_URL || undefined, dataDir: env.DATA_DIR! });
      try {
        apiKeyRows = (await db.query<Record<string, unknown>>('SELECT * FROM api_keys ORDER BY name')).rows;
      } finally {
        await db.close();
      }
    },
  });
});
afterAll(async () => {
  await srv?.stop();
});

const allLogs = () => srv.logs() + srv.stderr();

interface LogLine {
  msg?: string;
  status?: number;
  route?: string;
  apiKey?: string | null;
  responsible?: string | null;
}
const requestLines = (): LogLine[] => logLines<LogLine>(srv).filter((l) => l.msg === 'request');

describe('per-key rate limit', () => {
  it(`answers the ${LIMIT + 1}th request of a key with 429 in the vacation envelope, while another key still passes`, async () => {
    const limited = client(srv.url, srv.keys['solo-vacaciones']!);
    const form = vacationForm(W.maria, '2026-01-05', 15);
    for (let i = 1; i <= LIMIT; i++) {
      const r = await limited.post('/api/vacaciones/calculate', form);
      expect(r.status, `request ${i}: ${r.text}`).toBe(200);
    }
    const over = await limited.post('/api/vacaciones/calculate', form);
    expect({ status: over.status, body: over.body }).toEqual({
      status: 429,
      body: {
        success: false,
        statusCode: 429,
        message: TOO_MANY,
        errors: { detalle: `Se superó el límite de ${LIMIT} solicitudes por minuto de la API key` },
      },
    });

    // The same key on a lookup endpoint: 429 in that endpoint's envelope, which has no errors.
    const lookup = await limited.get('/api/vacaciones/consultdatavacations', { numeroDocumento: W.maria, emailResponsable: ADMIN });
    expect({ status: lookup.status, body: lookup.body }).toEqual({
      status: 429,
      body: { success: false, statusCode: 429, message: TOO_MANY },
    });

    const other = await client(srv.url, srv.keys.acceptance!).post('/api/vacaciones/calculate', form);
    expect(other.status, other.text).toBe(200);
  });

  it('limits the contract check per key too, in its envelope', async () => {
    const limited = client(srv.url, srv.keys['solo-contratos']!);
    const q = { numeroDocumento: W.maria, emailResponsable: ADMIN };
    for (let i = 1; i <= LIMIT; i++) {
      const r = await limited.get('/api/contratos/verificarContratoActivo', q);
      expect(r.status, `request ${i}: ${r.text}`).toBe(200);
    }
    const over = await limited.get('/api/contratos/verificarContratoActivo', q);
    expect(over.status, over.text).toBe(429);
    expect(over.body).toMatchObject({ success: false, message: TOO_MANY });
    if ('statusCode' in over.body) expect(over.body.statusCode).toBe(429);
  });
});

describe('security headers', () => {
  // What helmet sets with the content security policy turned off (src/http/security-headers.ts).
  const EXPECTED: Record<string, string | RegExp> = {
    'x-content-type-options': 'nosniff',
    'x-frame-options': 'SAMEORIGIN',
    'strict-transport-security': /^max-age=\d+/,
    'x-dns-prefetch-control': 'off',
    'x-download-options': 'noopen',
    'x-permitted-cross-domain-policies': 'none',
    'referrer-policy': 'no-referrer',
    'cross-origin-opener-policy': 'same-origin',
    'cross-origin-resource-policy': 'same-origin',
    'origin-agent-cluster': '?1',
    'x-xss-protection': '0',
  };

  it.each([
    [
      'a success',
      () => client(srv.url, srv.keys.revocable!).post('/api/vacaciones/calculate', vacationForm(W.maria, '2026-01-05', 15)),
      200,
    ],
    ['a 401', () => call(srv.url, '/api/vacaciones/calculate', { key: null, form: vacationForm(W.maria, '2026-01-05', 15) }), 401],
    ['an unknown route', () => call(srv.url, '/api/no-existe', { key: null }), 404],
    ['the health check', () => call(srv.url, '/health', { key: null }), 200],
    ['a page of the panel', () => call(srv.url, '/panel/ingresar', { key: null }), 200],
  ] as const)('are on %s', async (_, send, status) => {
    const r = await send();
    expect(r.status, r.text).toBe(status);
    for (const [name, value] of Object.entries(EXPECTED)) {
      const got = r.headers.get(name);
      if (typeof value === 'string') expect(got, name).toBe(value);
      else expect(got, name).toMatch(value);
    }
    expect(r.headers.get('x-powered-by')).toBeNull();
  });
});

describe('logs', () => {
  it('never contain a key secret, neither a wrong one nor a right one', async () => {
    const wrong = `vac_${randomBytes(32).toString('base64url')}`;
    const before = requestLines().length;
    const refused = await call(srv.url, '/api/vacaciones/calculate', {
      rawKeyHeader: `Bearer ${wrong}`,
      form: vacationForm(W.maria, '2026-01-05', 15),
    });
    expect({ status: refused.status, body: refused.body }).toEqual({ status: 401, body: UNAUTHORIZED });
    const right = await client(srv.url, srv.keys.acceptance!).post('/api/vacaciones/calculate', vacationForm(W.maria, '2026-01-05', 15));
    expect(right.status, right.text).toBe(200);
    // Both requests have been logged before the logs are searched.
    await expect.poll(() => requestLines().length - before, { timeout: 5000 }).toBeGreaterThanOrEqual(2);
    expect(requestLines().some((l) => l.status === 401)).toBe(true);

    const logs = allLogs();
    expect(logs.includes(wrong), 'the wrong key is in the logs').toBe(false);
    for (const [name, secret] of Object.entries(srv.keys)) {
      expect(secret).toMatch(/^vac_/);
      expect(logs.includes(secret), `the secret of ${name} is in the logs`).toBe(false);
      // Not even the random part on its own.
      expect(logs.includes(secret.slice(4)), `the random part of ${name} is in the logs`).toBe(false);
    }
  });

  it('mask the responsible e-mail of failed attempts', async () => {
    const c = client(srv.url, srv.keys.acceptance!);
    const before = requestLines().length;
    const write = await c.post(
      '/api/vacaciones/calculate',
      vacationForm(W.maria, '2026-01-05', 15, { emailUserResponsable: SECRET_EMAIL }),
    );
    expect({ status: write.status, body: write.body }).toMatchObject({
      status: 404,
      body: { success: false, statusCode: 404, message: 'Usuario responsable no encontrado' },
    });
    const lookup = await c.get('/api/vacaciones/consultdatavacations', { numeroDocumento: W.maria, emailResponsable: SECRET_EMAIL });
    expect({ status: lookup.status, body: lookup.body }).toEqual({
      status: 404,
      body: { success: false, statusCode: 404, message: 'Usuario administrador no encontrado para el correo proporcionado.' },
    });
    // Each answer's line is written once it has gone out: wait for both, whatever else was logged between.
    const failedLines = () =>
      requestLines()
        .slice(before)
        .filter((l) => l.status === 404);
    await expect.poll(() => failedLines().length, { timeout: 5000 }).toBe(2);
    const failed = failedLines();
    for (const l of failed) expect(l.responsible).toBe('s***@dominio.co');
    expect(allLogs().includes(SECRET_EMAIL), 'the full address is in the logs').toBe(false);
    expect(allLogs().includes('secreto.persona'), 'the local part is in the logs').toBe(false);
  });
});

describe('a key bound to a person (apikey create --usuario)', () => {
  it('acts only as that person: naming another administrator is 403 in each envelope, and nothing is done', async () => {
    const k = client(srv.url, srv.keys['del-auditor']!);
    // The administrator who may delete, named by a key that is not theirs.
    const del = await k.post('/api/vacaciones/delete', { codigoPila: 'VAC_1_aaaaaaaa_bbbbbbbb', emailUserResponsable: ADMIN });
    expect([del.status, del.body]).toEqual([
      403,
      {
        success: false,
        statusCode: 403,
        message: 'Acceso denegado',
        errors: { apiKey: 'La API key está vinculada a otra persona: solo puede nombrar como responsable a esa persona' },
      },
    ]);
    const consult = await k.get('/api/vacaciones/consultdatavacations', { numeroDocumento: W.maria, emailResponsable: ADMIN });
    expect([consult.status, consult.body]).toEqual([403, { success: false, statusCode: 403, message: 'Acceso denegado' }]);
    const contract = await k.get('/api/contratos/verificarContratoActivo', { numeroDocumento: W.maria, emailResponsable: ADMIN });
    expect(contract.status).toBe(403);
    expect(contract.body).toMatchObject({ success: false, status: 403 });
    // Its own person, in any case, goes through.
    const own = await k.post(
      '/api/vacaciones/calculate',
      vacationForm(W.maria, '2026-12-01', 6, { emailUserResponsable: AUDITOR.toUpperCase() }),
    );
    expect(own.status, own.text).toBe(200);
  });
});

describe('api_keys', () => {
  it('stores only hashes of the keys', () => {
    expect(apiKeyRows.map((r) => r.name)).toEqual([
      'acceptance',
      'del-auditor',
      'personal',
      'revocable',
      'solo-contratos',
      'solo-vacaciones',
    ]);
    const stored = JSON.stringify(apiKeyRows);
    for (const [name, secret] of Object.entries(srv.keys)) {
      expect(stored.includes(secret), `the secret of ${name} is stored`).toBe(false);
      expect(stored.includes(secret.slice(4)), `the random part of ${name} is stored`).toBe(false);
    }
    for (const r of apiKeyRows) expect(r.key_hash).toMatch(/^[0-9a-f]{64}$/);
  });

  it('refuses a revoked key on the very next request', async (ctx) => {
    if (!srv.postgres) ctx.skip('needs a PostgreSQL server: on PGlite the CLI cannot open the database the server holds');
    const k = client(srv.url, srv.keys.revocable!);
    const q = { numeroDocumento: W.maria, emailResponsable: ADMIN };
    const ok = await k.get('/api/vacaciones/consultdatavacations', q);
    expect(ok.status, ok.text).toBe(200);
    const r = await srv.cli(['apikey', 'revoke', 'revocable']);
    expect(r.code, r.stderr).toBe(0);
    const after = await k.get('/api/vacaciones/consultdatavacations', q);
    expect({ status: after.status, body: after.body }).toEqual({ status: 401, body: UNAUTHORIZED });
  });
});

describe('answers with personal data', () => {
  it('are never kept by a cache (Cache-Control: no-store)', async () => {
    const k = client(srv.url, srv.keys.personal!);
    const who = { numeroDocumento: W.maria, emailResponsable: ADMIN };
    for (const path of ['/api/vacaciones', '/api/vacaciones/consultdatavacations', '/api/auditoria/exportar']) {
      const r = await k.get(path, who);
      expect(r.status, `${path}: ${r.text.slice(0, 200)}`).toBe(200);
      expect(r.headers.get('cache-control'), path).toBe('no-store');
    }
  });
});

describe('the documentation page', () => {
  it('has a content security policy that runs no script but its own', async () => {
    const r = await call(srv.url, '/docs/', { key: null });
    expect(r.status).toBe(200);
    const csp = r.headers.get('content-security-policy') ?? '';
    expect(csp).toMatch(/default-src 'self'/);
    expect(csp).toMatch(/object-src 'none'/);
    expect(csp).toMatch(/script-src 'self'/);
    expect(csp).not.toMatch(/unsafe-inline|unsafe-eval/);
  });
});
