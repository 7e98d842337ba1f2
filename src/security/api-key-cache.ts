import { createHash } from 'node:crypto';
import type { ChangeFeed } from '../db/change-feed.ts';
import type { Queryable } from '../db/types.ts';
import { verifyApiKey, type ApiKeyPrincipal } from './api-keys.ts';

interface Entry {
  principal: ApiKeyPrincipal;
  at: number;
}

/**
 * Remembers keys that verified, so that a request does not cost a database lookup for its key.
 * Only while the change feed is healthy: a revocation announced by any process clears it, so a
 * revoked key stops working as soon as PostgreSQL delivers the notification. Unknown keys are
 * never cached.
 */
export class ApiKeyCache {
  private readonly entries = new Map<string, Entry>();

  constructor(
    private readonly db: Queryable,
    private readonly feed: ChangeFeed,
    private readonly ttlMs = 60_000,
    private readonly maxEntries = 10_000,
  ) {}

  async verify(key: string): Promise<ApiKeyPrincipal | null> {
    const usable = this.feed.healthy;
    const digest = createHash('sha256').update(key).digest('hex');
    if (usable) {
      const hit = this.entries.get(digest);
      if (hit && Date.now() - hit.at < this.ttlMs) return hit.principal;
    }
    const principal = await verifyApiKey(this.db, key);
    if (principal && usable) {
      if (this.entries.size >= this.maxEntries) this.entries.clear();
      this.entries.set(digest, { principal, at: Date.now() });
    }
    return principal;
  }

  invalidate(): void {
    this.entries.clear();
  }
}
