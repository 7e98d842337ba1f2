import { randomBytes, scryptSync } from 'node:crypto';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { FREE_FAILURES, LOCK_AFTER_FAILURES, createInvite } from '../../../src/panel/accounts.ts';
import { SESSION_MAX_MS } from '../../../src/panel/session-store.ts';
import { ADMIN, AUDITOR, W } from '../../support/http.ts';
import { PANEL_PASSWORD, PanelClient, expectSignInPage, message, startPanelService, type PanelService } from '../../support/panel.ts';

/** The panel against a hostile visitor: what a proxy header, odd bytes or a weak password may do. */
/** A worker whose names carry right-to-left override and isolate characters. */
const TURNED = { document: '7700000098', names: { nombres: 'Juan\u202Egnp.exe', apellidos: 'Pérez\u2067Gómez\u2069' } } as const;

let p: PanelService;
const logs: Record<string, unknown>[] = [];
beforeAll(async () => {
  // One proxy in front, which appends the address it saw to X-Forwarded-For.
  p = await startPanelService(
    { TRUST_PROXY: '1' },
    {
      accounts: [ADMIN, AUDITOR],
      logs,
      fixture: (data) => data.asociados.push({ id: 1098, tipoDocumento: 'CC', numeroDocumento: TURNED.document, ...TURNED.names }),
    },
  );
});
afterAll(async () => {
  await p?.stop();
});

describe('TRUST_PROXY as a number of hops', () => {
  it('throttles by the address the nearest proxy saw, whatever a client writes to the left of it', async () => {
    const email = 'probador@empresa.co';
    for (let i = 0; i < FREE_FAILURES + 2; i++) {
      const c = new PanelClient(p.service, { 'x-forwarded-for': `198.51.100.${i}, 203.0.113.7` });
      expect([401, 429]).toContain((await c.signIn(email, `mala-${i}`)).status);
    }
    // Every try was counted against the one address the proxy saw (waiting ones are not counted).
    const rows = await p.service.db.query<{ client: string }>('SELECT client FROM panel_sign_in_failures WHERE email = $1', [email]);
    expect(rows.rows).toEqual([{ client: '203.0.113.7' }]);
  });
});

describe('a NUL byte anywhere in a request', () => {
  it('gets 400 from the panel before and after sign-in, never a 500', async () => {
    const anon = new PanelClient(p.service);
    await anon.get('/panel/ingresar');
    expect((await anon.post('/panel/ingresar', { email: 'a\u0000b@x.co', password: 'lo-que-sea-1234' })).status).toBe(400);
    const c = new PanelClient(p.service);
    expect((await c.signIn(ADMIN)).status).toBe(303);
    const statuses: Record<string, number> = {};
    for (const url of [
      '/panel/trabajador?q=%00',
      '/panel/trabajador/%00',
      `/panel/trabajador/${W.maria}%00`,
      '/panel/auditoria?documento=%00',
      '/panel/auditoria/exportar?documento=%00&formato=csv',
      '/panel/ocupacion?subgerencia=%00',
      '/panel/vacaciones/%00/eliminar',
    ]) {
      statuses[url] = (await c.get(url)).status;
    }
    await c.get(`/panel/trabajador/${W.maria}`);
    for (const [url, form] of [
      [`/panel/trabajador/${W.maria}/vacaciones`, { vacFechaInicio: '2026-12-01\u0000', vacDiasVacaciones: '6', accion: 'reservar' }],
      ['/panel/vacaciones/VAC_1%00/aprobar', {}],
      ['/panel/vacaciones/%00/eliminar', {}],
      ['/panel/vacaciones/%00/interrumpir', { fechaInterrupcion: '2026-12-09', motivo: 'otro' }],
    ] as const) {
      statuses[`POST ${url}`] = (await c.post(url, form)).status;
    }
    for (const [what, status] of Object.entries(statuses)) expect([400, 404], `${what} answered ${status}`).toContain(status);
  });
});

describe('passwords', () => {
  it('refuses whitespace only, few different characters, the e-mail itself and the commonest passwords', async () => {
    const c = new PanelClient(p.service);
    const { token } = await createInvite(p.service.db, AUDITOR);
    await c.get(`/panel/invitacion/${token}`);
    const tryPassword = async (password: string) => {
      const r = await c.post(`/panel/invitacion/${token}`, { password, confirmation: password });
      return [r.status, message(r.body)];
    };
    expect(await tryPassword(' '.repeat(12))).toEqual([422, 'La contraseña no puede ser solo espacios.']);
    expect(await tryPassword('a'.repeat(12))).toEqual([422, 'La contraseña debe tener al menos 4 caracteres distintos.']);
    expect(await tryPassword('abababababab')).toEqual([422, 'La contraseña debe tener al menos 4 caracteres distintos.']);
    expect(await tryPassword(AUDITOR.toUpperCase())).toEqual([422, 'La contraseña no puede contener su correo.']);
    for (const common of ['password1234', 'qwertyuiop123', '1q2w3e4r5t6y']) {
      expect(await tryPassword(common)).toEqual([422, 'Esa contraseña está entre las más usadas y se adivina pronto: elija otra.']);
    }
    expect((await tryPassword(PANEL_PASSWORD))[0]).toBe(303);
  });

  /** The settings of a stored hash, and whether it verifies the panel's password. */
  const hashed = (stored: string) => {
    const [kind, n, r, q, salt, hash] = stored.split('$');
    const [N, rr, pp] = [Number(n), Number(r), Number(q)];
    const key = scryptSync(PANEL_PASSWORD, Buffer.from(salt!, 'base64url'), 32, { N, r: rr, p: pp, maxmem: 160 * 1024 * 1024 });
    return { kind, N, r: rr, p: pp, work: N * rr * pp, memory: 128 * rr * N, verifies: key.toString('base64url') === hash };
  };
  const oldHash = (N: number, pp: number) => {
    const salt = randomBytes(16);
    const key = scryptSync(PANEL_PASSWORD, salt, 32, { N, r: 8, p: pp, maxmem: 160 * 1024 * 1024 });
    return ['scrypt', N, 8, pp, salt.toString('base64url'), key.toString('base64url')].join('$');
  };

  it("are hashed with scrypt at the work of OWASP's N=2^17, r=8 in 64 MiB, and a hash made otherwise is redone at the next sign-in", async () => {
    const hashOf = async () =>
      (await p.service.db.query<{ h: string }>('SELECT password_hash AS h FROM panel_accounts WHERE email = $1', [AUDITOR])).rows[0]!.h;
    // A weaker hash of an early release, then one at N=2^17 (the same work in twice the memory).
    for (const [N, pp, client] of [
      [16384, 1, '203.0.113.20'],
      [2 ** 17, 1, '203.0.113.22'],
    ] as const) {
      await p.service.db.query('UPDATE panel_accounts SET password_hash = $2 WHERE email = $1', [AUDITOR, oldHash(N, pp)]);
      const c = new PanelClient(p.service, { 'x-forwarded-for': client });
      expect((await c.signIn(AUDITOR)).status).toBe(303);
      const now = hashed(await hashOf());
      expect(now).toMatchObject({ kind: 'scrypt', r: 8, verifies: true });
      expect(now.work).toBeGreaterThanOrEqual(2 ** 17 * 8);
      expect(now.memory).toBeLessThanOrEqual(64 * 1024 * 1024);
    }
    // The new hash takes the same password, and is not redone again.
    const settled = await hashOf();
    expect((await new PanelClient(p.service, { 'x-forwarded-for': '203.0.113.21' }).signIn(AUDITOR)).status).toBe(303);
    expect(await hashOf()).toBe(settled);
  });
});

describe('sessions', () => {
  it(`end ${SESSION_MAX_MS / 3600_000} hours after sign-in, however busy`, async () => {
    const c = new PanelClient(p.service, { 'x-forwarded-for': '203.0.113.30' });
    expect((await c.signIn(ADMIN)).status).toBe(303);
    const row = async () =>
      (
        await p.service.db.query<{ left: string }>(
          `SELECT extract(epoch FROM expires_at - to_timestamp((data->>'signedInAt')::double precision / 1000))::text AS left
             FROM panel_sessions WHERE email = $1 ORDER BY expires_at DESC LIMIT 1`,
          [ADMIN],
        )
      ).rows[0]!;
    expect(Number((await row()).left)).toBeLessThanOrEqual(SESSION_MAX_MS / 1000);
    expect((await c.get('/panel/operacion')).status).toBe(200);
    // Signed in 12 hours and a minute ago, and busy since: the row's expiry is still ahead.
    await p.service.db.query(
      `UPDATE panel_sessions SET data = jsonb_set(data, '{signedInAt}', to_jsonb($2::double precision)), expires_at = now() + interval '1 hour'
        WHERE email = $1`,
      [ADMIN, Date.now() - SESSION_MAX_MS - 60_000],
    );
    expectSignInPage(await c.get('/panel/operacion'));
  });
});

describe('the log', () => {
  it('names each failed sign-in and each lock by masked e-mail and client address, never the password', { timeout: 600_000 }, async () => {
    const email = 'intruso.persistente@empresa.co';
    const c = new PanelClient(p.service, { 'x-forwarded-for': '203.0.113.40' });
    for (let i = 0; i < LOCK_AFTER_FAILURES; i++) {
      await p.service.db.query(`UPDATE panel_sign_in_failures SET last_failure = now() - interval '1 day' WHERE email = $1`, [email]);
      await c.signIn(email, `clave-secreta-${i}`);
    }
    const mine = logs.filter((l) => l.client === '203.0.113.40');
    expect(mine.filter((l) => l.msg === 'panel sign-in refused')).toHaveLength(LOCK_AFTER_FAILURES - 1);
    expect(mine.filter((l) => l.msg === 'panel sign-in locked')).toEqual([
      expect.objectContaining({ email: 'i***@empresa.co', client: '203.0.113.40', minutes: expect.any(Number) }),
    ]);
    for (const l of mine) expect(l.email).toBe('i***@empresa.co');
    const text = JSON.stringify(logs);
    expect(text).not.toContain(email);
    expect(text).not.toContain('clave-secreta');
  });
});

describe('names with bidirectional control characters', () => {
  it('are shown with the controls neutralised, in the search and on the worker page', async () => {
    const c = new PanelClient(p.service, { 'x-forwarded-for': '203.0.113.50' });
    expect((await c.signIn(ADMIN)).status).toBe(303);
    for (const url of [`/panel/trabajador/${TURNED.document}`, '/panel/trabajador?q=Juan']) {
      const r = await c.get(url);
      expect(r.status, url).toBe(200);
      expect(r.body, url).not.toMatch(/[\u202A-\u202E\u2066-\u2069]/);
      expect(r.body, url).toContain('Juan\uFFFDgnp.exe');
    }
  });
});
