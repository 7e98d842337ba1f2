import fastifyCookie from '@fastify/cookie';
import fastifyCsrf, { type FastifyCsrfProtectionOptions } from '@fastify/csrf-protection';
import fastifySession from '@fastify/session';
import type { FastifyInstance } from 'fastify';
import { standingContract } from '../domain/index.ts';
import { forgetStaleFailures, sessionSecret, sha256 } from './accounts.ts';
import { registerAssets } from './assets.ts';
import { html } from './html.ts';
import { page } from './layout.ts';
import { NOT_FOR_ROLE, ROLE_LABEL, accessOf, actionOf, mayDo, seesUnit, unitsOf } from './roles.ts';
import { PgSessionStore, SESSION_IDLE_MS, SESSION_MAX_MS } from './session-store.ts';
import { PANEL_CSP, PANEL_ERRORS, send, sendPanelError } from './respond.ts';
import { signInPageRoutes } from './sign-in-routes.ts';
import { TOO_MANY_FROM_ADDRESS } from './throttle.ts';
import { auditPageRoutes } from './views/audit.ts';
import { calendarPageRoutes } from './views/calendar.ts';
import { homePageRoutes } from './views/home.ts';
import { editPageRoutes } from './views/worker-edit.ts';
import { registerDownloadRoutes } from './views/worker-law.ts';
import { occupancyPageRoutes } from './views/occupancy.ts';
import { liabilityPageRoutes } from './views/liability.ts';
import { operationsPageRoutes } from './views/operations.ts';
import { workerPageRoutes } from './views/worker.ts';
import { recordActionRoutes } from './views/record-actions.ts';
import { closurePageRoutes } from './views/closures.ts';
import { planPageRoutes } from './views/plan.ts';

export { PANEL_CSP, PANEL_ERRORS, isPanelPath, sendPanelError } from './respond.ts';

export const SESSION_COOKIE = 'vacaciones_panel';

export type { PanelDeps } from './context.ts';
import type { PanelContext, PanelDeps } from './context.ts';

/** Expired sessions and stale sign-in failures are swept this often (and when the service starts). */
export const SWEEP_EVERY_MS = 10 * 60_000;

/** The cookie that holds the secret of the sign-in and invitation forms' CSRF tokens. */
export const FORM_COOKIE = 'vacaciones_panel_form';

/** Checks the CSRF token of every form posted to this scope (its pages make them with `reply.generateCsrf`). */
async function protectForms(scope: FastifyInstance, opts: FastifyCsrfProtectionOptions): Promise<void> {
  await scope.register(fastifyCsrf, opts);
  scope.addHook('preHandler', (req, reply, done) => {
    if (req.method === 'POST') scope.csrfProtection(req, reply, done);
    else done();
  });
}

/**
 * The web panel at /panel: server-rendered pages for people, signed in with e-mail and password,
 * beside the JSON interface (which it leaves as it is). `/` leads here.
 */
export async function mountPanel(app: FastifyInstance, deps: PanelDeps): Promise<void> {
  const store = new PgSessionStore(deps.db);
  const secret = await sessionSecret(deps.db);
  sweepOnATimer(app, deps, store);

  app.get('/', { config: { public: true } }, async (_req, reply) => reply.redirect('/panel', 302));
  // The style sheet and script are outside the session's scope: they need no session lookup.
  await registerAssets(app);

  await app.register(
    async (panel) => {
      panel.decorateRequest('panelUser', null);
      panel.decorateRequest('panelAccess', null);
      panel.addHook('onSend', async (req, reply) => {
        reply.header('content-security-policy', PANEL_CSP);
        reply.header('cache-control', 'no-store');
        // Secure exactly when the browser reached the service over TLS (directly, or through a
        // proxy that TRUST_PROXY names). Runs before the session plugin writes the cookie.
        if (req.session?.cookie) req.session.cookie.secure = req.protocol === 'https';
      });
      // Signs the forms' cookie, with a key of its own derived from the session secret.
      await panel.register(fastifyCookie, { secret: sha256(`panel form cookie\n${secret}`) });
      await panel.register(fastifySession, {
        secret,
        store,
        cookieName: SESSION_COOKIE,
        saveUninitialized: false,
        rolling: true,
        cookie: { path: '/panel', httpOnly: true, sameSite: 'strict', secure: false, maxAge: SESSION_IDLE_MS },
      });

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
      // PostgreSQL's text holds no NUL, so a value with one would fail in the database as a 500:
      // it is refused as a bad request before any handler reads it (the API's Fields do the same).
      panel.addHook('preValidation', async (req) => {
        if (holdsNul(req.params) || holdsNul(req.query) || holdsNul(req.body)) {
          throw Object.assign(new Error('a NUL character in the request'), { statusCode: 400 });
        }
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

      // Open to anyone: their forms' tokens hang on a signed cookie, so a visit stores nothing.
      await panel.register(async (open) => {
        await protectForms(open, {
          sessionPlugin: '@fastify/cookie',
          cookieKey: FORM_COOKIE,
          cookieOpts: { path: '/panel', httpOnly: true, sameSite: 'strict', signed: true },
        });
        signInPageRoutes(open, deps, (req, reply) => reply.generateCsrf({ secure: req.protocol === 'https' }));
      });

      // A session's pages: every form posted carries the session's CSRF token.
      await panel.register(async (signed) => {
        await protectForms(signed, { sessionPlugin: '@fastify/session' });
        const ctx: PanelContext = {
          deps,
          csrf: (reply) => reply.generateCsrf(),
          unitsOf: (req) => unitsOf(req.panelAccess!),
          may: (req, action) => mayDo(req.panelAccess!, action),
          async seesWorker(req, documentNumber) {
            const access = req.panelAccess!;
            if (access.role !== 'jefe') return true;
            const file = await deps.reference.workerFileByDocument(documentNumber);
            return file !== null && seesUnit(access, standingContract(file.contracts, deps.today())?.subgerenciaId ?? null);
          },
          refuse(req, reply, text) {
            return ctx.render(req, reply, {
              title: 'Acceso denegado',
              section: 'inicio',
              status: 403,
              flash: { kind: 'error', text },
              body: html`<p><a href="/panel">Volver al inicio</a></p>`,
            });
          },
          flash(req, flash) {
            req.session.flash = flash;
          },
          render(req, reply, o) {
            const flash = o.flash ?? req.session.flash ?? null;
            if (req.session.flash) delete req.session.flash;
            const user = req.panelUser!;
            return send(
              reply,
              page({
                ...o,
                flash,
                user: { email: user.email, name: user.name, role: ROLE_LABEL[req.panelAccess!.role] },
                csrf: reply.generateCsrf(),
              }),
              o.status,
            );
          },
        };

        signed.post('/salir', async (req, reply) => {
          const email = req.session.email;
          await req.session.destroy();
          reply.clearCookie(SESSION_COOKIE, { path: '/panel' });
          if (email) req.log.info({ panelUser: email }, 'panel sign-out');
          return reply.redirect('/panel/ingresar', 303);
        });

        // Everything else is behind sign-in.
        await signed.register(async (inside) => {
          inside.addHook('preHandler', async (req, reply) => {
            const email = req.session.email;
            const fresh = Date.now() - (req.session.signedInAt ?? 0) < SESSION_MAX_MS;
            const user = email && fresh ? await deps.reference.userByEmail(email) : null;
            if (!user?.isAdmin) {
              if (email) await req.session.destroy();
              const back = req.method === 'GET' ? `?volver=${encodeURIComponent(req.url)}` : '';
              return reply.redirect(`/panel/ingresar${back}`, 303);
            }
            const access = await accessOf(deps.db, user.email);
            if (!access) {
              await req.session.destroy();
              return reply.redirect('/panel/ingresar', 303);
            }
            req.panelUser = user;
            req.panelAccess = access;
            // Every route is held to the role here, forged posts included; the pages only hide what a role cannot use.
            if (!mayDo(access, actionOf(req.method, req.routeOptions.url ?? ''))) {
              req.log.warn(
                { panelUser: user.email, role: access.role, route: req.routeOptions.url, method: req.method },
                'panel action refused for the role',
              );
              return ctx.refuse(req, reply, NOT_FOR_ROLE(access));
            }
          });
          homePageRoutes(inside, ctx);
          calendarPageRoutes(inside, ctx);
          occupancyPageRoutes(inside, ctx);
          liabilityPageRoutes(inside, ctx);
          workerPageRoutes(inside, ctx);
          recordActionRoutes(inside, ctx);
          closurePageRoutes(inside, ctx);
          planPageRoutes(inside, ctx);
          editPageRoutes(inside, ctx);
          registerDownloadRoutes(inside, ctx);
          auditPageRoutes(inside, ctx);
          operationsPageRoutes(inside, ctx);
        });
      });
    },
    { prefix: '/panel' },
  );
}

function holdsNul(v: unknown): boolean {
  if (typeof v === 'string') return v.includes('\u0000');
  if (Array.isArray(v)) return v.some(holdsNul);
  return typeof v === 'object' && v !== null && Object.values(v).some(holdsNul);
}

/**
 * Sweeps expired sessions and stale sign-in failures when the service starts and every
 * SWEEP_EVERY_MS: a timer that keeps no process alive, stopped (and waited for) when it closes.
 */
function sweepOnATimer(app: FastifyInstance, deps: PanelDeps, store: PgSessionStore): void {
  let running: Promise<void> = Promise.resolve();
  const sweep = () => {
    running = Promise.all([store.sweep(), forgetStaleFailures(deps.db)]).then(
      ([sessions, failures]) => {
        if (sessions + failures > 0) app.log.info({ sessions, failures }, 'panel: expired sessions and stale sign-in failures swept');
      },
      (err: Error) => app.log.warn({ err }, 'panel: expired sessions could not be swept'),
    );
  };
  sweep();
  const timer = setInterval(sweep, SWEEP_EVERY_MS);
  timer.unref();
  app.addHook('onClose', async () => {
    clearInterval(timer);
    await running;
  });
}
