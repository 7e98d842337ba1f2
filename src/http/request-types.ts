import type { User } from '../reference/repository.ts';
import type { ApiKeyPrincipal, ApiKeyScope } from '../security/api-keys.ts';

/** What the API's hooks add to each request, and how a route says which envelope and scope it has. */
declare module 'fastify' {
  interface FastifyRequest {
    apiKey: ApiKeyPrincipal | null;
    /** Responsible user named by the request, once looked up; used in the request log line. */
    responsibleEmail: string | null;
    responsibleUser: User | null;
  }
  interface FastifyContextConfig {
    envelope?: 'vacation' | 'lookup' | 'contract';
    scope?: ApiKeyScope;
    public?: boolean;
  }
}
