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
 * One shared list per content, for lists that most workers hold alike: the period ends of a
 * company's payroll calendar, the running days of those who worked every day of it. The lists
 * shared are never changed. The least recently seen are forgotten first, so that a calendar that
 * moved on (a month more) takes the place of the old.
 */
const lists = new LRUCache<string, readonly (string | number)[]>({ max: 10_000 });

export function internList<T extends string | number>(list: readonly T[]): readonly T[] {
  const key = JSON.stringify(list);
  const known = lists.get(key) as readonly T[] | undefined;
  if (known) return known;
  lists.set(key, list);
  return list;
}
