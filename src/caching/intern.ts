import { LRUCache } from 'lru-cache';

/**
 * One shared string per value for the values that repeat across the rows a cache holds (dates,
 * months, subgerencias): a date read from each of 50,000 workers' rows is otherwise 50,000
 * strings. Bounded: past the bound, strings are returned as they are, unshared. Dates are few
 * (some 36,500 a century), so the bound is not reached by them.
 */
const shared = new Map<string, string>();
const BOUND = 100_000;

export function intern(s: string): string {
  const known = shared.get(s);
  if (known !== undefined) return known;
  if (shared.size < BOUND) shared.set(s, s);
  return s;
}

/**
 * One shared value per key, for values that many rows a cache holds have alike (the company
 * contracts of a worker): `make` builds it the first time a key is seen. The values shared are
 * never changed. The least recently seen are forgotten first, so that what moved on takes the
 * place of the old.
 */
const values = new LRUCache<string, object>({ max: 10_000 });

export function internBy<T extends object>(key: string, make: () => T): T {
  const known = values.get(key) as T | undefined;
  if (known) return known;
  const value = make();
  values.set(key, value);
  return value;
}

type Item = string | number;

/**
 * The shared lists, in buckets by a hash of their items, forgotten as internBy's values are (a
 * calendar with a month more takes the place of the old). A key string (JSON of the list) cost
 * more than the rest of reading a worker's row: building it and hashing some 600 characters for
 * each of the five lists of a worker's payroll sheets, on every row a cache missed (a tenth of
 * calculate's time when no worker is held; docs/benchmarks.md).
 */
const lists = new LRUCache<number, { items: readonly Item[]; made: readonly unknown[] }[]>({ max: 10_000 });
/** Lists of one hash kept apart at most; past it a list is made and returned unshared. */
const BUCKET = 4;

function hashOf(items: readonly Item[]): number {
  let h = Math.imul(0x811c9dc5 ^ items.length, 16777619);
  for (const v of items) {
    if (typeof v === 'number') {
      h = Math.imul(Math.imul(h ^ (v | 0), 16777619) ^ (((v % 1) * 4294967296) | 0), 16777619);
    } else {
      for (let i = 0; i < v.length; i++) h = Math.imul(h ^ v.charCodeAt(i), 16777619);
      h = Math.imul(h ^ 0xffff, 16777619);
    }
  }
  return h;
}

function sameItems(a: readonly Item[], b: readonly Item[]): boolean {
  if (a.length !== b.length) return false;
  for (let i = 0; i < a.length; i++) if (a[i] !== b[i]) return false;
  return true;
}

/**
 * One shared list per content of `items` (see internBy): `make(items)` the first time the items are
 * seen, the same list whenever they are seen again, so that what is made from a row (the names of
 * its days) is made once for all the rows that have it alike.
 */
export function internListBy<K extends Item, T>(items: readonly K[], make: (items: readonly K[]) => readonly T[]): readonly T[] {
  const hash = hashOf(items);
  const bucket = lists.get(hash);
  if (bucket) for (const held of bucket) if (sameItems(held.items, items)) return held.made as readonly T[];
  const made = make(items);
  if (!bucket) lists.set(hash, [{ items, made }]);
  else if (bucket.length < BUCKET) bucket.push({ items, made });
  return made;
}

/** One shared list per content: the period ends of a company's payroll calendar, and the like. */
export const internList = <T extends Item>(list: readonly T[]): readonly T[] => internListBy(list, (l) => l);

/**
 * `name` memoised by number and interned (see intern): for names computed from a small set of
 * numbers that recur across many rows, as the day numbers of payroll periods do. Bounded as
 * intern is.
 */
export function internedNames(name: (n: number) => string): (n: number) => string {
  const known = new Map<number, string>();
  return (n) => {
    const hit = known.get(n);
    if (hit !== undefined) return hit;
    const made = intern(name(n));
    if (known.size < BOUND) known.set(n, made);
    return made;
  };
}
