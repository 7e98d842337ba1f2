import { isIP } from 'node:net';
import type { RateLimitOptions } from '@fastify/rate-limit';
import type { FastifyRequest } from 'fastify';

/** Posts of the sign-in form, and of an invitation's form, one client address may make per window. */
export const ADDRESS_ATTEMPTS = 30;
export const ADDRESS_WINDOW_MS = 15 * 60_000;

/** The error a form's address budget answers with; the panel's error page words it. */
export const TOO_MANY_FROM_ADDRESS = 'PANEL_TOO_MANY_FROM_ADDRESS';

/**
 * Who a request comes from, for throttling: its address as TRUST_PROXY lets the service believe
 * it, an IPv6 address by its /64 (what one subscriber is usually given, so that walking through
 * a network's addresses is still one client).
 */
export function clientOf(req: Pick<FastifyRequest, 'ip'>): string {
  const ip = req.ip.startsWith('::ffff:') && isIP(req.ip.slice(7)) === 4 ? req.ip.slice(7) : req.ip;
  if (isIP(ip) !== 6) return ip;
  const [head = '', tail = ''] = ip.split('::');
  const left = head ? head.split(':') : [];
  const right = tail ? tail.split(':') : [];
  const groups = ip.includes('::') ? [...left, ...Array(8 - left.length - right.length).fill('0'), ...right] : left;
  return `${groups
    .slice(0, 4)
    .map((g) => g.toLowerCase().replace(/^0+(?=.)/, ''))
    .join(':')}::/64`;
}

/**
 * A route's budget per client address (@fastify/rate-limit, kept in this process): checked
 * before the form is read. Past it the panel answers 429 with a page that names neither the
 * e-mail nor the password.
 */
export const perAddress = (form: string): { rateLimit: RateLimitOptions } => ({
  rateLimit: {
    max: ADDRESS_ATTEMPTS,
    timeWindow: ADDRESS_WINDOW_MS,
    hook: 'onRequest',
    keyGenerator: (req: FastifyRequest) => `panel-${form}:${clientOf(req)}`,
    // Nobody is let through (the service's API-key budget lets through requests without a key).
    allowList: () => false,
    errorResponseBuilder: (_req, context) =>
      Object.assign(new Error(`too many ${form} attempts from one address`), {
        statusCode: 429,
        code: TOO_MANY_FROM_ADDRESS,
        retryAfterMinutes: Math.max(1, Math.ceil(context.ttl / 60_000)),
      }),
  },
});
