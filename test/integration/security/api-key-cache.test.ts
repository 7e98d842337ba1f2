import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { PostgresChangeFeed, localChangeFeed } from '../../../src/db/change-feed.ts';
import { PostgresDb } from '../../../src/db/postgres.ts';
import { ApiKeyCache } from '../../../src/security/api-key-cache.ts';
import { createApiKey, revokeApiKey } from '../../../src/security/api-keys.ts';
import { freshDb, hasServer, NEEDS_SERVER, type TestDb } from '../../support/db.ts';

async function eventually(check: () => Promise<boolean>, ms = 3000): Promise<boolean> {
  const deadline = Date.now() + ms;
  while (Date.now() < deadline) {
    if (await check()) return true;
    await new Promise((r) => setTimeout(r, 10));
  }
  return false;
}

describe.skipIf(!hasServer())(`API key cache across processes${hasServer() ? '' : ` (skipped: ${NEEDS_SERVER})`}`, () => {
  let t: TestDb;
  let feed: PostgresChangeFeed;
  let cache: ApiKeyCache;
  let other: PostgresDb;
  let queries = 0;

  beforeAll(async () => {
    t = await freshDb();
    // A second pool stands for another process (the CLI) sharing the database.
    other = new PostgresDb({ connectionString: t.url! });
    const counting = {
      query: (sql: string, params?: unknown[]) => (queries++, t.db.query(sql, params)),
      exec: (s: string) => t.db.exec(s),
    };
    feed = await PostgresChangeFeed.start(t.url!, () => cache?.invalidate());
    cache = new ApiKeyCache(counting as never, feed);
  });
  afterAll(async () => {
    await feed?.close();
    await other?.close();
    await t?.drop();
  });

  it('serves a verified key from memory, and stops accepting it once another process revokes it', async () => {
    const { key } = await createApiKey(other, { name: 'cached' });
    expect(await cache.verify(key)).toMatchObject({ name: 'cached' });
    const before = queries;
    expect(await cache.verify(key)).toMatchObject({ name: 'cached' });
    expect(queries).toBe(before);

    await revokeApiKey(other, 'cached');
    expect(await eventually(async () => (await cache.verify(key)) === null)).toBe(true);
  });

  it('never caches an unknown key', async () => {
    const before = queries;
    await cache.verify('vac_' + 'x'.repeat(43));
    await cache.verify('vac_' + 'x'.repeat(43));
    expect(queries).toBe(before + 2);
  });

  it('goes to the database for every request while it cannot hear changes', async () => {
    const { key } = await createApiKey(other, { name: 'deaf' });
    await feed.close();
    expect(feed.healthy).toBe(false);
    const before = queries;
    await cache.verify(key);
    await cache.verify(key);
    expect(queries).toBe(before + 2);
  });
});

describe('API key cache bound', () => {
  let t: TestDb;
  beforeAll(async () => {
    t = await freshDb();
  });
  afterAll(async () => {
    await t?.drop();
  });

  it('holds no more keys than its bound, dropping the least recently used, and still verifies every key', async () => {
    let queries = 0;
    const counting = {
      query: (sql: string, params?: unknown[]) => (queries++, t.db.query(sql, params)),
      exec: (s: string) => t.db.exec(s),
    };
    const cache = new ApiKeyCache(counting as never, localChangeFeed, 60_000, 2);
    const keys = [];
    for (let i = 0; i < 5; i++) keys.push((await createApiKey(t.db, { name: `k${i}` })).key);
    for (const [i, key] of keys.entries()) {
      // The first key is used between every other one: it stays held throughout.
      expect(await cache.verify(keys[0]!)).toMatchObject({ name: 'k0' });
      expect(await cache.verify(key)).toMatchObject({ name: `k${i}` });
      expect(cache.size).toBeLessThanOrEqual(2);
    }
    let before = queries;
    await cache.verify(keys[0]!);
    expect(queries).toBe(before);
    before = queries;
    await cache.verify(keys[1]!);
    expect(queries).toBeGreaterThan(before);
  });
});
