import { describe, expect, it } from 'vitest';
import { ReadYourWrites } from '../../../src/projections/runtime/read-your-writes.ts';
import type { Position } from '../../../src/store/types.ts';

const at = (n: number): Position => ({ commit: BigInt(n), prepare: BigInt(n) });

/** A read-model side whose progress the test moves by hand. */
function projections() {
  const waits: { position: Position; resolve: (ok: boolean) => void }[] = [];
  return {
    waits,
    waitFor: (position: Position) => new Promise<boolean>((resolve) => waits.push({ position, resolve })),
  };
}

describe('read-your-writes on one instance', () => {
  it('lets reads through untouched while no write is pending', async () => {
    const p = projections();
    const rw = new ReadYourWrites(p.waitFor, 2000);
    expect(await rw.fresh(async () => 'answer')).toBe('answer');
    expect(p.waits).toHaveLength(0);
  });

  it('holds reads that start after a write until the read models include it, with one wait for all of them', async () => {
    const p = projections();
    const rw = new ReadYourWrites(p.waitFor, 2000);
    rw.noteWrite(at(5));
    const order: string[] = [];
    const reads = [1, 2, 3].map((n) => rw.fresh(async () => (order.push(`read ${n}`), n)));
    await new Promise((r) => setTimeout(r, 5));
    expect(order).toEqual([]);
    expect(p.waits.map((w) => w.position)).toEqual([at(5)]);
    order.push('included');
    p.waits[0]!.resolve(true);
    expect(await Promise.all(reads)).toEqual([1, 2, 3]);
    expect(order).toEqual(['included', 'read 1', 'read 2', 'read 3']);
    // Known to be included: later reads do not wait again.
    await rw.fresh(async () => 0);
    expect(p.waits).toHaveLength(1);
  });

  it('waits again for a newer write, not for an older one', async () => {
    const p = projections();
    const rw = new ReadYourWrites(p.waitFor, 2000);
    rw.noteWrite(at(5));
    const first = rw.fresh(async () => 'a');
    rw.noteWrite(at(9));
    rw.noteWrite(at(7));
    const second = rw.fresh(async () => 'b');
    expect(p.waits.map((w) => w.position)).toEqual([at(5), at(9)]);
    p.waits[1]!.resolve(true);
    expect(await second).toBe('b');
    p.waits[0]!.resolve(true);
    expect(await first).toBe('a');
    await rw.fresh(async () => 'c');
    expect(p.waits).toHaveLength(2);
  });

  it('answers a read whose wait timed out, says so, and has the next read wait once more', async () => {
    const p = projections();
    let timeouts = 0;
    const rw = new ReadYourWrites(p.waitFor, 2000, () => timeouts++);
    rw.noteWrite(at(3));
    const read = rw.fresh(async () => 'late');
    p.waits[0]!.resolve(false);
    expect(await read).toBe('late');
    expect(timeouts).toBe(1);
    const again = rw.fresh(async () => 'again');
    expect(p.waits).toHaveLength(2);
    p.waits[1]!.resolve(true);
    expect(await again).toBe('again');
  });
});
