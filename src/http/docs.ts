import swagger from '@fastify/swagger';
import swaggerUi from '@fastify/swagger-ui';
import type { FastifyInstance } from 'fastify';
import { openApiDocument } from './openapi.ts';

/** /openapi.json and a browsable page at /docs. */
export async function registerDocs(app: FastifyInstance): Promise<void> {
  const document = openApiDocument();
  await app.register(swagger, { mode: 'static', specification: { document: document as never } });
  await app.register(swaggerUi, {
    routePrefix: '/docs',
    uiConfig: { docExpansion: 'list' },
    // swagger-ui's own policy: its scripts by hash, nothing inline. Without the upgrade of
    // requests to https, which would break the page where the service is reached over http.
    staticCSP: true,
    transformStaticCSP: (header) => header.replace(/\s*upgrade-insecure-requests;/, ''),
  });
  app.get('/openapi.json', { config: { public: true } }, async () => document);
}
