import type { AddressInfo } from 'node:net';
import fc from 'fast-check';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { API_KEY_SCOPES, createApiKey } from '../../src/security/api-keys.ts';
import { HISTORIC_CODES } from '../support/reliability-fuzz.ts';
import { W } from '../support/http.ts';
import { PANEL_PASSWORD, startPanelService, type PanelService } from '../support/panel.ts';
import {
  bodyOf,
  hostileValue,
  operationsOf,
  panelRoutesOf,
  queryString,
  requestFor,
  type GeneratedRequest,
  type Operation,
} from '../support/openapi-fuzz.ts';

/**
 * Property-based fuzzing of the whole interface, generated from what the running service says of
 * itself: every operation of its /openapi.json and every route in its router under /panel
 * (signed in, so that the pages are reached past the sign-in). Whatever comes (deep nesting, far
 * dates, huge and negative numbers, long strings, repeated and re-cased names, wrong types, as
 * query, form, multipart or JSON), no answer is a 5xx.
 *
 * `npm test` runs a fixed seed and a bounded count; `npm run test:fuzz` a random seed and more
 * runs. FUZZ_SEED replays a seed (printed when a run fails), FUZZ_SCALE multiplies the runs.
 */

const SEED = process.env.FUZZ_SEED === 'random' ? Math.floor(Math.random() * 2 ** 31) : Number(process.env.FUZZ_SEED ?? 20261121);
const SCALE = Number(process.env.FUZZ_SCALE ?? 1);
const API_RUNS = Math.round(100 * SCALE);
const PANEL_RUNS = Math.round(40 * SCALE);
/** An account of its own, whose e-mail no generated value names, so that fuzzed sign-ins never lock it. */
const PANEL_USER = 'fuzz.panel@empresa.co';

let svc: PanelService;
let base: string;
let key: string;
let operations: Operation[];
let panelRoutes: { method: 'GET' | 'POST'; path: string }[];

/** The service's body limit (BODY_LIMIT_BYTES' default): past it, the service may close the connection while the body is sent. */
const BODY_LIMIT = 65536;
const bytesOf = (body: string | FormData | undefined): number =>
  body === undefined
    ? 0
    : typeof body === 'string'
      ? Buffer.byteLength(body)
      : [...body.entries()].reduce((n, [k, v]) => n + Buffer.byteLength(k) + Buffer.byteLength(String(v)) + 100, 0);

/** fetch, or null when the service refused an oversized body by closing the connection before reading it. */
async function fetchOrClosed(url: string, init: RequestInit): Promise<Response | null> {
  try {
    return await fetch(url, init);
  } catch (err) {
    if (bytesOf(init.body as string | FormData | undefined) > BODY_LIMIT) return null;
    throw err;
  }
}

const logs: Record<string, unknown>[] = [];
/** What a failed assertion says: the request, the answer and the error the service logged for it. */
function failing(what: string, status: number, text: string): string {
  const err = logs.findLast((l) => (l.level as number) >= 50 && l.err) as { err?: { message?: string; stack?: string } } | undefined;
  const logged = status >= 500 && err ? `\nlogged: ${err.err?.stack?.split('\n').slice(0, 6).join('\n')}` : '';
  return `${what} → ${status} ${text.slice(0, 300)}${logged}\n(FUZZ_SEED=${SEED} replays this run)`;
}

/** A browser's cookies and the CSRF tokens of its last pages, over real HTTP. */
class Browser {
  private readonly jar = new Map<string, string>();
  sessionToken = '';
  formToken = '';

  async send(method: string, path: string, o: { body?: string | FormData; contentType?: string; from?: string } = {}) {
    const headers = new Headers({ 'x-forwarded-for': o.from ?? '10.9.9.9' });
    if (this.jar.size) headers.set('cookie', [...this.jar].map(([k, v]) => `${k}=${v}`).join('; '));
    if (o.contentType) headers.set('content-type', o.contentType);
    const res = await fetchOrClosed(`${base}${path}`, { method, headers, body: o.body, redirect: 'manual' });
    if (res === null) return { status: 413, text: '', location: null };
    for (const c of res.headers.getSetCookie()) {
      const [pair = ''] = c.split(';');
      const at = pair.indexOf('=');
      const name = pair.slice(0, at);
      const value = pair.slice(at + 1);
      if (value === '' || /max-age=0|expires=thu, 01 jan 1970/i.test(c)) this.jar.delete(name);
      else this.jar.set(name, value);
    }
    const text = await res.text();
    return { status: res.status, text, location: res.headers.get('location') };
  }

  private signIns = 0;

  /** Signs in from an address of its own each time, so that the sign-in's per-address budget is never spent. */
  async signIn(): Promise<void> {
    this.jar.clear();
    const from = `10.200.${(++this.signIns >> 8) & 255}.${this.signIns & 255}`;
    const page = await this.send('GET', '/panel/ingresar', { from });
    this.formToken = /name="_csrf" value="([^"]+)"/.exec(page.text)?.[1] ?? '';
    const form = new URLSearchParams({ _csrf: this.formToken, email: PANEL_USER, password: PANEL_PASSWORD }).toString();
    const r = await this.send('POST', '/panel/ingresar', { body: form, contentType: 'application/x-www-form-urlencoded', from });
    expect(r.status, r.text.slice(0, 300)).toBe(303);
    const home = await this.send('GET', '/panel', { from });
    expect(home.status).toBe(200);
    this.sessionToken = /name="_csrf" value="([^"]+)"/.exec(home.text)?.[1] ?? '';
  }
}

let browser: Browser;
/** Answers by status class and family, so that a run shows it reached past validation. */
const seen = new Map<string, number>();
const tally = (family: string, status: number) =>
  seen.set(`${family} ${Math.floor(status / 100)}xx`, (seen.get(`${family} ${Math.floor(status / 100)}xx`) ?? 0) + 1);

beforeAll(async () => {
  svc = await startPanelService(
    { RATE_LIMIT_PER_MINUTE: '0', TRUST_PROXY: '1' },
    {
      accounts: [PANEL_USER],
      logs,
      fixture: (data) => {
        data.usuarios.push({
          id: 900,
          email: PANEL_USER,
          nombre: 'Prueba de fuzzing',
          administrador: true,
          permisos: ['vacaciones:eliminar'],
        });
      },
    },
  );
  const app = svc.service.app;
  await app.listen({ host: '127.0.0.1', port: 0 });
  base = `http://127.0.0.1:${(app.server.address() as AddressInfo).port}`;
  key = (await createApiKey(svc.service.db, { name: 'fuzz', scopes: API_KEY_SCOPES })).key;
  const doc = (await (await fetch(`${base}/openapi.json`)).json()) as Record<string, unknown>;
  operations = operationsOf(doc).filter((o) => o.envelope !== null);
  panelRoutes = panelRoutesOf(app.printRoutes({ commonPrefix: false }));
  browser = new Browser();
  await browser.signIn();
});
afterAll(async () => {
  console.log(`fuzz seed ${SEED}: ${[...seen].map(([k, v]) => `${k}: ${v}`).join(', ')}`);
  await svc?.stop();
});

const segment = fc.oneof(
  fc.constantFrom(...HISTORIC_CODES, ...Object.values(W), 'xlsx', 'csv', 'pdf'),
  hostileValue.filter((t) => t !== '' && encodeURIComponent(t).length <= 100),
);

function fill(path: string, r: GeneratedRequest): string {
  return path.replace(/\{(\w+)\}|:(\w+)/g, (_, a: string | undefined, b: string | undefined) =>
    encodeURIComponent(r.segments[a ?? b!] ?? 'x'),
  );
}

describe('every operation of /openapi.json', () => {
  it('finds the operations and the panel routes to fuzz', () => {
    expect(operations.length).toBeGreaterThanOrEqual(15);
    expect(panelRoutes.map((r) => `${r.method} ${r.path}`)).toEqual(
      expect.arrayContaining(['GET /panel/calendario', 'GET /panel/ocupacion', 'POST /panel/ingresar']),
    );
  });

  it('answers every generated request with something other than a 5xx', { timeout: 120_000 * SCALE }, async () => {
    let n = 0;
    for (const op of operations) {
      const pathNames = op.params.filter((p) => p.in === 'path').map((p) => p.name);
      const fields = op.params.filter((p) => p.in !== 'path');
      await fc.assert(
        fc.asyncProperty(requestFor(fields, pathNames, { segment }), async (r) => {
          const path = fill(op.path, r);
          const headers = new Headers({ 'x-api-key': `Bearer ${key}` });
          let url = `${base}${path}`;
          let body: string | FormData | undefined;
          if (op.method === 'GET') url += queryString(r.pairs).slice(0, 8000);
          else {
            const b = bodyOf(r, n++);
            body = b.body;
            if (b.contentType) headers.set('content-type', b.contentType);
            if (op.idempotent && r.idempotencyKey) headers.set('idempotency-key', r.idempotencyKey);
          }
          const res = await fetchOrClosed(url, { method: op.method, headers, body });
          if (res === null) return;
          const text = await res.text();
          tally('api', res.status);
          expect(res.status, failing(`${op.method} ${path}`, res.status, text)).toBeLessThan(500);
          if (res.status >= 400 && res.headers.get('content-type')?.startsWith('application/json')) {
            expect((JSON.parse(text) as { success?: unknown }).success, failing(op.path, res.status, text)).toBe(false);
          }
        }),
        { numRuns: API_RUNS, seed: SEED, endOnFailure: true },
      );
    }
  });
});

/** Parameters the panel's pages read, beside whatever else a caller may send. */
const PANEL_FIELDS = [
  'mes',
  'desde',
  'hasta',
  'dia',
  'sg',
  'subgerencia',
  'vista',
  'pagina',
  'q',
  'documento',
  'fecha',
  'retiro',
  'formato',
]
  .concat(['volver', 'email', 'password', 'confirmation', 'vacFechaInicio', 'vacDiasVacaciones', 'motivo', 'fechaInterrupcion', 'codigo'])
  .map((name) => ({ name, schema: {} }));

describe('every route of the panel, signed in', () => {
  it('answers every generated request with something other than a 5xx', { timeout: 120_000 * SCALE }, async () => {
    let n = 0;
    for (const route of panelRoutes) {
      const pathNames = [...route.path.matchAll(/:(\w+)/g)].map((m) => m[1]!);
      await fc.assert(
        fc.asyncProperty(requestFor(PANEL_FIELDS, pathNames, { segment, value: hostileValue }), fc.ipV4(), async (r, from) => {
          const path = fill(route.path, r);
          const open = /^\/panel\/(ingresar|invitacion)/.test(route.path);
          let answer;
          if (route.method === 'GET') answer = await browser.send('GET', path + queryString(r.pairs).slice(0, 8000), { from });
          else {
            const withToken: GeneratedRequest = { ...r, pairs: [['_csrf', open ? browser.formToken : browser.sessionToken], ...r.pairs] };
            const b = bodyOf(withToken, n++);
            answer = await browser.send('POST', path, { ...b, from });
          }
          tally('panel', answer.status);
          expect(answer.status, failing(`${route.method} ${path}`, answer.status, answer.text)).toBeLessThan(500);
          // Signed out (by /panel/salir): signed in again.
          if (answer.location?.startsWith('/panel/ingresar')) await browser.signIn();
        }),
        { numRuns: PANEL_RUNS, seed: SEED, endOnFailure: true },
      );
    }
  });
});
