/**
 * Colombian public holidays from `date-holidays`, adjusted by an operator override file so a
 * decree moving or adding a holiday can be applied without waiting for a library release.
 */
import { createRequire } from 'node:module';
import type Holidays from 'date-holidays';
import { z } from 'zod';
import { assertValidDate, dayOfWeek, isValidDate } from './dates.ts';

export interface HolidayOverride {
  extra?: readonly string[];
  removed?: readonly string[];
}

let source: Holidays | undefined;

/**
 * The library's public holidays for `year`, sorted and unique. Sundays are dropped because the
 * library lists Easter Sunday, which is a rest day anyway, and the 2025 data holds 06-30 twice.
 */
export function libraryHolidays(year: number): string[] {
  assertYear(year);
  // Loaded at the first question, not with the domain: its rule tables take a quarter of a second
  // to load, which the commands that never count a business day (keys, invitations, audits) spare.
  source ??= new (createRequire(import.meta.url)('date-holidays') as typeof Holidays)('CO');
  const dates = new Set<string>();
  for (const holiday of source.getHolidays(year)) {
    if (holiday.type !== 'public') continue;
    // The library gives local wall time; slicing avoids any time zone conversion.
    const date = holiday.date.slice(0, 10);
    if (isValidDate(date) && dayOfWeek(date) !== 0) dates.add(date);
  }
  return [...dates].sort();
}

function assertYear(year: number): void {
  if (!Number.isInteger(year) || year < 0 || year > 9999) {
    throw new RangeError(`year ${year} is not a whole number from 0 to 9999`);
  }
}

interface YearEntry {
  list: readonly string[];
  set: ReadonlySet<string>;
}

export class HolidayCalendar {
  readonly #extra: ReadonlySet<string>;
  readonly #removed: ReadonlySet<string>;
  // The library recomputes every rule on each call; business-day loops ask thousands of times.
  readonly #years = new Map<number, YearEntry>();

  constructor(override: HolidayOverride = {}) {
    for (const date of override.extra ?? []) assertValidDate(date, 'extra holiday');
    for (const date of override.removed ?? []) assertValidDate(date, 'removed holiday');
    this.#extra = new Set(override.extra ?? []);
    this.#removed = new Set(override.removed ?? []);
  }

  isHoliday(date: string): boolean {
    assertValidDate(date);
    return this.#entry(Number(date.slice(0, 4))).set.has(date);
  }

  /** Sorted dates; an override date can add a Sunday, which changes no business-day count. */
  holidaysOf(year: number): readonly string[] {
    return this.#entry(year).list;
  }

  #entry(year: number): YearEntry {
    const cached = this.#years.get(year);
    if (cached) return cached;
    const prefix = `${String(year).padStart(4, '0')}-`;
    const dates = new Set(libraryHolidays(year));
    for (const date of this.#extra) if (date.startsWith(prefix)) dates.add(date);
    for (const date of this.#removed) dates.delete(date);
    const list = Object.freeze([...dates].sort());
    const entry = { list, set: new Set(list) };
    this.#years.set(year, entry);
    return entry;
  }
}

const overrideSchema = z.strictObject({
  extra: z.array(z.string()).optional(),
  removed: z.array(z.string()).optional(),
});

/** Parses the override file's text; every problem is reported as an Error naming the value. */
export function parseHolidayOverride(text: string): HolidayOverride {
  let json: unknown;
  try {
    json = JSON.parse(text);
  } catch (error) {
    throw new Error(`holiday override is not valid JSON: ${(error as Error).message}`, { cause: error });
  }
  const parsed = overrideSchema.safeParse(json);
  if (!parsed.success) {
    const issue = parsed.error.issues[0];
    const where = issue && issue.path.length > 0 ? ` at ${issue.path.join('.')}` : '';
    throw new Error(
      `holiday override must look like {"extra": ["YYYY-MM-DD"], "removed": ["YYYY-MM-DD"]}` + `${where}: ${issue?.message ?? 'invalid'}`,
    );
  }
  const result: { extra?: string[]; removed?: string[] } = {};
  for (const key of ['extra', 'removed'] as const) {
    const dates = parsed.data[key];
    if (dates === undefined) continue;
    const bad = dates.find((d) => !isValidDate(d));
    if (bad !== undefined) {
      throw new Error(`holiday override "${key}" has ${JSON.stringify(bad)}, which is not a real YYYY-MM-DD date`);
    }
    result[key] = dates;
  }
  return result;
}
