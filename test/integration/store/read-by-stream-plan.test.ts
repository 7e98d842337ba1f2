import { randomUUID } from 'node:crypto';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { BY_STREAM_PAGE, BY_STREAM_PLAN, PostgresEventStore } from '../../../src/store/postgres-store.ts';
import { freshDb, type TestDb } from '../../support/db.ts';

/**
 * A rebuild reads the log stream by stream, a page at a time. Right after a bulk import (where
 * autovacuum is off, nobody analyzes the log) the planner knows nothing of the events table and
 * planned a scan and sort of the whole log for every page: the plan must be the walk of the
 * (stream, revision) key, which stops at the page's end, whatever the statistics say.
 */
describe('reading the log stream by stream', () => {
  let t: TestDb;
  beforeAll(async () => {
    t = await freshDb();
    const store = new PostgresEventStore(t.db);
    await store.append(
      Array.from({ length: 400 }, (_, i) => ({
        stream: `w-${i}`,
        expectedRevision: 'no_stream' as const,
        events: Array.from({ length: 5 }, (_, k) => ({
          id: randomUUID(),
          type: k % 2 === 0 ? 'Handled' : 'Other',
          data: { i, k, note: 'x'.repeat(100) },
          metadata: {},
        })),
      })),
    );
  });
  afterAll(async () => {
    await t?.drop();
  });

  it('walks the key from where the last page ended, with no sort, on a log without statistics', async () => {
    const stats = await t.db.query<{ n: string }>(`SELECT count(*)::text AS n FROM pg_stats WHERE tablename = 'events'`);
    expect(stats.rows[0]!.n).toBe('0');
    const plan = await t.db.transaction(async (tx) => {
      await tx.exec(BY_STREAM_PLAN);
      const r = await tx.query<Record<string, string>>(`EXPLAIN ${BY_STREAM_PAGE}`, ['w-17', 2, ['Handled'], '99999999', '99999999', 500]);
      return r.rows.map((row) => Object.values(row)[0]).join('\n');
    });
    expect(plan).toMatch(/Index Scan using events_stream_revision_key/);
    expect(plan).not.toMatch(/Sort|Seq Scan|Gather/);
  });

  it('pages through every handled event once, in stream order, up to the position asked', async () => {
    const store = new PostgresEventStore(t.db);
    const upTo = await store.headPosition();
    const seen: string[] = [];
    let after: { stream: string; revision: number } | undefined;
    for (;;) {
      const page = await store.readByStream({ after, upTo, types: ['Handled'], limit: 97 });
      if (page.length === 0) break;
      for (const e of page) seen.push(`${e.stream}/${e.revision}`);
      const last = page[page.length - 1]!;
      after = { stream: last.stream, revision: last.revision };
    }
    const all = await t.db.query<{ e: string }>(
      `SELECT stream || '/' || revision AS e FROM events WHERE type = 'Handled' ORDER BY stream, revision`,
    );
    expect(seen).toHaveLength(400 * 3);
    expect(seen).toEqual(all.rows.map((r) => r.e));
  });
});
