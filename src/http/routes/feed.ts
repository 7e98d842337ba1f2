import { ENDPOINTS, route } from '../endpoints.ts';
import type { FastifyInstance } from 'fastify';
import { FEED_MAX_LIMIT, FEED_MAX_WAIT_S, cursorKeyOf, cursorOf, positionOfCursor, readFeed } from '../../integration/feed.ts';
import { START } from '../../app/ports.ts';
import type { AppDeps } from '../../app/context.ts';
import { lookupError } from '../envelopes.ts';
import { Fields } from '../../app/fields.ts';

/** How often a long poll looks at the log when nothing here tells it of appends (projectors elsewhere). */
const LOOK_AGAIN_MS = 250;
/** Longest a long poll waits on this instance's runners before it looks again (one may hand its lock on). */
const HEARD_WITHIN_MS = 2000;

export const FEED_MESSAGES = {
  malformed: 'El cursor "desde" no es válido: use el valor "siguiente" de una respuesta anterior, o ninguno para empezar',
  otherDatabase: 'El cursor "desde" pertenece a otra base de datos: empiece de nuevo sin "desde"',
  limit: `El parámetro "limite" debe ser un entero de 1 a ${FEED_MAX_LIMIT}`,
  wait: `El parámetro "espera" debe ser un entero de 0 a ${FEED_MAX_WAIT_S} (segundos)`,
} as const;

/** A whole number from `min` to `max`, the default when absent, undefined when anything else. */
function bounded(v: string | undefined, min: number, max: number, dflt: number): number | undefined {
  if (v === undefined) return dflt;
  if (!/^\d{1,5}$/.test(v)) return undefined;
  const n = Number(v);
  return n >= min && n <= max ? n : undefined;
}

/**
 * GET /eventos: the change feed. The business events after the cursor `desde`, in log order, as
 * CloudEvents 1.0, and `siguiente`, the cursor to ask from next. With `espera`, a call that finds
 * none waits up to that many seconds and answers as soon as one is appended.
 */
export function feedRoutes(app: FastifyInstance, deps: AppDeps) {
  route(app, ENDPOINTS.feed, async (req, reply) => {
    const fields = new Fields(req.query);
    const limit = bounded(fields.get('limite'), 1, FEED_MAX_LIMIT, 100);
    if (limit === undefined) return lookupError(reply, 400, FEED_MESSAGES.limit);
    const wait = bounded(fields.get('espera'), 0, FEED_MAX_WAIT_S, 0);
    if (wait === undefined) return lookupError(reply, 400, FEED_MESSAGES.wait);
    const key = await cursorKeyOf(deps.db, deps.store);
    const cursor = fields.get('desde');
    let after = START;
    if (cursor !== undefined && cursor !== '') {
      const p = positionOfCursor(cursor, key);
      if (typeof p === 'string') return lookupError(reply, 400, FEED_MESSAGES[p]);
      after = p;
    }
    const deadline = Date.now() + wait * 1000;
    for (;;) {
      // Listening starts before the read, so an append during it wakes the wait that follows.
      const left = deadline - Date.now();
      const appended =
        deps.nextAppend?.(Math.min(left, HEARD_WITHIN_MS)) ?? new Promise((r) => setTimeout(r, Math.min(left, LOOK_AGAIN_MS)));
      const page = await readFeed(
        deps.store,
        after,
        limit,
        async (doc) => (await deps.reference.workerFileByDocument(doc))?.contracts ?? [],
      );
      // The tag of a log that was empty when the call began is its first event's now.
      const next = cursorOf(key.tag === '0' ? await cursorKeyOf(deps.db, deps.store) : key, page.next);
      if (page.events.length > 0 || Date.now() >= deadline || req.raw.destroyed) {
        reply.header('cache-control', 'no-store');
        return { success: true, statusCode: 200, eventos: page.events, siguiente: next };
      }
      after = page.next;
      await appended;
    }
  });
}
