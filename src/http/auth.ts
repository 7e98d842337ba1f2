import type { FastifyReply, FastifyRequest } from 'fastify';
import { hasScope, parseAuthorizationHeader } from '../security/api-keys.ts';
import type { AppDeps } from '../app/context.ts';
import { MESSAGES } from '../app/messages.ts';
import { errorFor, forbidden } from './envelopes.ts';

/**
 * First check of every endpoint: `X-Api-Key: Bearer <key>` (or `Authorization: Bearer <key>`)
 * must name a live key that carries the route's scope. The key itself never reaches a log.
 */
export function apiKeyGuard(deps: AppDeps) {
  return async function guard(req: FastifyRequest, reply: FastifyReply) {
    const cfg = req.routeOptions.config;
    if (cfg.public || !cfg.envelope) return;
    // The interface's header, or the usual one for a bearer token, which HTTP clients and
    // gateways send by themselves; when both come, the interface's decides.
    const header = req.headers['x-api-key'] ?? req.headers.authorization;
    const key = parseAuthorizationHeader(Array.isArray(header) ? undefined : header);
    const principal = key ? await deps.verifyApiKey(key) : null;
    if (!principal) {
      return reply.code(401).send({ success: false, statusCode: 401, message: MESSAGES.unauthorized });
    }
    req.apiKey = principal;
    if (cfg.scope && !hasScope(principal, cfg.scope))
      return forbidden(cfg.envelope, reply, 'La API key no tiene permiso para este recurso');
  };
}

/** Answers any other method on a known path with the endpoint's 405, after the key check. */
export function methodNotAllowed(allowed: 'POST' | 'GET') {
  return async function (req: FastifyRequest, reply: FastifyReply) {
    const kind = req.routeOptions.config.envelope ?? 'lookup';
    const message = allowed === 'POST' ? MESSAGES.usePost : MESSAGES.useGet;
    reply.header('allow', allowed);
    // The vacation 405 body has no errors member, as the interface shows it.
    return errorFor(kind === 'contract' ? 'lookup' : kind, reply, 405, message);
  };
}
