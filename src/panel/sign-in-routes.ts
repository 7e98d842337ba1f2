import type { FastifyInstance, FastifyReply, FastifyRequest } from 'fastify';
import { maskEmail } from '../app/fields.ts';
import { LOCK_MINUTES, acceptInvite, invitedEmail, signIn } from './accounts.ts';
import { passwordProblem } from './passwords.ts';
import { html, url } from './html.ts';
import type { PanelDeps } from './context.ts';
import { page, type Flash } from './layout.ts';
import { send } from './respond.ts';
import { clientOf, perAddress } from './throttle.ts';

function field(req: FastifyRequest, name: string): string {
  const v = (req.body as Record<string, unknown> | undefined)?.[name];
  return typeof v === 'string' ? v : '';
}

/** A path inside the panel to go back to after signing in; anything else goes to the start. */
function safeReturn(v: unknown): string {
  return typeof v === 'string' && /^\/panel(\/[A-Za-z0-9/_?=&%.-]*)?$/.test(v) && !v.startsWith('/panel/ingresar') ? v : '/panel';
}

/**
 * The pages open to anyone: sign-in and an invitation's form. Their forms carry a CSRF token
 * checked against a signed cookie (`formToken`), not the session, so that a visit writes no
 * session row until someone signs in.
 */
export function signInPageRoutes(panel: FastifyInstance, deps: PanelDeps, formToken: (req: FastifyRequest, reply: FastifyReply) => string) {
  const signInPage = (reply: FastifyReply, o: { email?: string; back?: string; flash?: Flash | null; status?: number }) =>
    send(
      reply,
      page({
        title: 'Ingresar al panel',
        flash: o.flash,
        body: html`<form method="post" action="/panel/ingresar" class="stack" novalidate>
  <input type="hidden" name="_csrf" value="${formToken(reply.request, reply)}">
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
    const client = clientOf(req);
    const r = await signIn(deps.db, email, field(req, 'password'), client);
    if (!r.ok) {
      // Traceable (who was tried, from where) without writing the e-mail out in full.
      const tried = { email: maskEmail(email), client };
      if (r.reason === 'invalid' && r.lockedNow) req.log.warn({ ...tried, minutes: LOCK_MINUTES }, 'panel sign-in locked');
      else req.log.info({ ...tried, reason: r.reason }, 'panel sign-in refused');
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
    req.session.signedInAt = Date.now();
    req.log.info({ panelUser: r.email }, 'panel sign-in');
    return reply.redirect(back, 303);
  });

  const invitePage = (reply: FastifyReply, token: string, email: string, flash: Flash | null = null, status = 200) =>
    send(
      reply,
      page({
        title: 'Crear contraseña',
        flash,
        body: html`<p>Cree la contraseña con la que <strong>${email}</strong> ingresará al panel. Este enlace sirve una sola vez.</p>
<form method="post" action="${url`/panel/invitacion/${token}`}" class="stack" novalidate>
  <input type="hidden" name="_csrf" value="${formToken(reply.request, reply)}">
  <input type="email" name="email" autocomplete="username" value="${email}" hidden>
  <div class="field"><label for="password">Contraseña nueva</label>
    <input id="password" name="password" type="password" autocomplete="new-password" required aria-describedby="pw-hint">
    <span class="hint" id="pw-hint">Al menos 12 caracteres; ni su correo ni una de las contraseñas más usadas.</span></div>
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
    const problem = await passwordProblem(field(req, 'password'), field(req, 'confirmation'), email);
    if (problem) return invitePage(reply, token, email, { kind: 'error', text: problem }, 422);
    const done = await acceptInvite(deps.db, token, field(req, 'password'));
    if (!done) return deadLink(reply);
    req.log.info({ panelUser: done }, 'panel password set from an invitation');
    req.session.flash = { kind: 'ok', text: 'Contraseña guardada. Ya puede ingresar.' };
    return reply.redirect('/panel/ingresar', 303);
  });
}
