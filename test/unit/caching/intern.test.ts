import { describe, expect, it } from 'vitest';
import { internList, internListBy } from '../../../src/caching/intern.ts';

describe('lists shared by their content', () => {
  it('gives the first list of a content to every list with the same items, and made only once', () => {
    let made = 0;
    const names = (l: readonly number[]) => {
      made++;
      return l.map((d) => `día ${d}`);
    };
    // Parsed afresh each time, as rows come from the database: equal items, distinct arrays.
    const first = internListBy(JSON.parse('[20000, 20031, 20059]') as number[], names);
    const again = internListBy(JSON.parse('[20000, 20031, 20059]') as number[], names);
    expect(again).toBe(first);
    expect(first).toEqual(['día 20000', 'día 20031', 'día 20059']);
    expect(made).toBe(1);
  });

  it('keeps apart lists that differ in one item, in their order, their length or a fraction', () => {
    const base = [1423500, 1423500, 1500000.5];
    const variants = [
      [1423500, 1423500, 1500000.25],
      [1423500, 1500000.5, 1423500],
      [1423500, 1423500],
      [1423500, 1423500, 1500000.5, 0],
      ['1423500', 1423500, 1500000.5],
    ];
    const shared = internList([...base]);
    for (const v of variants) {
      const got = internList(v);
      expect(got).not.toBe(shared);
      expect(got).toEqual(v);
    }
    expect(internList([...base])).toBe(shared);
  });

  it('shares lists of strings by their characters', () => {
    const a = internList(['2026-01-15', '2026-01-31']);
    expect(internList(['2026-01-15', '2026-01-31'].map((s) => s.slice(0)))).toBe(a);
    expect(internList(['2026-01-15', '2026-01-30'])).not.toBe(a);
    // The items' boundaries count: the same characters split otherwise are another list.
    expect(internList(['2026-01-152026', '-01-31'])).not.toBe(a);
  });

  it('answers every list with its own content among thousands of distinct ones', () => {
    const lists = Array.from({ length: 20_000 }, (_, i) => [i % 97, Math.floor(i / 97), i]);
    for (const l of lists) expect(internList([...l])).toEqual(l);
  });
});
