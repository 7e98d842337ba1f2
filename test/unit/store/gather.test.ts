import { describe, expect, it } from 'vitest';
import { BatchedAppender } from '../../../src/caching/batched-appender.ts';
import { Gatherer, batchLimit } from '../../../src/store/gather.ts';
import type { EventStore, StreamWrite } from '../../../src/store/types.ts';

/** One batch at a time, each answering ten times its items; the first is held until released. */
function gated(batching = true) {
  const batches: number[][] = [];
  let release!: () => void;
  const gate = new Promise<void>((r) => (release = r));
  const g = new Gatherer<number, number>(
    async (batch) => {
      batches.push(batch.map((a) => a.item));
      if (batches.length === 1) await gate;
      for (const a of batch) a.resolve(a.item * 10);
    },
    1,
    batchLimit(Number.POSITIVE_INFINITY, batching),
  );
  return { g, batches, release };
}

/**
 * Asks for `count` items in one turn of a gatherer of two slots whose batches each take 5 ms;
 * answers the batches' sizes in order and the most that ran at once.
 */
async function batchesOf(count: number, maxBatch: number, apart?: (first: readonly number[], rest: readonly number[]) => boolean) {
  const sizes: number[] = [];
  let running = 0;
  let most = 0;
  const g = new Gatherer<number, number>(
    async (batch) => {
      running++;
      most = Math.max(most, running);
      sizes.push(batch.length);
      await new Promise((r) => setTimeout(r, 5));
      running--;
      for (const a of batch) a.resolve(a.item);
    },
    2,
    maxBatch,
    apart,
  );
  const items = Array.from({ length: count }, (_, n) => n);
  expect(await Promise.all(items.map((n) => g.ask(n)))).toEqual(items);
  return { sizes, most };
}

describe('gathering what callers ask for into batches', () => {
  it('sends what is asked for together as one batch, and what arrives meanwhile as the next', async () => {
    const { g, batches, release } = gated();
    const first = [1, 2, 3].map((n) => g.ask(n));
    await new Promise((r) => setImmediate(r));
    const later = [4, 5].map((n) => g.ask(n));
    await new Promise((r) => setTimeout(r, 5));
    expect(batches).toEqual([[1, 2, 3]]);
    release();
    expect(await Promise.all([...first, ...later])).toEqual([10, 20, 30, 40, 50]);
    expect(batches).toEqual([
      [1, 2, 3],
      [4, 5],
    ]);
  });

  it('starts what waited for a slot as soon as the slot frees, without waiting another turn', async () => {
    const { g, batches, release } = gated();
    const first = g.ask(1);
    await new Promise((r) => setImmediate(r));
    const second = g.ask(2);
    let turned = false;
    setImmediate(() => (turned = true));
    release();
    await first;
    await new Promise<void>((r) => queueMicrotask(r));
    expect(batches).toEqual([[1], [2]]);
    expect(turned).toBe(false);
    await second;
  });

  it('keeps batches to their largest size and runs no more than allowed at once', async () => {
    expect(await batchesOf(10, 3)).toEqual({ sizes: [3, 3, 3, 1], most: 2 });
  });

  it('shares what waits among the free slots where the shares are apart, and keeps it whole otherwise', async () => {
    // Asked in one turn: from idle, all of them wait for the first batch together.
    expect(await batchesOf(7, 100, () => true)).toEqual({ sizes: [4, 3], most: 2 });
    // Shares that are not apart (here: an item of the rest above every item of the first) go whole.
    expect(await batchesOf(7, 100, (first, rest) => !rest.some((n) => n > Math.max(...first)))).toEqual({ sizes: [7], most: 1 });
    expect(await batchesOf(7, 100)).toEqual({ sizes: [7], most: 1 });
  });

  it('tells every caller of a batch that failed', async () => {
    const g = new Gatherer<number, number>(async () => {
      throw new Error('down');
    });
    const results = await Promise.allSettled([g.ask(1), g.ask(2)]);
    expect(results.map((r) => r.status)).toEqual(['rejected', 'rejected']);
  });
});

describe('with batching turned off (VACACIONES_BATCHING=off)', () => {
  it('a gatherer sends every caller alone, in order, and still answers each', async () => {
    const { g, batches, release } = gated(false);
    const answers = [1, 2, 3].map((n) => g.ask(n));
    release();
    expect(await Promise.all(answers)).toEqual([10, 20, 30]);
    expect(batches).toEqual([[1], [2], [3]]);
  });

  it("the batched appender writes each caller's events in an append of their own", async () => {
    const appends: number[] = [];
    const store = { appendAny: async (writes: StreamWrite[]) => (appends.push(writes.length), { position: { commit: 1n, prepare: 1n } }) };
    const audits = new BatchedAppender(store as unknown as EventStore, batchLimit(500, false));
    const w = (s: string): StreamWrite => ({ stream: s, expectedRevision: 'any', events: [] });
    await Promise.all([audits.append([w('a')]), audits.append([w('b'), w('c')]), audits.append([w('d')])]);
    expect(appends).toEqual([1, 2, 1]);
  });
});
