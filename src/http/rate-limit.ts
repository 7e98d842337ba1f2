import rateLimit from '@fastify/rate-limit';
import type { FastifyInstance } from 'fastify';
import type { AppDeps } from '../app/context.ts';

/**
 * Per API key request budget (RATE_LIMIT_PER_MINUTE; 0 turns it off). It runs after the key
 * check, so it counts only callers the service knows, each on its own budget. Routes with a
 * budget of their own (`config.rateLimit`, the panel's sign-in forms) are counted by theirs
 * alone, whatever RATE_LIMIT_PER_MINUTE says.
 */
export async function registerRateLimit(app: FastifyInstance, deps: AppDeps): Promise<void> {
  const max = deps.config.rateLimitPerMinute;
  await app.register(rateLimit, {
    global: max > 0,
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
