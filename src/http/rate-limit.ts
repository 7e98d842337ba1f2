import rateLimit from '@fastify/rate-limit';
import type { FastifyInstance } from 'fastify';
import type { AppDeps } from './context.ts';

/**
 * Per API key request budget (RATE_LIMIT_PER_MINUTE; 0 turns it off). It runs after the key
 * check, so it counts only callers the service knows, each on its own budget.
 */
export async function registerRateLimit(app: FastifyInstance, deps: AppDeps): Promise<void> {
  const max = deps.config.rateLimitPerMinute;
  if (max <= 0) return;
  await app.register(rateLimit, {
    global: true,
    hook: 'preHandler',
    max,
    timeWindow: 60_000,
    keyGenerator: (req) => (req.apiKey ? `key:${req.apiKey.id}` : `ip:${req.ip}`),
    allowList: (req) => !req.apiKey,
    errorResponseBuilder: (_req, context) => {
      const err = new Error(`rate limit of ${context.max} per minute exceeded`) as Error & { statusCode: number };
      err.statusCode = 429;
      return err;
    },
  });
}
