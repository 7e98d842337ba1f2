import type { FastifyRequest } from 'fastify';
import type { Actor } from '../commands/types.ts';
import type { User } from '../reference/repository.ts';

function header(req: FastifyRequest, name: string): string | null {
  const v = req.headers[name];
  return typeof v === 'string' && v.length > 0 && v.length <= 200 ? v : null;
}

/**
 * Who acts and through what, for the events a request writes. Only writes carry the request's
 * Idempotency-Key; audited queries record none.
 */
export function actorOf(req: FastifyRequest, user: User, opts: { write: boolean }): Actor {
  return {
    userId: user.id,
    userEmail: user.email,
    apiKeyId: req.apiKey?.id ?? null,
    apiKeyName: req.apiKey?.name ?? null,
    requestId: req.id,
    correlationId: header(req, 'x-correlation-id') ?? req.id,
    idempotencyKey: opts.write ? header(req, 'idempotency-key') : null,
    source: 'http',
  };
}
