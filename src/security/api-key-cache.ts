import { hash } from 'node:crypto';
import { LRUCache } from 'lru-cache';
import type { ChangeFeed } from '../db/change-feed.ts';
import type { Queryable } from '../db/types.ts';
import { verifyApiKey, type ApiKeyPrincipal } from './api-keys.ts';

/**
 * Remembers keys that verified, so that a request does not cost a database lookup for its key.
 * Only while the change feed is healthy: a revocation announced by any process clears it, so a
 * revoked key stops working as soon as PostgreSQL delivers the notification. Unknown keys are
 * never cached. Each key is held for `ttlMs` at most, and the least recently used go first.
 */
export class ApiKeyCache {
  private readonly entries: LRUCache<string, ApiKeyPrincipal>;

  constructor(
    private readonly db: Queryable,
    private readonly feed: ChangeFeed,
    ttlMs = 60_000,
    maxEntries = 10_000,
  ) {
    this.entries = new LRUCache({ max: maxEntries, ttl: ttlMs });
  }

  get size(): number {
    return this.entries.size;
  }

  async verify(key: string): Promise<ApiKeyPrincipal | null> {
    const usable = this.feed.healthy;
    // One call, no Hash object to build and throw away: this runs on every request.
    const digest = hash('sha256', key, 'hex');
    if (usable) {
      const hit = this.entries.get(digest);
      if (hit) return hit;
    }
    const principal = await verifyApiKey(this.db, key);
    if (principal && usable) this.entries.set(digest, principal);
    return principal;
  }

  /** A revocation was announced, and the notice does not say which key: none is trusted any more. */
  invalidate(): void {
    this.entries.clear();
  }
}
