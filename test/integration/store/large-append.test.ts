import { randomUUID } from 'node:crypto';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { migrate } from '../../../src/migrations.ts';
import { PgliteDb } from '../../../src/db/pglite.ts';
import type { Db } from '../../../src/db/types.ts';
import { PostgresEventStore } from '../../../src/store/postgres-store.ts';
import type { StreamWrite } from '../../../src/store/types.ts';
import { freshDb, hasServer, type TestDb } from '../../support/db.ts';

/**
 * Appends whose cost grows faster than their size: a subscript of a variable-length array inside
 * the append functions walks the array from its start, so n events took time n². These tests
 * compare a large append with one a tenth of its size. Linear work takes about ten times as long;
 * the bound allows half as much again plus a few seconds of noise, where quadratic work takes
 * forty times as long and more. They measure growth, not speed: the figures are in bench/.
 */
const SMALL = 5_000;
const LARGE = 50_000;
const bound = (smallMs: number) => 15 * smallMs + 3_000;

/** `events` events over new streams, two per stream, the way an import writes them. */
function writes(events: number, expected: StreamWrite['expectedRevision'] = 'no_stream'): StreamWrite[] {
  return Array.from({ length: events / 2 }, (_, i) => ({
    stream: `big-${randomUUID()}`,
    expectedRevision: expected,
    events: [0, 1].map((k) => ({
      id: randomUUID(),
      type: 'Imported',
      data: { i, k, note: 'x'.repeat(200) },
      metadata: { source: 'test' },
    })),
  }));
}

async function timed<T>(fn: () => Promise<T>): Promise<{ ms: number; value: T }> {
  const t0 = performance.now();
  const value = await fn();
  return { ms: performance.now() - t0, value };
}

async function checkedAppendGrowsLinearly(db: Db): Promise<void> {
  const store = new PostgresEventStore(db);
  const small = await timed(() => store.append(writes(SMALL)));
  const large = await timed(() => store.append(writes(LARGE)));
  expect(large.value.revisions).toHaveLength(LARGE / 2);
  expect(large.value.revisions.every((r) => r.revision === 1)).toBe(true);
  const n = await db.query<{ n: string }>('SELECT count(*)::text AS n FROM events');
  expect(Number(n.rows[0]!.n)).toBe(SMALL + LARGE);
  expect(large.ms).toBeLessThan(bound(small.ms));
}

describe('appends of tens of thousands of events', () => {
  let t: TestDb;
  let store: PostgresEventStore;
  beforeAll(async () => {
    t = await freshDb();
    store = new PostgresEventStore(t.db);
  });
  afterAll(async () => {
    await t?.drop();
  });

  it('writes one append of 50,000 events in time that grows with its size, not its square', async () => {
    await checkedAppendGrowsLinearly(t.db);
  }, 120_000);

  it('writes 50,000 events that expect no revision (the short append) in linear time', async () => {
    const small = await timed(() => store.appendAny(writes(SMALL, 'any')));
    const large = await timed(() => store.appendAny(writes(LARGE, 'any')));
    expect(large.value.revisions.every((r) => r.revision === 1)).toBe(true);
    expect(large.ms).toBeLessThan(bound(small.ms));
  }, 120_000);

  it('answers a group whose large appends build on each other, append by append, in linear time', async () => {
    // Two appends naming the same streams with expected revisions cannot be checked together:
    // the group takes its slower way, one append after the other.
    const run = async (events: number) => {
      const first = writes(events);
      const second = first.map((w) => ({ ...w, expectedRevision: 1, events: writes(2)[0]!.events }));
      return timed(() => Promise.all([store.append(first), store.append(second)]));
    };
    const small = await run(SMALL / 2);
    const large = await run(LARGE / 2);
    const [a, b] = large.value;
    expect(a.revisions.every((r) => r.revision === 1)).toBe(true);
    expect(b.revisions.every((r) => r.revision === 3)).toBe(true);
    expect(large.ms).toBeLessThan(bound(small.ms));
  }, 120_000);

  // The suite's database is PGlite already when there is no server.
  it.skipIf(!hasServer())(
    'writes one append of 50,000 events in linear time on the embedded PGlite too',
    async () => {
      const db = await PgliteDb.open();
      try {
        await migrate(db);
        await checkedAppendGrowsLinearly(db);
      } finally {
        await db.close();
      }
    },
    120_000,
  );
});
