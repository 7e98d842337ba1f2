import type { IncomingMessage, ServerResponse } from 'node:http';
import helmet, { type HelmetOptions } from 'helmet';

/**
 * The security headers helmet sets with these options, worked out once at start. Its headers do
 * not depend on the request (the content security policy, the one that could, is the panel's
 * own): @fastify/helmet built helmet's eleven middlewares again for every request and ran them
 * through two hooks, a twentieth of a calculate's time in the service.
 */
export function securityHeaders(options: Readonly<HelmetOptions>): Readonly<Record<string, string>> {
  const headers: Record<string, string> = {};
  const response = {
    setHeader(name: string, value: string | number | readonly string[]) {
      headers[name.toLowerCase()] = Array.isArray(value) ? value.join(', ') : String(value);
    },
    removeHeader(name: string) {
      delete headers[name.toLowerCase()];
    },
  };
  let ran = false;
  helmet(options)({} as IncomingMessage, response as unknown as ServerResponse, (err?: unknown) => {
    if (err) throw err;
    ran = true;
  });
  // Every middleware of helmet's is synchronous today; one that is not would leave headers out.
  if (!ran) throw new Error('helmet did not set its headers at once');
  return Object.freeze(headers);
}
