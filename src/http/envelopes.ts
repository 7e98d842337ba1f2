import type { FastifyReply } from 'fastify';
import { MESSAGES } from '../app/messages.ts';

/**
 * The three response envelopes of the interface. Existing callers parse these exactly, so
 * every error body in the service is built here.
 */
export type VacationErrors = Record<string, string> | string[];

/** `{success: false, statusCode, message, errors}` of calculate, add, edit, delete, approve. */
export function vacationError(reply: FastifyReply, status: number, message: string, errors?: VacationErrors) {
  const body: Record<string, unknown> = { success: false, statusCode: status, message };
  if (errors !== undefined) body.errors = errors;
  return reply.code(status).send(body);
}

/** `{success: false, statusCode, message}` of the lookup and contract endpoints. */
export function lookupError(reply: FastifyReply, status: number, message: string, opts: { omitStatusCode?: boolean } = {}) {
  return reply.code(status).send(opts.omitStatusCode ? { success: false, message } : { success: false, statusCode: status, message });
}

/** The contract check's own 403 body. */
export function contractForbidden(reply: FastifyReply) {
  return reply.code(403).send({ success: false, status: 403, error: { message: MESSAGES.contractForbidden } });
}

export function vacationSuccess(reply: FastifyReply, status: number, message: string, data: unknown) {
  return reply.code(status).send({ success: true, statusCode: status, message, data });
}

/** Which envelope family a route answers in; set per route so shared hooks pick the right one. */
export type EnvelopeKind = 'vacation' | 'lookup' | 'contract';

/**
 * An error body in the route's family, for failures raised before or around the handler. The
 * vacation family carries `errors.detalle` when one is given (every failure but the 405).
 */
export function errorFor(kind: EnvelopeKind, reply: FastifyReply, status: number, message: string, detalle?: string) {
  if (kind === 'vacation') return vacationError(reply, status, message, detalle === undefined ? undefined : { detalle });
  if (kind === 'contract' && (status === 400 || status === 500)) return lookupError(reply, status, message, { omitStatusCode: true });
  return lookupError(reply, status, message);
}

/**
 * 403 `Acceso denegado` in the route's family: the contract check's own body, the vacation
 * envelope with `errors.apiKey` saying what the key may not do, the lookup envelope.
 */
export function forbidden(kind: EnvelopeKind, reply: FastifyReply, detail: string) {
  if (kind === 'contract') return contractForbidden(reply);
  if (kind === 'vacation') return vacationError(reply, 403, MESSAGES.forbidden, { apiKey: detail });
  return lookupError(reply, 403, MESSAGES.forbidden);
}
