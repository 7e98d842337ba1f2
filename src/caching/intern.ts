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
 * contracts of a worker, the lists of a payroll calendar): `make` builds it the first time a key is
 * seen. The values shared are never changed. The least recently seen are forgotten first, so that
 * what moved on (a calendar with a month more) takes the place of the old.
 */
const values = new LRUCache<string, object>({ max: 10_000 });

export function internBy<T extends object>(key: string, make: () => T): T {
  const known = values.get(key) as T | undefined;
  if (known) return known;
  const value = make();
  values.set(key, value);
  return value;
}

/** One shared list per content (see internBy): the period ends of a company's payroll calendar, and the like. */
export const internList = <T extends string | number>(list: readonly T[]): readonly T[] => internBy(JSON.stringify(list), () => list);

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
