import type { FastifyRequest } from 'fastify';
import { actorFor } from '../app/actor.ts';
import type { Actor } from '../app/ports.ts';
import type { User } from '../reference/repository.ts';
import { resumesClaim } from './idempotency.ts';

function header(req: FastifyRequest, name: string): string | null {
  const v = req.headers[name];
  return typeof v === 'string' && v.length > 0 && v.length <= 200 ? v : null;
}

/**
 * Who acts through an API request. Only writes carry the request's Idempotency-Key; audited
 * queries record none. A write that took over the claim of a process that ended resumes it.
 */
export function actorOf(req: FastifyRequest, user: User, opts: { write: boolean }): Actor {
  return actorFor({
    user,
    source: 'http',
    requestId: req.id,
    correlationId: header(req, 'x-correlation-id'),
    idempotencyKey: opts.write ? header(req, 'idempotency-key') : null,
    apiKey: req.apiKey ?? null,
    resumes: opts.write && resumesClaim(req),
  });
}
