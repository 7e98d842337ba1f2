import fastifyCookie from '@fastify/cookie';
import fastifyCsrf from '@fastify/csrf-protection';
import fastifySession from '@fastify/session';
import type { FastifyInstance, FastifyReply, FastifyRequest } from 'fastify';
import type { AppDeps } from '../http/context.ts';
import type { User } from '../reference/repository.ts';
import { acceptInvite, invitedEmail, passwordProblem, sessionSecret, signIn } from './accounts.ts';
import { registerAssets } from './assets.ts';
import { html, url, type Html } from './html.ts';
import { page, type Flash, type PageOptions, type Section } from './layout.ts';
import { PgSessionStore, SESSION_IDLE_MS } from './session-store.ts';
import { TOO_MANY_FROM_ADDRESS, clientOf, perAddress } from './throttle.ts';
import { auditRoutes } from './views/audit.ts';
import { occupancyRoutes } from './views/occupancy.ts';
import { operationsRoutes } from './views/operations.ts';
import { workerRoutes } from './views/worker.ts';

export const SESSION_COOKIE = 'vacaciones_panel';

declare module 'fastify' {
  interface Session {
    email?: string;
    flash?: Flash;
  }
  interface FastifyRequest {
    /** The signed-in administrator, on the pages behind sign-in. */
    panelUser: User | null;
  }
}

/**
 * Content-Security-Policy of every panel answer: nothing but this service's own style sheet,
 * script and forms, and no framing.
 */
export const PANEL_CSP =
  "default-src 'none'; script-src 'self'; style-src 'self'; img-src 'self'; connect-src 'self'; " +
  "form-action 'self'; frame-ancestors 'none'; base-uri 'none'";

/** What the pages need: the HTTP interface's dependencies plus the projections' state. */
export type PanelDeps = AppDeps;

export interface PanelContext {
  deps: PanelDeps;
  /** Renders a page for the signed-in person, with the CSRF token its forms carry. */
  render(
    req: FastifyRequest,
    reply: FastifyReply,
    o: Omit<PageOptions, 'user' | 'csrf'> & { section: Section; status?: number },
  ): FastifyReply;
  /** A message for the next page this session sees (after a redirect). */
  flash(req: FastifyRequest, flash: Flash): void;
  csrf(reply: FastifyReply): string;
}

const send = (reply: FastifyReply, doc: Html, status = 200) => reply.code(status).type('text/html; charset=utf-8').send(doc.value);

/** Whether an address is the panel's (the router ignores case, so the check does too). */
export const isPanelPath = (url: string) => /^\/panel(?:[/?#]|$)/i.test(url);

/**
 * The panel's page for a request it cannot serve, with the panel's headers: also for addresses
 * the router refuses before any panel route or hook runs (a malformed or too long address).
 */
export function sendPanelError(reply: FastifyReply, status: number, text: string): FastifyReply {
  reply.header('content-security-policy', PANEL_CSP).header('cache-control', 'no-store');
  return send(
    reply,
    page({ title: 'No se pudo completar', body: html`<p><a href="/panel">Volver al panel</a></p>`, flash: { kind: 'error', text } }),
    status,
  );
}

/** Words of the panel's error pages. */
export const PANEL_ERRORS = {
  csrf: 'El formulario caducó o no salió de este panel. Vuelva a cargar la página e inténtelo de nuevo.',
  tooLarge: 'Lo enviado es demasiado grande.',
  badRequest: 'La solicitud no se pudo leer. Revise los datos e inténtelo de nuevo.',
  badUrl: 'La dirección no es válida. Revise el enlace o vuelva al panel.',
  uriTooLong: 'La dirección es demasiado larga. Revise el enlace o vuelva al panel.',
  tooMany: (minutes: number) =>
    `Demasiados intentos desde su dirección de red. Espere ${minutes} ${minutes === 1 ? 'minuto' : 'minutos'} antes de intentarlo de nuevo.`,
  internal: (requestId: string) => `Ocurrió un error interno. Si se repite, informe este código de solicitud: ${requestId}.`,
} as const;

function field(req: FastifyRequest, name: string): string {
  const v = (req.body as Record<string, unknown> | undefined)?.[name];
  return typeof v === 'string' ? v : '';
}

/** A path inside the panel to go back to after signing in; anything else goes to the start. */
function safeReturn(v: unknown): string {
  return typeof v === 'string' && /^\/panel(\/[A-Za-z0-9/_?=&%.-]*)?$/.test(v) && !v.startsWith('/panel/ingresar') ? v : '/panel';
}

/**
 * The web panel at /panel: server-rendered pages for people, signed in with e-mail and password,
 * beside the JSON interface (which it leaves as it is). `/` leads here.
 */
export async function registerPanel(app: FastifyInstance, deps: PanelDeps): Promise<void> {
  const store = new PgSessionStore(deps.db);
  const secret = await sessionSecret(deps.db);

  app.get('/', { config: { public: true } }, async (_req, reply) => reply.redirect('/panel', 302));
  // The style sheet and script are outside the session's scope: they need no session lookup.
  await registerAssets(app);

  await app.register(
    async (panel) => {
      panel.decorateRequest('panelUser', null);
      panel.addHook('onSend', async (req, reply) => {
        reply.header('content-security-policy', PANEL_CSP);
        reply.header('cache-control', 'no-store');
        // Secure exactly when the browser reached the service over TLS (directly, or through a
        // proxy that TRUST_PROXY names). Runs before the session plugin writes the cookie.
        if (req.session?.cookie) req.session.cookie.secure = req.protocol === 'https';
      });
      await panel.register(fastifyCookie);
      await panel.register(fastifySession, {
        secret,
        store,
        cookieName: SESSION_COOKIE,
        saveUninitialized: false,
        rolling: true,
        cookie: { path: '/panel', httpOnly: true, sameSite: 'strict', secure: false, maxAge: SESSION_IDLE_MS },
      });
      await panel.register(fastifyCsrf, { sessionPlugin: '@fastify/session' });
      // Every form that changes anything is posted: each post carries the session's CSRF token.
      panel.addHook('preHandler', (req, reply, done) => {
        if (req.method === 'POST') panel.csrfProtection(req, reply, done);
        else done();
      });

      const ctx: PanelContext = {
        deps,
        csrf: (reply) => reply.generateCsrf(),
        flash(req, flash) {
          req.session.flash = flash;
        },
        render(req, reply, o) {
          const flash = o.flash ?? req.session.flash ?? null;
          if (req.session.flash) delete req.session.flash;
          const user = req.panelUser!;
          return send(reply, page({ ...o, flash, user: { email: user.email, name: user.name }, csrf: reply.generateCsrf() }), o.status);
        },
      };

      panel.setErrorHandler((err, req, reply) => {
        const code = (err as { code?: string }).code ?? '';
        const status = (err as { statusCode?: number }).statusCode ?? 500;
        let text: string;
        let http = status;
        if (code.startsWith('FST_CSRF_')) {
          text = PANEL_ERRORS.csrf;
          http = 403;
        } else if (code === TOO_MANY_FROM_ADDRESS) {
          text = PANEL_ERRORS.tooMany((err as { retryAfterMinutes?: number }).retryAfterMinutes ?? 1);
        } else if (status === 413) {
          text = PANEL_ERRORS.tooLarge;
        } else if (status >= 400 && status < 500) {
          text = PANEL_ERRORS.badRequest;
        } else {
          req.log.error({ err, reqId: req.id }, 'panel request failed');
          text = PANEL_ERRORS.internal(req.id);
          http = 500;
        }
        if (http < 500) req.log.info({ reqId: req.id, code }, 'panel request rejected');
        return sendPanelError(reply, http, text);
      });
      panel.setNotFoundHandler((_req, reply) =>
        send(
          reply,
          page({
            title: 'Página no encontrada',
            body: html`<p>Esa dirección no existe en el panel. <a href="/panel">Ir al inicio</a>.</p>`,
          }),
          404,
        ),
      );

      authRoutes(panel, deps, store);

      // Everything else is behind sign-in.
      await panel.register(async (inside) => {
        inside.addHook('preHandler', async (req, reply) => {
          const email = req.session.email;
          const user = email ? await deps.reference.userByEmail(email) : null;
          if (!user?.isAdmin) {
            if (email) await req.session.destroy();
            const back = req.method === 'GET' ? `?volver=${encodeURIComponent(req.url)}` : '';
            return reply.redirect(`/panel/ingresar${back}`, 303);
          }
          req.panelUser = user;
        });
        inside.get('/', async (_req, reply) => reply.redirect('/panel/ocupacion', 302));
        occupancyRoutes(inside, ctx);
        workerRoutes(inside, ctx);
        auditRoutes(inside, ctx);
        operationsRoutes(inside, ctx);
      });
    },
    { prefix: '/panel' },
  );
}

function authRoutes(panel: FastifyInstance, deps: PanelDeps, store: PgSessionStore) {
  const signInPage = (reply: FastifyReply, o: { email?: string; back?: string; flash?: Flash | null; status?: number }) =>
    send(
      reply,
      page({
        title: 'Ingresar al panel',
        flash: o.flash,
        body: html`<form method="post" action="/panel/ingresar" class="stack" novalidate>
  <input type="hidden" name="_csrf" value="${reply.generateCsrf()}">
  <input type="hidden" name="volver" value="${o.back ?? '/panel'}">
  <div class="field"><label for="email">Correo electrónico</label>
    <input id="email" name="email" type="email" autocomplete="username" required value="${o.email ?? ''}"></div>
  <div class="field"><label for="password">Contraseña</label>
    <input id="password" name="password" type="password" autocomplete="current-password" required></div>
  <div><button type="submit">Ingresar</button></div>
</form>
<p class="hint">¿No tiene contraseña? Pida a la persona que opera el servicio un enlace de invitación.</p>`,
      }),
      o.status,
    );

  panel.get('/ingresar', async (req, reply) => {
    if (req.session.email) return reply.redirect('/panel', 303);
    const flash = req.session.flash ?? null;
    if (flash) delete req.session.flash;
    return signInPage(reply, { back: safeReturn((req.query as Record<string, unknown>).volver), flash });
  });

  panel.post('/ingresar', { config: perAddress('sign-in') }, async (req, reply) => {
    const email = field(req, 'email').trim();
    const back = safeReturn(field(req, 'volver'));
    if (email === '' || field(req, 'password') === '') {
      return signInPage(reply, { email, back, flash: { kind: 'error', text: 'Escriba su correo y su contraseña.' }, status: 400 });
    }
    const r = await signIn(deps.db, email, field(req, 'password'), clientOf(req));
    if (!r.ok) {
      req.log.info({ reason: r.reason }, 'panel sign-in refused');
      const text =
        r.reason === 'invalid'
          ? 'Correo o contraseña incorrectos.'
          : r.reason === 'wait'
            ? `Demasiados intentos fallidos. Espere ${r.seconds} segundos antes de intentarlo de nuevo.`
            : `Demasiados intentos fallidos: el ingreso con este correo queda bloqueado durante ${r.minutes} minutos.`;
      return signInPage(reply, { email, back, flash: { kind: 'error', text }, status: r.reason === 'invalid' ? 401 : 429 });
    }
    // A new session id at sign-in: an id planted before it is worth nothing after.
    await req.session.regenerate();
    req.session.email = r.email;
    req.log.info({ panelUser: r.email }, 'panel sign-in');
    void store.sweep().catch((err) => req.log.warn({ err }, 'expired panel sessions could not be swept'));
    return reply.redirect(back, 303);
  });

  panel.post('/salir', async (req, reply) => {
    const email = req.session.email;
    await req.session.destroy();
    reply.clearCookie(SESSION_COOKIE, { path: '/panel' });
    if (email) req.log.info({ panelUser: email }, 'panel sign-out');
    return reply.redirect('/panel/ingresar', 303);
  });

  const invitePage = (reply: FastifyReply, token: string, email: string, flash: Flash | null = null, status = 200) =>
    send(
      reply,
      page({
        title: 'Crear contraseña',
        flash,
        body: html`<p>Cree la contraseña con la que <strong>${email}</strong> ingresará al panel. Este enlace sirve una sola vez.</p>
<form method="post" action="${url`/panel/invitacion/${token}`}" class="stack" novalidate>
  <input type="hidden" name="_csrf" value="${reply.generateCsrf()}">
  <input type="email" name="email" autocomplete="username" value="${email}" hidden>
  <div class="field"><label for="password">Contraseña nueva</label>
    <input id="password" name="password" type="password" autocomplete="new-password" required aria-describedby="pw-hint">
    <span class="hint" id="pw-hint">Al menos 12 caracteres.</span></div>
  <div class="field"><label for="confirmation">Repita la contraseña</label>
    <input id="confirmation" name="confirmation" type="password" autocomplete="new-password" required></div>
  <div><button type="submit">Guardar contraseña</button></div>
</form>`,
      }),
      status,
    );
  const deadLink = (reply: FastifyReply) =>
    send(
      reply,
      page({
        title: 'Enlace no válido',
        flash: { kind: 'error', text: 'Este enlace de invitación no es válido: ya se usó, venció o fue anulado.' },
        body: html`<p>Pida un enlace nuevo a la persona que opera el servicio. <a href="/panel/ingresar">Ir a ingresar</a>.</p>`,
      }),
      404,
    );

  panel.get('/invitacion/:token', async (req, reply) => {
    const { token } = req.params as { token: string };
    const email = await invitedEmail(deps.db, token);
    return email ? invitePage(reply, token, email) : deadLink(reply);
  });

  panel.post('/invitacion/:token', { config: perAddress('invitation') }, async (req, reply) => {
    const { token } = req.params as { token: string };
    const email = await invitedEmail(deps.db, token);
    if (!email) return deadLink(reply);
    const problem = passwordProblem(field(req, 'password'), field(req, 'confirmation'));
    if (problem) return invitePage(reply, token, email, { kind: 'error', text: problem }, 422);
    const done = await acceptInvite(deps.db, token, field(req, 'password'));
    if (!done) return deadLink(reply);
    req.log.info({ panelUser: done }, 'panel password set from an invitation');
    req.session.flash = { kind: 'ok', text: 'Contraseña guardada. Ya puede ingresar.' };
    return reply.redirect('/panel/ingresar', 303);
  });
}
