import type { Actor, Scope } from '../commands/types.ts';
import type { User } from '../reference/repository.ts';

/** What the API or the panel knows of who is calling, before it becomes every event's metadata. */
export interface Caller {
  user: User;
  source: 'http' | 'panel';
  requestId: string;
  /** The caller's own correlation id; the request id when it gave none. */
  correlationId?: string | null;
  /** Writes only: audited queries record no key. */
  idempotencyKey?: string | null;
  apiKey?: { id: string; name: string } | null;
  /** The subgerencias the caller may act in (an area head's); absent or null: every one. */
  scope?: Scope;
  /** The request resumes an idempotency claim whose first run may have written its events (Actor.resumes). */
  resumes?: boolean;
}

/** Who acts and through what, for the events a use case writes. */
export function actorFor(c: Caller): Actor {
  return {
    userId: c.user.id,
    userEmail: c.user.email,
    apiKeyId: c.apiKey?.id ?? null,
    apiKeyName: c.apiKey?.name ?? null,
    requestId: c.requestId,
    correlationId: c.correlationId ?? c.requestId,
    idempotencyKey: c.idempotencyKey ?? null,
    source: c.source,
    scope: c.scope ?? null,
    ...(c.resumes ? { resumes: true } : {}),
  };
}
