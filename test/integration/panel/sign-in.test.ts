import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import {
  FREE_FAILURES,
  LOCK_AFTER_FAILURES,
  PanelAccountError,
  LOCK_MINUTES,
  createInvite,
  listAccounts,
  pendingInvites,
  revokeAccount,
  sha256,
} from '../../../src/panel/accounts.ts';
import { PANEL_CSP, SESSION_COOKIE } from '../../../src/panel/index.ts';
import { ADDRESS_ATTEMPTS, ADDRESS_WINDOW_MS } from '../../../src/panel/throttle.ts';
import { ADMIN, AUDITOR, EMPLOYEE } from '../../support/http.ts';
import { PANEL_PASSWORD, PanelClient, expectSignInPage, message, startPanelService, type PanelService } from '../../support/panel.ts';

let p: PanelService;
beforeAll(async () => {
  p = await startPanelService({ TRUST_PROXY: '127.0.0.1' }, { accounts: [ADMIN, AUDITOR] });
});
afterAll(async () => {
  await p?.stop();
});

const setCookie = (r: { headers: Record<string, unknown> }) =>
  [r.headers['set-cookie'] ?? []]
    .flat()
    .map(String)
    .find((c) => c.startsWith(`${SESSION_COOKIE}=`));

describe('signing in', () => {
  it('answers with a session cookie that is HttpOnly, SameSite=Strict and scoped to /panel, and pages with a strict CSP', async () => {
    const c = new PanelClient(p.service);
    const form = await c.get('/panel/ingresar');
    expect(form.headers['content-security-policy']).toBe(PANEL_CSP);
    const r = await c.post('/panel/ingresar', { email: ADMIN, password: PANEL_PASSWORD });
    expect(r.status).toBe(303);
    const cookie = setCookie(r)!;
    expect(cookie).toMatch(/; HttpOnly/);
    expect(cookie).toMatch(/; SameSite=Strict/);
    expect(cookie).toMatch(/; Path=\/panel/);
    expect(cookie).not.toMatch(/; Secure/);
    const page = await c.get('/panel/operacion');
    expect(page.status).toBe(200);
    expect(page.body).toContain('admin@empresa.co');
  });

  it('marks the cookie Secure when a trusted proxy says the browser came over TLS', async () => {
    const c = new PanelClient(p.service, { 'x-forwarded-proto': 'https' });
    await c.get('/panel/ingresar');
    const r = await c.post('/panel/ingresar', { email: ADMIN, password: PANEL_PASSWORD });
    expect(r.status).toBe(303);
    expect(setCookie(r)).toMatch(/; Secure/);
  });

  it('gives a new session id at sign-in, so an id known before is worth nothing after', async () => {
    const c = new PanelClient(p.service);
    // A session before signing in: the one that carries "password saved" from an invitation.
    const invite = await createInvite(p.service.db, AUDITOR);
    await c.get(`/panel/invitacion/${invite.token}`);
    await c.post(`/panel/invitacion/${invite.token}`, { password: PANEL_PASSWORD, confirmation: PANEL_PASSWORD });
    const before = c.cookies.get(SESSION_COOKIE);
    expect(before).toBeDefined();
    expect(message((await c.get('/panel/ingresar')).body)).toContain('Contraseña guardada');
    await c.post('/panel/ingresar', { email: AUDITOR, password: PANEL_PASSWORD });
    expect(c.cookies.get(SESSION_COOKIE)).not.toBe(before);
    const planted = new PanelClient(p.service);
    planted.cookies.set(SESSION_COOKIE, before!);
    expectSignInPage(await planted.get('/panel/operacion'));
  });

  it('stores nothing for a visit: the sign-in and invitation forms, a failed sign-in, a page behind sign-in', async () => {
    const sessions = async () =>
      Number((await p.service.db.query<{ n: string }>('SELECT count(*)::text AS n FROM panel_sessions')).rows[0]!.n);
    const before = await sessions();
    const c = new PanelClient(p.service);
    const invite = await createInvite(p.service.db, AUDITOR);
    expect((await c.get(`/panel/invitacion/${invite.token}`)).status).toBe(200);
    expect((await c.post(`/panel/invitacion/${invite.token}`, { password: 'corta', confirmation: 'corta' })).status).toBe(422);
    expect((await c.get('/panel/ingresar')).status).toBe(200);
    expect((await c.post('/panel/ingresar', { email: ADMIN, password: 'no-es-la-clave' })).status).toBe(401);
    expectSignInPage(await c.get('/panel/ocupacion'));
    expect(c.cookies.has(SESSION_COOKIE)).toBe(false);
    expect(await sessions()).toBe(before);
    // The forms' tokens hang on a signed cookie of their own: one made up is refused.
    c.cookies.set('vacaciones_panel_form', 'inventado.firma');
    expect((await c.post('/panel/ingresar', { email: ADMIN, password: PANEL_PASSWORD })).status).toBe(403);
  });

  it('refuses a form without the session CSRF token, with a message and no trace', async () => {
    const c = new PanelClient(p.service);
    await c.get('/panel/ingresar');
    const r = await c.post('/panel/ingresar', { _csrf: 'forged', email: ADMIN, password: PANEL_PASSWORD });
    expect(r.status).toBe(403);
    expect(message(r.body)).toContain('El formulario caducó');
    expect(r.body).not.toMatch(/Error|at .*\.ts/);
    expectSignInPage(await c.get('/panel/operacion'));
  });

  it('says the same of a wrong password, an unknown e-mail and a non-administrator', async () => {
    const answers = [];
    for (const [email, password] of [
      [AUDITOR, 'otra-clave-cualquiera'],
      ['nadie@empresa.co', PANEL_PASSWORD],
      [EMPLOYEE, PANEL_PASSWORD],
    ] as const) {
      const r = await new PanelClient(p.service).signIn(email, password);
      answers.push([r.status, message(r.body)]);
    }
    expect(answers).toEqual(Array(3).fill([401, 'Correo o contraseña incorrectos.']));
  });

  // A score of sign-ins, each hashed with scrypt at N=2^17 (a second or more of work on a busy machine).
  it(
    'slows repeated failures down, then locks the e-mail; the right password does not get through meanwhile',
    { timeout: 600_000 },
    async () => {
      const email = 'probador@empresa.co';
      const c = new PanelClient(p.service, { 'x-forwarded-for': '10.0.0.6' });
      for (let i = 0; i < FREE_FAILURES; i++) expect((await c.signIn(email, `mala-${i}`)).status).toBe(401);
      const waiting = await c.signIn(email, 'otra-mala');
      expect(waiting.status).toBe(429);
      expect(message(waiting.body)).toMatch(/Espere \d+ segundos/);
      // Each wait elapses (moved into the past here), up to the lock.
      for (let i = FREE_FAILURES; i < LOCK_AFTER_FAILURES; i++) {
        await p.service.db.query(`UPDATE panel_sign_in_failures SET last_failure = now() - interval '1 day' WHERE email = $1`, [email]);
        expect((await c.signIn(email, `mala-${i}`)).status).toBe(401);
      }
      await p.service.db.query(`UPDATE panel_sign_in_failures SET last_failure = now() - interval '1 day' WHERE email = $1`, [email]);
      const locked = await c.signIn(email, 'una-mas');
      expect(locked.status).toBe(429);
      expect(message(locked.body)).toMatch(/bloqueado durante 1[45] minutos/);

      // The same for a real account: once locked, even its password is refused until the lock ends.
      for (let i = 0; i < LOCK_AFTER_FAILURES; i++) {
        await p.service.db.query(`UPDATE panel_sign_in_failures SET last_failure = now() - interval '1 day' WHERE email = $1`, [AUDITOR]);
        await c.signIn(AUDITOR, `mala-${i}`);
      }
      expect((await c.signIn(AUDITOR)).status).toBe(429);
      await p.service.db.query(
        `UPDATE panel_sign_in_failures SET locked_until = now() - interval '1 second', last_failure = now() - interval '1 day' WHERE email = $1`,
        [AUDITOR],
      );
      expect((await c.signIn(AUDITOR)).status).toBe(303);
    },
  );

  // A score of sign-ins, each hashed with scrypt at N=2^17 (a second or more of work on a busy machine).
  it(
    'locks an e-mail only at the address the guesses come from: the person signs in from another meanwhile',
    { timeout: 600_000 },
    async () => {
      const guesser = new PanelClient(p.service, { 'x-forwarded-for': '10.0.0.7' });
      for (let i = 0; i < LOCK_AFTER_FAILURES; i++) {
        await p.service.db.query(`UPDATE panel_sign_in_failures SET last_failure = now() - interval '1 day' WHERE email = $1`, [ADMIN]);
        expect((await guesser.signIn(ADMIN, `mala-${i}`)).status).toBe(401);
      }
      const locked = await guesser.signIn(ADMIN);
      expect(locked.status).toBe(429);
      expect(message(locked.body)).toMatch(/bloqueado durante 1[45] minutos/);
      expect((await new PanelClient(p.service, { 'x-forwarded-for': '10.0.0.8' }).signIn(ADMIN)).status).toBe(303);
      // The lock stays where it was, and the list of accounts shows it.
      expect((await guesser.signIn(ADMIN)).status).toBe(429);
      expect((await listAccounts(p.service.db)).find((a) => a.email === ADMIN)?.lockedUntil).not.toBeNull();
    },
  );

  it('makes a locked address wait no longer than a lock, however many failures it piles up', async () => {
    const guesser = new PanelClient(p.service, { 'x-forwarded-for': '10.0.0.10' });
    await guesser.signIn(AUDITOR, 'mala');
    // Many failures long ago, the last a lock that has ended a minute ago.
    await p.service.db.query(
      `UPDATE panel_sign_in_failures SET failures = 40, locked_until = now() - interval '1 minute',
              last_failure = now() - make_interval(mins => $2 + 1) WHERE email = $1 AND client = '10.0.0.10'`,
      [AUDITOR, LOCK_MINUTES],
    );
    expect((await guesser.signIn(AUDITOR)).status).toBe(303);
  });
});

describe('each client address', () => {
  it(`may post the sign-in form ${ADDRESS_ATTEMPTS} times in ${ADDRESS_WINDOW_MS / 60_000} minutes, whatever the e-mails; then a Spanish page that names neither part`, async () => {
    const sprayer = new PanelClient(p.service, { 'x-forwarded-for': '10.0.1.1' });
    await sprayer.get('/panel/ingresar');
    // Every post counts, whatever its answer: these stop short of the password hash (a second of
    // work each), which the budget does not depend on.
    for (let i = 0; i < ADDRESS_ATTEMPTS; i++) {
      expect((await sprayer.post('/panel/ingresar', { email: `persona${i}@empresa.co`, password: '' })).status).toBe(400);
    }
    const refused = await sprayer.post('/panel/ingresar', { email: ADMIN, password: PANEL_PASSWORD });
    expect(refused.status).toBe(429);
    expect(refused.headers['content-type']).toMatch(/^text\/html/);
    expect(refused.headers['content-security-policy']).toBe(PANEL_CSP);
    expect(message(refused.body)).toMatch(/^Demasiados intentos desde su dirección de red\. Espere 1[45] minutos/);
    expect(message(refused.body)).not.toMatch(/correo|contraseña/i);
    // Another address is not held back.
    expect((await new PanelClient(p.service, { 'x-forwarded-for': '10.0.1.2' }).signIn(ADMIN)).status).toBe(303);
  });

  it(`may post an invitation's form ${ADDRESS_ATTEMPTS} times in ${ADDRESS_WINDOW_MS / 60_000} minutes`, async () => {
    const c = new PanelClient(p.service, { 'x-forwarded-for': '10.0.1.3' });
    const invite = await createInvite(p.service.db, AUDITOR);
    await c.get(`/panel/invitacion/${invite.token}`);
    for (let i = 0; i < ADDRESS_ATTEMPTS; i++) {
      const r = await c.post(`/panel/invitacion/${invite.token}`, { password: 'corta', confirmation: 'corta' });
      expect(r.status).toBe(422);
    }
    const refused = await c.post(`/panel/invitacion/${invite.token}`, { password: PANEL_PASSWORD, confirmation: PANEL_PASSWORD });
    expect(refused.status).toBe(429);
    expect(message(refused.body)).toMatch(/^Demasiados intentos/);
    expect((await new PanelClient(p.service, { 'x-forwarded-for': '10.0.1.4' }).get(`/panel/invitacion/${invite.token}`)).status).toBe(200);
  });

  it('is held to its budget even when the API keys have none (RATE_LIMIT_PER_MINUTE=0)', async () => {
    const q = await startPanelService({ RATE_LIMIT_PER_MINUTE: '0' });
    try {
      const c = new PanelClient(q.service);
      await c.get('/panel/ingresar');
      for (let i = 0; i < ADDRESS_ATTEMPTS; i++) await c.post('/panel/ingresar', { email: `p${i}@empresa.co`, password: '' });
      expect((await c.post('/panel/ingresar', { email: ADMIN, password: PANEL_PASSWORD })).status).toBe(429);
    } finally {
      await q.stop();
    }
  });
});

describe('sessions', () => {
  it('past their expiry, and sign-in failures idle for a day, are swept by the service by itself', async () => {
    const q = await startPanelService(
      {},
      {
        beforeStart: async (db) => {
          await db.query(`INSERT INTO panel_sessions (id_hash, email, data, expires_at) VALUES
            ('vencida-1', NULL, '{}', now() - interval '1 minute'),
            ('vencida-2', 'admin@empresa.co', '{}', now() - interval '2 days'),
            ('vigente', 'admin@empresa.co', '{}', now() + interval '1 hour')`);
          await db.query(`INSERT INTO panel_sign_in_failures (email, client, failures, last_failure, locked_until) VALUES
            ('viejo@empresa.co', '10.0.0.1', 4, now() - interval '25 hours', NULL),
            ('reciente@empresa.co', '10.0.0.1', 4, now() - interval '1 hour', NULL),
            ('bloqueado@empresa.co', '10.0.0.1', 12, now() - interval '25 hours', now() + interval '10 minutes')`);
        },
      },
    );
    try {
      const left = async () => ({
        sessions: (await q.service.db.query<{ id_hash: string }>('SELECT id_hash FROM panel_sessions ORDER BY id_hash')).rows.map(
          (r) => r.id_hash,
        ),
        failures: (await q.service.db.query<{ email: string }>('SELECT email FROM panel_sign_in_failures ORDER BY email')).rows.map(
          (r) => r.email,
        ),
      });
      const deadline = Date.now() + 20_000;
      while ((await left()).sessions.length > 1 && Date.now() < deadline) await new Promise((r) => setTimeout(r, 50));
      expect(await left()).toEqual({ sessions: ['vigente'], failures: ['bloqueado@empresa.co', 'reciente@empresa.co'] });
    } finally {
      await q.stop();
    }
  });

  it('end after 8 hours without a request, and each request moves that limit', async () => {
    const c = new PanelClient(p.service);
    await c.signIn(ADMIN);
    const expiry = async () =>
      Number(
        (
          await p.service.db.query<{ s: string }>(
            `SELECT extract(epoch FROM max(expires_at) - now())::text AS s FROM panel_sessions WHERE email = $1`,
            [ADMIN],
          )
        ).rows[0]!.s,
      );
    expect(await expiry()).toBeGreaterThan(8 * 3600 - 120);
    await p.service.db.query(`UPDATE panel_sessions SET expires_at = now() - interval '1 second' WHERE email = $1`, [ADMIN]);
    expectSignInPage(await c.get('/panel/operacion'));
  });

  it('end at sign-out', async () => {
    const c = new PanelClient(p.service);
    await c.signIn(ADMIN);
    const stolen = new PanelClient(p.service);
    stolen.cookies.set(SESSION_COOKIE, c.cookies.get(SESSION_COOKIE)!);
    expect((await stolen.get('/panel/operacion')).status).toBe(200);
    await c.get('/panel/operacion');
    expectSignInPage(await c.post('/panel/salir', {}));
    expectSignInPage(await stolen.get('/panel/operacion'));
  });

  it('are stored by a hash of their id, never the id itself', async () => {
    const c = new PanelClient(p.service);
    await c.signIn(ADMIN);
    const id = decodeURIComponent(c.cookies.get(SESSION_COOKIE)!).split('.')[0]!;
    const rows = await p.service.db.query<{ id_hash: string }>('SELECT id_hash FROM panel_sessions');
    expect(rows.rows.some((r) => r.id_hash.includes(id))).toBe(false);
    expect(JSON.stringify(rows.rows)).not.toContain(id);
  });
});

describe('invitations and revocation', () => {
  it('invite only administrators of the reference data', async () => {
    await expect(createInvite(p.service.db, EMPLOYEE)).rejects.toThrow(PanelAccountError);
    await expect(createInvite(p.service.db, 'nadie@empresa.co')).rejects.toThrow(PanelAccountError);
  });

  it('a link works for 24 hours and once', async () => {
    const invite = await createInvite(p.service.db, ADMIN, new Date(Date.now() - 24 * 3600_000 - 1000));
    const c = new PanelClient(p.service);
    expect((await c.get(`/panel/invitacion/${invite.token}`)).status).toBe(404);
    const fresh = await createInvite(p.service.db, ADMIN);
    expect((await c.get(`/panel/invitacion/${fresh.token}`)).status).toBe(200);
    const set = await c.post(`/panel/invitacion/${fresh.token}`, { password: PANEL_PASSWORD, confirmation: PANEL_PASSWORD });
    expect(set.status).toBe(303);
    expect((await c.get(`/panel/invitacion/${fresh.token}`)).status).toBe(404);
  });

  it('a new link for the same e-mail makes the earlier ones stop working', async () => {
    const c = new PanelClient(p.service);
    const first = await createInvite(p.service.db, ADMIN);
    const second = await createInvite(p.service.db, ADMIN);
    expect((await c.get(`/panel/invitacion/${first.token}`)).status).toBe(404);
    expect((await c.get(`/panel/invitacion/${second.token}`)).status).toBe(200);
    // Posted with a good form token: the link itself is refused.
    expect((await c.post(`/panel/invitacion/${first.token}`, { password: PANEL_PASSWORD, confirmation: PANEL_PASSWORD })).status).toBe(404);
    expect((await pendingInvites(p.service.db)).filter((i) => i.email === ADMIN)).toHaveLength(1);
  });

  it('setting the password with one link makes every other pending link for the e-mail stop working', async () => {
    const used = await createInvite(p.service.db, ADMIN);
    // A second live link, as issued before links replaced each other.
    const other = 'otro-enlace-pendiente';
    await p.service.db.query(`INSERT INTO panel_invites (token_hash, email, expires_at) VALUES ($1, $2, now() + interval '1 hour')`, [
      sha256(other),
      ADMIN,
    ]);
    const c = new PanelClient(p.service);
    expect((await c.get(`/panel/invitacion/${other}`)).status).toBe(200);
    await c.get(`/panel/invitacion/${used.token}`);
    expect((await c.post(`/panel/invitacion/${used.token}`, { password: PANEL_PASSWORD, confirmation: PANEL_PASSWORD })).status).toBe(303);
    expect((await c.get(`/panel/invitacion/${other}`)).status).toBe(404);
    expect((await pendingInvites(p.service.db)).filter((i) => i.email === ADMIN)).toEqual([]);
  });

  it('revoking an account ends its sessions at once and refuses its password', async () => {
    const c = new PanelClient(p.service);
    await c.signIn(AUDITOR);
    expect((await c.get('/panel/operacion')).status).toBe(200);
    await revokeAccount(p.service.db, AUDITOR);
    expectSignInPage(await c.get('/panel/operacion'));
    expect((await new PanelClient(p.service).signIn(AUDITOR)).status).toBe(401);
  });
});
