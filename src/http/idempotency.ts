import { createHash } from 'node:crypto';
import type { FastifyReply, FastifyRequest } from 'fastify';
import type { AppDeps } from '../app/context.ts';
import { MESSAGES } from '../app/messages.ts';
import { vacationError } from './envelopes.ts';
import { IdempotencyRecords, type IdempotencyKey, type IdempotencyRecord } from './idempotency-records.ts';

const WAIT_FOR_FIRST_MS = 5000;
/**
 * A claim older than this belongs to a request that died, where it cannot be proved sooner
 * (a claim made without an instance, or an app built without the processes' liveness).
 */
const ABANDONED_AFTER_S = 120;

/** The requests whose claim was taken over from a process that ended: they may have been written already. */
const resuming = new WeakSet<FastifyRequest>();

/** Whether this request resumes a claim whose first run may have written its events before its process ended. */
export const resumesClaim = (req: FastifyRequest): boolean => resuming.has(req);

/**
 * The keys this process holds a claim on, or is taking one on, by API key and key: counted
 * before the claim is written, so that no retry here sees this process's claim as one it is
 * not running.
 */
const holding = new Map<string, number>();
const holdingName = (k: IdempotencyKey) => `${k.apiKeyId}\n${k.key}`;

/** Runs `take` counted as holding the key; keeps the count only when `take` answers true. */
async function taking(key: IdempotencyKey, take: () => Promise<boolean>): Promise<boolean> {
  const name = holdingName(key);
  holding.set(name, (holding.get(name) ?? 0) + 1);
  let taken = false;
  try {
    taken = await take();
  } finally {
    if (!taken) letGo(key);
  }
  return taken;
}

function letGo(key: IdempotencyKey): void {
  const name = holdingName(key);
  const n = (holding.get(name) ?? 1) - 1;
  if (n > 0) holding.set(name, n);
  else holding.delete(name);
}

/**
 * For the crash test only (test/reliability/idempotency-crash.test.ts), never set in production:
 * the process kills itself with SIGKILL when the N-th keyed write has done its work and before its
 * answer is kept or sent.
 */
const KILL_AFTER_WRITES = Number(process.env.VACACIONES_TEST_KILL_AFTER_WRITES ?? 0);
let writesDone = 0;

/** The request's route and body; undefined when the body is nested too deeply to be put in a string. */
function fingerprint(req: FastifyRequest): string | undefined {
  const body = req.body && typeof req.body === 'object' ? (req.body as Record<string, unknown>) : {};
  const canonical = Object.keys(body)
    .map((k) => [k.toLowerCase(), body[k]] as const)
    .sort(([a], [b]) => (a < b ? -1 : a > b ? 1 : 0));
  let text: string;
  try {
    text = JSON.stringify(canonical);
  } catch (err) {
    if (err instanceof RangeError) return undefined;
    throw err;
  }
  return createHash('sha256').update(`${req.routeOptions.url}\n${text}`).digest('hex');
}

/**
 * `Idempotency-Key` on a write: the first request with a key runs and its answer is kept; a
 * retry with the same key and body gets that answer again instead of acting twice. Keys are
 * scoped to the API key that sent them. Server errors are not kept, so a retry can succeed.
 *
 * A claim carries the instance of the process that runs it. A retry that finds it unanswered,
 * from a process that has ended (AppDeps.liveness), takes it over at once and runs the request
 * as resuming it: the command looks for events written under the key first (every event's
 * metadata carries it, written in the same append) and answers from them as the first run
 * would have, or, finding none, runs the request once.
 */
export async function withIdempotency(deps: AppDeps, req: FastifyRequest, reply: FastifyReply, run: () => Promise<unknown>) {
  const raw = req.headers['idempotency-key'];
  if (raw === undefined) return run();
  if (typeof raw !== 'string' || raw.trim() === '' || raw.length > 200) {
    return vacationError(reply, 400, MESSAGES.missingData, { 'Idempotency-Key': 'Debe tener entre 1 y 200 caracteres' });
  }
  const fp = fingerprint(req);
  if (fp === undefined) return vacationError(reply, 400, MESSAGES.badBody, { body: 'El cuerpo tiene demasiados niveles de anidamiento' });
  const records = new IdempotencyRecords(deps.db);
  const key = { apiKeyId: req.apiKey!.id, key: raw };
  const instance = deps.liveness?.id ?? null;
  if (await taking(key, () => records.claim(key, req.routeOptions.url ?? '', fp, instance))) return runClaimed(records, key, reply, run);
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
    if ((await holderEnded(deps, key, row)) && (await taking(key, () => records.takeOver(key, row.instanceId, instance)))) {
      resuming.add(req);
      return runClaimed(records, key, reply, run);
    }
    if (Date.now() > deadline) {
      return vacationError(reply, 409, 'Solicitud en curso con la misma Idempotency-Key', {
        'Idempotency-Key': 'La primera solicitud con esta clave aún no termina; reintente en unos segundos',
      });
    }
    await new Promise((r) => setTimeout(r, 50));
  }
}

/**
 * Whether the process holding an unanswered claim has ended: another instance whose lock is
 * gone, or this one's id on a claim it is not running (an ended process drew the same id).
 */
async function holderEnded(deps: AppDeps, key: IdempotencyKey, row: IdempotencyRecord): Promise<boolean> {
  const liveness = deps.liveness;
  if (row.instanceId === null || !liveness) return row.ageSeconds > ABANDONED_AFTER_S;
  if (row.instanceId === liveness.id) return !holding.has(holdingName(key));
  return !(await liveness.isAlive(row.instanceId));
}

/** Runs the request whose claim this process holds (counted in `holding`), and keeps its answer (frees the key after a server error). */
async function runClaimed(records: IdempotencyRecords, key: IdempotencyKey, reply: FastifyReply, run: () => Promise<unknown>) {
  let captured: unknown;
  const send = reply.send.bind(reply);
  reply.send = ((payload: unknown) => {
    captured = payload;
    if (KILL_AFTER_WRITES > 0 && reply.statusCode < 300 && ++writesDone === KILL_AFTER_WRITES) process.kill(process.pid, 'SIGKILL');
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
    letGo(key);
  }
}
