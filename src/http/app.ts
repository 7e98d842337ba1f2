import { randomUUID } from 'node:crypto';
import formbody from '@fastify/formbody';
import Fastify, { LogController, type FastifyInstance, type FastifyReply, type FastifyServerOptions } from 'fastify';
import './request-types.ts';
import { apiKeyGuard } from './auth.ts';
import { boundedBodies } from './bodies.ts';
import type { AppDeps } from '../app/context.ts';
import { registerDocs } from './docs.ts';
import { MESSAGES } from '../app/messages.ts';
import { bodyTooDeep, nestsDeeperThan } from '../app/body-depth.ts';
import { errorFor, forbidden } from './envelopes.ts';
import { classifyError, errorDetail } from './errors.ts';
import { maskEmail } from '../app/fields.ts';
import { registerRateLimit } from './rate-limit.ts';
import { refuseRepeatedParameters } from './repeated-parameters.ts';
import { securityHeaders } from './security-headers.ts';
import { NOT_THE_KEYS_USER, NotTheKeysUser } from './responsible.ts';
import { bookRoutes } from './routes/book.ts';
import { electronicPayrollRoutes } from './routes/dian.ts';
import { liabilityRoutes } from './routes/liability.ts';
import { planRoutes } from './routes/plan.ts';
import { integrityRoutes } from './routes/integrity.ts';
import { feedRoutes } from './routes/feed.ts';
import { healthRoutes } from './routes/health.ts';
import { lawRoutes } from './routes/law.ts';
import { lookupRoutes } from './routes/lookups.ts';
import { noveltyRoutes } from './routes/novelties.ts';
import { readRoutes } from './routes/read.ts';
import { vacationRoutes } from './routes/vacations.ts';
import { closureRoutes } from './routes/closures.ts';

/** helmet's headers with the content security policy off: the panel sets its own (src/panel). */
const SECURITY_HEADERS = securityHeaders({ contentSecurityPolicy: false });

const hopsWithin = (hops: number) => (_address: string, hop: number) => hop < hops;

/** What Node's HTTP parser refused, as the status line and message the interface gives it. */
function clientErrorAnswer(code: string | undefined): { status: number; reason: string; message: string } {
  if (code === 'HPE_HEADER_OVERFLOW') return { status: 431, reason: 'Request Header Fields Too Large', message: MESSAGES.headersTooLarge };
  // The headers (or the whole request) did not arrive within the server's time-outs.
  if (code === 'ERR_HTTP_REQUEST_TIMEOUT') return { status: 408, reason: 'Request Timeout', message: MESSAGES.requestTimeout };
  return { status: 400, reason: 'Bad Request', message: MESSAGES.badRequest };
}

const REQUEST_ID_RE = /^[A-Za-z0-9._:-]{1,100}$/;

/**
 * Server-rendered pages mounted beside the API (the panel). The API does not know them: the
 * composition at the root hands them in, and the router's own errors on their addresses are
 * answered as pages.
 */
export interface Pages {
  mount(app: FastifyInstance, deps: AppDeps): Promise<void>;
  owns(url: string): boolean;
  sendError(reply: FastifyReply, status: 400 | 414): unknown;
}

export interface AppOptions {
  logger: FastifyServerOptions['loggerInstance'];
  pages?: Pages;
}

/** The HTTP interface: every route, in both `/api/...` and bare form, with one envelope per family. */
export async function buildApp(deps: AppDeps, opts: AppOptions): Promise<FastifyInstance> {
  const app = Fastify({
    loggerInstance: opts.logger,
    // One line per request is written in onResponse instead of fastify's two.
    logController: new LogController({ disableRequestLogging: true }),
    bodyLimit: deps.config.bodyLimitBytes,
    // A number of hops is trusted as such: the address hop-th nearest to the service and nearer.
    trustProxy: typeof deps.config.trustProxy === 'number' ? hopsWithin(deps.config.trustProxy) : deps.config.trustProxy,
    genReqId: (req) => {
      const given = req.headers['x-request-id'];
      return typeof given === 'string' && REQUEST_ID_RE.test(given) ? given : randomUUID();
    },
    routerOptions: { caseSensitive: false, ignoreTrailingSlash: true, maxParamLength: 500 },
    // Errors the router raises before any route is chosen: answered in the lookup envelope, or
    // for the panel's addresses with the panel's page.
    frameworkErrors: (err, req, rawReply) => {
      const status = err.code === 'FST_ERR_MAX_PARAM_LENGTH' ? 414 : 400;
      const reply = rawReply as FastifyReply;
      if (opts.pages?.owns(req.url)) return opts.pages.sendError(reply, status);
      return reply
        .code(status)
        .send({ success: false, statusCode: status, message: status === 414 ? MESSAGES.uriTooLong : MESSAGES.badUrl });
    },
    // Requests Node's HTTP parser refuses (oversized headers or URL, garbage) never reach fastify.
    clientErrorHandler: (err, socket) => {
      if (!socket.writable) return;
      const { status, reason, message } = clientErrorAnswer((err as { code?: string }).code);
      const body = JSON.stringify({ success: false, statusCode: status, message });
      socket.end(
        `HTTP/1.1 ${status} ${reason}\r\n` +
          `Content-Type: application/json; charset=utf-8\r\nContent-Length: ${Buffer.byteLength(body)}\r\nConnection: close\r\n\r\n${body}`,
      );
    },
    forceCloseConnections: false,
    // Slow clients (slowloris) are cut off: Node answers 408 through clientErrorHandler.
    requestTimeout: deps.config.requestTimeoutMs,
    http: {
      headersTimeout: Math.min(deps.config.headersTimeoutMs, deps.config.requestTimeoutMs),
      // How often Node looks for connections past those time-outs (its default is 30 s).
      connectionsCheckingInterval: Math.min(1000, deps.config.headersTimeoutMs),
    },
  });

  app.decorateRequest('apiKey', null);
  app.decorateRequest('responsibleEmail', null);
  app.decorateRequest('responsibleUser', null);

  // First of the hooks, so that every answer carries them, refusals by the hooks after it too.
  app.addHook('onRequest', (_req, reply, done) => {
    reply.headers(SECURITY_HEADERS);
    done();
  });
  await app.register(formbody, { bodyLimit: deps.config.bodyLimitBytes });
  // Only the form types the interface takes: a text/plain body is refused (415), not read as a string.
  app.removeContentTypeParser('text/plain');
  boundedBodies(app);
  // JSON is the only body that nests (forms and multipart are flat name=value lists): its depth is
  // checked on the text before it is parsed, for the API and the panel alike.
  const parseJson = app.getDefaultJsonParser('error', 'error');
  app.removeContentTypeParser('application/json');
  app.addContentTypeParser('application/json', { parseAs: 'string' }, (req, body, done) =>
    nestsDeeperThan(body as string) ? done(bodyTooDeep(), undefined) : parseJson(req, body as string, done),
  );
  await registerDocs(app);

  app.addHook('onRequest', async (req, reply) => {
    reply.header('x-request-id', req.id);
    // The interface's answers are about people (names, salaries, histories): no cache keeps them.
    if (req.routeOptions.config?.envelope) reply.header('cache-control', 'no-store');
  });
  app.addHook('onRequest', apiKeyGuard(deps));
  await registerRateLimit(app, deps);

  // Answers leave at the end of the event loop's turn, all together: under load the requests read
  // in one turn are answered in a burst instead of one write and one wake-up of a client at a
  // time. Answers served from memory (calculate) gain the most, since their cost is mostly the
  // write and the wake-up; see docs/benchmarks.md, Serving.
  app.addHook('onSend', async (_req, _reply, payload) => {
    await new Promise((resolve) => setImmediate(resolve));
    return payload;
  });

  // Every 503 (the database or the event store out of reach or too slow) says when to try again.
  app.addHook('onSend', async (_req, reply) => {
    if (reply.statusCode === 503 && !reply.hasHeader('retry-after')) reply.header('retry-after', '2');
  });

  app.addHook('onResponse', async (req, reply) => {
    const route = req.routeOptions.url ?? 'unmatched';
    const seconds = reply.elapsedTime / 1000;
    deps.metrics?.observeRequest(route, req.method, reply.statusCode, seconds);
    if (route.startsWith('/health') || route === '/metrics') return;
    const failed = reply.statusCode >= 400;
    req.log[reply.statusCode >= 500 ? 'error' : 'info'](
      {
        method: req.method,
        route,
        status: reply.statusCode,
        ms: Math.round(reply.elapsedTime * 10) / 10,
        apiKey: req.apiKey?.name ?? null,
        // Failed attempts may carry someone else's address: it is masked there.
        responsible: failed ? maskEmail(req.responsibleEmail) : req.responsibleEmail,
      },
      'request',
    );
  });

  app.setErrorHandler((err, req, reply) => {
    const kind = req.routeOptions.config?.envelope ?? 'lookup';
    if (err instanceof NotTheKeysUser) {
      req.log.info({ reqId: req.id, apiKey: err.keyName }, 'bound API key named another responsible');
      return forbidden(kind, reply, NOT_THE_KEYS_USER);
    }
    const c = classifyError(err);
    if (c.status >= 500) req.log.error({ err, reqId: req.id }, 'request failed');
    else req.log.info({ reqId: req.id, code: (err as { code?: string }).code }, 'request rejected');
    const detalle = errorDetail(c.status, {
      requestId: req.id,
      bodyLimitBytes: deps.config.bodyLimitBytes,
      rateLimitPerMinute: deps.config.rateLimitPerMinute,
    });
    return errorFor(kind, reply, c.status, c.message, detalle);
  });

  app.setNotFoundHandler((req, reply) => reply.code(404).send({ success: false, statusCode: 404, message: MESSAGES.routeNotFound }));

  healthRoutes(app, deps);
  await opts.pages?.mount(app, deps);
  for (const prefix of ['', '/api']) {
    await app.register(
      async (scope) => {
        scope.addHook('preValidation', refuseRepeatedParameters);
        vacationRoutes(scope, deps);
        closureRoutes(scope, deps);
        lookupRoutes(scope, deps);
        readRoutes(scope, deps);
        lawRoutes(scope, deps);
        bookRoutes(scope, deps);
        noveltyRoutes(scope, deps);
        electronicPayrollRoutes(scope, deps);
        liabilityRoutes(scope, deps);
        planRoutes(scope, deps);
        feedRoutes(scope, deps);
        integrityRoutes(scope, deps);
      },
      { prefix },
    );
  }
  return app;
}
