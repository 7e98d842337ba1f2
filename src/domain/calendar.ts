/**
 * Business days of a worker: Monday to Friday, plus Saturday for Saturday workers, never Sunday,
 * minus holidays. The vacation's start date counts as its first business day.
 */
import { fromDayNumber, toDayNumber, weekdayOfNumber } from './dates.ts';

/** Anything that can tell holidays apart; `HolidayCalendar` is the production one. */
export interface HolidayLookup {
  isHoliday(date: string): boolean;
}

// A calendar where overrides remove every business day would otherwise loop forever.
const MAX_SEARCH_DAYS = 3660;

export function isBusinessDay(date: string, worksSaturday: boolean, calendar: HolidayLookup): boolean {
  return isBusinessDayNumber(toDayNumber(date), worksSaturday, calendar, date);
}

/**
 * isBusinessDay of the day numbered `n` (dates.ts), for the walks over days below: the weekday
 * comes from the number itself, and the date is written out only for the holiday lookup of a
 * weekday (`date` when the caller has it already). Walking strings, every day was written out,
 * parsed back for its weekday and checked twice: a tenth of a calculation.
 */
export function isBusinessDayNumber(n: number, worksSaturday: boolean, calendar: HolidayLookup, date?: string): boolean {
  const weekday = weekdayOfNumber(n);
  if (weekday === 0 || (weekday === 6 && !worksSaturday)) return false;
  return !calendar.isHoliday(date ?? fromDayNumber(n));
}

function nextBusinessDayNumber(first: number, worksSaturday: boolean, calendar: HolidayLookup): number {
  for (let n = first; n <= first + MAX_SEARCH_DAYS; n++) {
    if (isBusinessDayNumber(n, worksSaturday, calendar)) return n;
  }
  throw new RangeError(`no business day within ${MAX_SEARCH_DAYS} days from ${fromDayNumber(first)}`);
}

/** `date` itself when it is a business day, otherwise the first one after it. */
export function nextBusinessDay(date: string, worksSaturday: boolean, calendar: HolidayLookup): string {
  return fromDayNumber(nextBusinessDayNumber(toDayNumber(date), worksSaturday, calendar));
}

/**
 * The last day of a vacation of `businessDays` business days starting on `start`. A start that is
 * not a business day is moved to the next one; callers that must reject it use `isBusinessDay`.
 */
export function endDate(start: string, businessDays: number, worksSaturday: boolean, calendar: HolidayLookup): string {
  if (!Number.isSafeInteger(businessDays) || businessDays < 1) {
    throw new RangeError(`business days ${businessDays} is not a whole number of at least 1`);
  }
  let current = nextBusinessDayNumber(toDayNumber(start), worksSaturday, calendar);
  for (let counted = 1; counted < businessDays; counted++) {
    current = nextBusinessDayNumber(current + 1, worksSaturday, calendar);
  }
  return fromDayNumber(current);
}

/** Inclusive count of calendar days from `start` to `end`. */
export function calendarDays(start: string, end: string): number {
  const count = toDayNumber(end) - toDayNumber(start) + 1;
  if (count < 1) throw new RangeError(`end ${end} is before start ${start}`);
  return count;
}

/** Inclusive count; 0 when `to` is before `from`. */
export function businessDaysBetween(from: string, to: string, worksSaturday: boolean, calendar: HolidayLookup): number {
  const last = toDayNumber(to);
  let count = 0;
  for (let n = toDayNumber(from); n <= last; n++) {
    if (isBusinessDayNumber(n, worksSaturday, calendar)) count++;
  }
  return count;
}
