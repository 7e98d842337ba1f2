import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { expect } from 'vitest';
import { loadConfig } from '../../src/config/config.ts';
import { migrate } from '../../src/migrations.ts';
import { PgliteDb } from '../../src/db/pglite.ts';
import type { Db } from '../../src/db/types.ts';
import { createLogger } from '../../src/logger.ts';
import { acceptInvite, createInvite } from '../../src/panel/accounts.ts';
import { importReferenceData } from '../../src/reference/import.ts';
import { createService, type Service } from '../../src/service.ts';
import { freshDb } from './db.ts';
import { TODAY, loadFixture } from './server.ts';

export const PANEL_PASSWORD = 'vacaciones-de-prueba-1';

export interface PanelService {
  service: Service;
  stop(): Promise<void>;
}

/**
 * The whole service in this process, over a database of its own with the fixture imported, for
 * tests that drive the panel with fastify's inject. `env` adds to the configuration;
 * `fixture` changes the reference data before it is imported; `beforeStart` writes to the
 * database before the service opens it.
 */
export async function startPanelService(
  env: Record<string, string> = {},
  opts: {
    accounts?: string[];
    fixture?: (data: ReturnType<typeof loadFixture>) => void;
    beforeStart?: (db: Db) => Promise<void>;
    /** Receives the service's log lines (JSON, level info and above) when given. */
    logs?: Record<string, unknown>[];
  } = {},
): Promise<PanelService> {
  const t = await freshDb();
  const data = loadFixture();
  opts.fixture?.(data);
  let dataDir: string | undefined;
  if (t.url === undefined) {
    // PGlite: the service opens its own directory, so the fixture goes in before it starts.
    await t.drop();
    dataDir = mkdtempSync(join(tmpdir(), 'vac-panel-'));
    const db = await PgliteDb.open(join(dataDir, 'pglite'));
    await migrate(db);
    await importReferenceData(db, data);
    await opts.beforeStart?.(db);
    await db.close();
  } else {
    await importReferenceData(t.db, data);
    await opts.beforeStart?.(t.db);
  }
  const config = loadConfig({
    DATABASE_URL: t.url ?? '',
    DATA_DIR: dataDir ?? '',
    VACACIONES_TODAY: TODAY,
    LOG_LEVEL: 'silent',
    PORT: '0',
    ...env,
  });
  const logs = opts.logs;
  const logger = logs
    ? createLogger({ logLevel: 'info' }, { write: (line: string) => void logs.push(JSON.parse(line) as Record<string, unknown>) })
    : createLogger(config);
  const service = await createService(config, logger);
  for (const email of opts.accounts ?? []) {
    const invite = await createInvite(service.db, email);
    await acceptInvite(service.db, invite.token, PANEL_PASSWORD);
  }
  return {
    service,
    async stop() {
      await service.close().catch(() => {});
      if (t.url !== undefined) await t.drop();
      if (dataDir) rmSync(dataDir, { recursive: true, force: true });
    },
  };
}

export interface PanelAnswer {
  status: number;
  headers: Record<string, string | string[] | undefined>;
  body: string;
  location: string | undefined;
}

/**
 * A person's browser, reduced to what the tests need: cookies kept, forms posted with their token.
 * It talks to a service in this process (fastify's inject) or, given its address, to a server
 * over HTTP.
 */
export class PanelClient {
  readonly cookies = new Map<string, string>();
  private lastToken: string | undefined;

  constructor(
    private readonly service: Service | string,
    private readonly headers: Record<string, string> = {},
  ) {}

  async get(url: string): Promise<PanelAnswer> {
    return this.send('GET', url);
  }

  /**
   * Posts a form; `_csrf` is the token of the last page read unless the form names its own. A
   * form of many lines comes as pairs, a name once for each line.
   */
  async post(url: string, form: Record<string, string> | [string, string][]): Promise<PanelAnswer> {
    const token = this.lastToken ?? '';
    const fields = Array.isArray(form)
      ? new URLSearchParams(form.some(([k]) => k === '_csrf') ? form : [['_csrf', token], ...form])
      : new URLSearchParams({ _csrf: token, ...form });
    return this.send('POST', url, fields.toString());
  }

  async signIn(email: string, password = PANEL_PASSWORD): Promise<PanelAnswer> {
    await this.get('/panel/ingresar');
    return this.post('/panel/ingresar', { email, password });
  }

  private async send(method: 'GET' | 'POST', url: string, payload?: string): Promise<PanelAnswer> {
    const cookie = [...this.cookies].map(([k, v]) => `${k}=${v}`).join('; ');
    const headers = {
      ...this.headers,
      ...(cookie ? { cookie } : {}),
      ...(payload !== undefined ? { 'content-type': 'application/x-www-form-urlencoded' } : {}),
    };
    const r =
      typeof this.service === 'string'
        ? await overHttp(this.service, method, url, headers, payload)
        : await this.inject(method, url, headers, payload);
    for (const c of r.cookies) {
      if (c.value === '' || (c.expires && c.expires.getTime() < Date.now()) || c.maxAge === 0) this.cookies.delete(c.name);
      else this.cookies.set(c.name, c.value);
    }
    const token = /name="_csrf" value="([^"]+)"/.exec(r.answer.body)?.[1];
    if (token) this.lastToken = token;
    return r.answer;
  }

  private async inject(method: 'GET' | 'POST', url: string, headers: Record<string, string>, payload?: string): Promise<Exchange> {
    const r = await (this.service as Service).app.inject({ method, url, payload, headers });
    return {
      cookies: r.cookies as SetCookie[],
      answer: {
        status: r.statusCode,
        headers: r.headers as PanelAnswer['headers'],
        body: r.body,
        location: r.headers.location as string | undefined,
      },
    };
  }
}

interface SetCookie {
  name: string;
  value: string;
  expires?: Date;
  maxAge?: number;
}

interface Exchange {
  answer: PanelAnswer;
  cookies: SetCookie[];
}

/** One request to a server over HTTP, redirects not followed, the cookies it sets read as inject gives them. */
async function overHttp(base: string, method: string, url: string, headers: Record<string, string>, payload?: string): Promise<Exchange> {
  const r = await fetch(`${base}${url}`, { method, headers, body: payload, redirect: 'manual' });
  const cookies = r.headers.getSetCookie().map((line): SetCookie => {
    const [pair = '', ...attributes] = line.split(';').map((p) => p.trim());
    const at = pair.indexOf('=');
    const c: SetCookie = { name: pair.slice(0, at), value: pair.slice(at + 1) };
    for (const a of attributes) {
      const [k = '', v = ''] = a.split('=');
      if (k.toLowerCase() === 'expires') c.expires = new Date(v);
      if (k.toLowerCase() === 'max-age') c.maxAge = Number(v);
    }
    return c;
  });
  const answerHeaders: PanelAnswer['headers'] = {};
  r.headers.forEach((v, k) => (answerHeaders[k] = v));
  return {
    cookies,
    answer: { status: r.status, headers: answerHeaders, body: await r.text(), location: r.headers.get('location') ?? undefined },
  };
}

/** The text of the page's alert or status message. */
export function message(body: string): string | undefined {
  return /role="(?:alert|status)">([^<]*)</.exec(body)?.[1];
}

export function expectSignInPage(r: PanelAnswer): void {
  expect(r.status === 303 ? r.location : undefined, r.body.slice(0, 300)).toMatch(/^\/panel\/ingresar/);
}
