import { randomUUID } from 'node:crypto';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { BY_STREAM_PAGE, KEY_WALK_PLAN, PostgresEventStore, TYPED_LOG_PAGE } from '../../../src/store/postgres-store.ts';
import { freshDb, type TestDb } from '../../support/db.ts';

/**
 * A rebuild reads the log a page at a time, stream by stream or (its catch-up) in the log's order,
 * only the types its read models handle. Right after a bulk import (where autovacuum is off,
 * nobody analyzes the log) the planner knows nothing of the events table and planned a scan and
 * sort of the whole log for every page: the plan must be the walk of the key, which stops at the
 * page's end, whatever the statistics say.
 */
describe('a rebuild reading the log', () => {
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

  /** The plan of a page's query as the store runs it, in its transaction with its settings. */
  const planOf = (sql: string, params: unknown[]) =>
    t.db.transaction(async (tx) => {
      await tx.exec(KEY_WALK_PLAN);
      const r = await tx.query<Record<string, string>>(`EXPLAIN ${sql}`, params);
      return r.rows.map((row) => Object.values(row)[0]).join('\n');
    });

  it('walks the (stream, revision) key from where the last page ended, with no sort, on a log without statistics', async () => {
    const stats = await t.db.query<{ n: string }>(`SELECT count(*)::text AS n FROM pg_stats WHERE tablename = 'events'`);
    expect(stats.rows[0]!.n).toBe('0');
    const plan = await planOf(BY_STREAM_PAGE, ['w-17', 2, ['Handled'], '99999999', '99999999', 500]);
    expect(plan).toMatch(/Index Scan using events_stream_revision_key/);
    expect(plan).not.toMatch(/Sort|Seq Scan|Gather/);
  });

  it("walks the log's (tx_id, position) key for a page of some types, with no sort, on a log without statistics", async () => {
    const plan = await planOf(TYPED_LOG_PAGE, ['1', '5', 500, ['Handled']]);
    expect(plan).toMatch(/Index Scan using events_tx_position on events/);
    expect(plan).not.toMatch(/Sort|Seq Scan on events|Gather/);
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
