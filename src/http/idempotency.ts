import { createHash } from 'node:crypto';
import type { FastifyReply, FastifyRequest } from 'fastify';
import type { AppDeps } from '../app/context.ts';
import { MESSAGES } from '../app/messages.ts';
import { vacationError } from './envelopes.ts';
import { IdempotencyRecords } from './idempotency-records.ts';

const WAIT_FOR_FIRST_MS = 5000;
/** A claim older than this belongs to a request that died; a retry may take it over. */
const ABANDONED_AFTER_S = 120;

function fingerprint(req: FastifyRequest): string {
  const body = req.body && typeof req.body === 'object' ? (req.body as Record<string, unknown>) : {};
  const canonical = Object.keys(body)
    .map((k) => [k.toLowerCase(), body[k]] as const)
    .sort(([a], [b]) => (a < b ? -1 : a > b ? 1 : 0));
  return createHash('sha256')
    .update(`${req.routeOptions.url}\n${JSON.stringify(canonical)}`)
    .digest('hex');
}

/**
 * `Idempotency-Key` on a write: the first request with a key runs and its answer is kept; a
 * retry with the same key and body gets that answer again instead of acting twice. Keys are
 * scoped to the API key that sent them. Server errors are not kept, so a retry can succeed.
 */
export async function withIdempotency(deps: AppDeps, req: FastifyRequest, reply: FastifyReply, run: () => Promise<unknown>) {
  const raw = req.headers['idempotency-key'];
  if (raw === undefined) return run();
  if (typeof raw !== 'string' || raw.trim() === '' || raw.length > 200) {
    return vacationError(reply, 400, MESSAGES.missingData, { 'Idempotency-Key': 'Debe tener entre 1 y 200 caracteres' });
  }
  const records = new IdempotencyRecords(deps.db);
  const key = { apiKeyId: req.apiKey!.id, key: raw };
  const fp = fingerprint(req);
  if (!(await records.claim(key, req.routeOptions.url ?? '', fp))) {
    const deadline = Date.now() + WAIT_FOR_FIRST_MS;
    for (;;) {
      const row = await records.find(key);
      if (!row) return withIdempotency(deps, req, reply, run); // released by a failed first attempt
      if (row.fingerprint !== fp) {
        return vacationError(reply, 422, 'Idempotency-Key ya usada con otra solicitud', {
          'Idempotency-Key': 'La clave ya se usó con datos diferentes; use una clave nueva',
        });
      }
      if (row.statusCode !== null) {
        reply.header('idempotent-replayed', 'true');
        return reply.code(row.statusCode).send(row.body);
      }
      if (row.ageSeconds > ABANDONED_AFTER_S) {
        await records.release(key, { unanswered: true });
        return withIdempotency(deps, req, reply, run);
      }
      if (Date.now() > deadline) {
        return vacationError(reply, 409, 'Solicitud en curso con la misma Idempotency-Key', {
          'Idempotency-Key': 'La primera solicitud con esta clave aún no termina; reintente en unos segundos',
        });
      }
      await new Promise((r) => setTimeout(r, 50));
    }
  }

  let captured: unknown;
  const send = reply.send.bind(reply);
  reply.send = ((payload: unknown) => {
    captured = payload;
    return send(payload);
  }) as typeof reply.send;
  try {
    const result = await run();
    if (reply.statusCode < 500) {
      await records.complete(key, reply.statusCode, captured);
    } else {
      await records.release(key);
    }
    return result;
  } catch (err) {
    await records.release(key).catch(() => {});
    throw err;
  } finally {
    reply.send = send;
  }
}
