import { ENDPOINTS, route } from '../endpoints.ts';
import type { FastifyInstance } from 'fastify';
import type { AppDeps } from '../../app/context.ts';

export function healthRoutes(app: FastifyInstance, deps: AppDeps) {
  const pub = { config: { public: true } };
  route(app, ENDPOINTS.health, async () => ({ status: 'ok' }));
  route(app, ENDPOINTS.ready, async (req, reply) => {
    try {
      await deps.checkReady();
      return { status: 'ready' };
    } catch (err) {
      req.log.warn({ err: (err as Error).message }, 'not ready');
      return reply.code(503).send({ status: 'unavailable', reason: (err as Error).message.split('\n')[0] });
    }
  });
  if (deps.metricsText) {
    app.get('/metrics', pub, async (_req, reply) => {
      const m = await deps.metricsText!();
      return reply.type(m.contentType).send(m.body);
    });
  }
}
