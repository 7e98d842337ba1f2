import type { FastifyReply } from 'fastify';
import { html, type Html } from './html.ts';
import { page } from './layout.ts';

/**
 * Content-Security-Policy of every panel answer: nothing but this service's own style sheet,
 * script and forms, and no framing.
 */
export const PANEL_CSP =
  "default-src 'none'; script-src 'self'; style-src 'self'; img-src 'self'; connect-src 'self'; " +
  "form-action 'self'; frame-ancestors 'none'; base-uri 'none'";

export const send = (reply: FastifyReply, doc: Html, status = 200) => reply.code(status).type('text/html; charset=utf-8').send(doc.value);

/** Whether an address is the panel's (the router ignores case, so the check does too). */
export const isPanelPath = (url: string) => /^\/panel(?:[/?#]|$)/i.test(url);

/** Words of the panel's error pages. */
export const PANEL_ERRORS = {
  csrf: 'El formulario caducó o no salió de este panel. Vuelva a cargar la página e inténtelo de nuevo.',
  tooLarge: 'Lo enviado es demasiado grande.',
  badRequest: 'La solicitud no se pudo leer. Revise los datos e inténtelo de nuevo.',
  badUrl: 'La dirección no es válida. Revise el enlace o vuelva al panel.',
  uriTooLong: 'La dirección es demasiado larga. Revise el enlace o vuelva al panel.',
  tooMany: (minutes: number) =>
    'Demasiados intentos desde su dirección de red. ' +
    `Espere ${minutes} ${minutes === 1 ? 'minuto' : 'minutos'} antes de intentarlo de nuevo.`,
  internal: (requestId: string) => `Ocurrió un error interno. Si se repite, informe este código de solicitud: ${requestId}.`,
} as const;

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
