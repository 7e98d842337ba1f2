import type { FastifyInstance } from 'fastify';
import type { AppDeps } from '../../app/context.ts';

export function healthRoutes(app: FastifyInstance, deps: AppDeps) {
  const pub = { config: { public: true } };
  app.get('/health', pub, async () => ({ status: 'ok' }));
  app.get('/health/ready', pub, async (req, reply) => {
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
