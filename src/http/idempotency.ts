import { createHash } from 'node:crypto';
import type { FastifyReply, FastifyRequest } from 'fastify';
import type { AppDeps } from './context.ts';
import { MESSAGES, vacationError } from './envelopes.ts';

const WAIT_FOR_FIRST_MS = 5000;
/** A claim older than this belongs to a request that died; a retry may take it over. */
const ABANDONED_AFTER_S = 120;

function fingerprint(req: FastifyRequest): string {
  const body = req.body && typeof req.body === 'object' ? (req.body as Record<string, unknown>) : {};
  const canonical = Object.keys(body)
    .map((k) => [k.toLowerCase(), body[k]] as const)
    .sort(([a], [b]) => (a < b ? -1 : a > b ? 1 : 0));
  return createHash('sha256').update(`${req.routeOptions.url}\n${JSON.stringify(canonical)}`).digest('hex');
}

interface Row {
  fingerprint: string;
  status_code: number | null;
  body: unknown;
  age_s: string;
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
  const apiKeyId = req.apiKey!.id;
  const fp = fingerprint(req);
  const claimed = await deps.db.query(
    `INSERT INTO idempotency_keys (api_key_id, key, route, fingerprint) VALUES ($1, $2, $3, $4)
     ON CONFLICT DO NOTHING RETURNING key`,
    [apiKeyId, raw, req.routeOptions.url ?? '', fp],
  );
  if (claimed.rowCount === 0) {
    const deadline = Date.now() + WAIT_FOR_FIRST_MS;
    for (;;) {
      const r = await deps.db.query<Row>(
        `SELECT fingerprint, status_code, body, extract(epoch FROM now() - created_at)::text AS age_s
         FROM idempotency_keys WHERE api_key_id = $1 AND key = $2`,
        [apiKeyId, raw],
      );
      const row = r.rows[0];
      if (!row) return withIdempotency(deps, req, reply, run); // released by a failed first attempt
      if (row.fingerprint !== fp) {
        return vacationError(reply, 422, 'Idempotency-Key ya usada con otra solicitud', {
          'Idempotency-Key': 'La clave ya se usó con datos diferentes; use una clave nueva',
        });
      }
      if (row.status_code !== null) {
        reply.header('idempotent-replayed', 'true');
        return reply.code(row.status_code).send(row.body);
      }
      if (Number(row.age_s) > ABANDONED_AFTER_S) {
        await deps.db.query('DELETE FROM idempotency_keys WHERE api_key_id = $1 AND key = $2 AND status_code IS NULL', [apiKeyId, raw]);
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
      await deps.db.query(
        `UPDATE idempotency_keys SET status_code = $3, body = $4::jsonb, completed_at = now() WHERE api_key_id = $1 AND key = $2`,
        [apiKeyId, raw, reply.statusCode, JSON.stringify(captured ?? null)],
      );
    } else {
      await deps.db.query('DELETE FROM idempotency_keys WHERE api_key_id = $1 AND key = $2', [apiKeyId, raw]);
    }
    return result;
  } catch (err) {
    await deps.db.query('DELETE FROM idempotency_keys WHERE api_key_id = $1 AND key = $2', [apiKeyId, raw]).catch(() => {});
    throw err;
  } finally {
    reply.send = send;
  }
}
