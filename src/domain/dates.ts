/**
 * Calendar dates as `YYYY-MM-DD` strings. Arithmetic goes through a day number (days since
 * 1970-01-01, proleptic Gregorian) computed with integer math, so no time zone or `Date` at local
 * midnight can shift a day, and years below 100 are not reinterpreted as 19xx.
 */

const DAYS_PER_ERA = 146097; // 400 Gregorian years
const EPOCH_SHIFT = 719468; // day number of 0000-03-01 relative to 1970-01-01, negated
const MIN_DAY_NUMBER = -719528; // 0000-01-01
const MAX_DAY_NUMBER = 2932896; // 9999-12-31

function isLeapYear(year: number): boolean {
  return (year % 4 === 0 && year % 100 !== 0) || year % 400 === 0;
}

function daysInMonth(year: number, month: number): number {
  if (month === 2) return isLeapYear(year) ? 29 : 28;
  return month === 4 || month === 6 || month === 9 || month === 11 ? 30 : 31;
}

function pad(n: number, width: number): string {
  return String(n).padStart(width, '0');
}

/** Digits of `s` from `from` to `to` (exclusive) as a number, or -1 when any is not a digit. */
function digits(s: string, from: number, to: number): number {
  let n = 0;
  for (let i = from; i < to; i++) {
    const c = s.charCodeAt(i) - 48;
    if (c < 0 || c > 9) return -1;
    n = n * 10 + c;
  }
  return n;
}

// Hand-parsed rather than matched with a regular expression: every rule checks its dates, and
// this sits on the hot path of every calculation.
export function isValidDate(s: unknown): boolean {
  if (typeof s !== 'string' || s.length !== 10 || s.charCodeAt(4) !== 45 || s.charCodeAt(7) !== 45) return false;
  const year = digits(s, 0, 4);
  const month = digits(s, 5, 7);
  const day = digits(s, 8, 10);
  return year >= 0 && month >= 1 && month <= 12 && day >= 1 && day <= daysInMonth(year, month);
}

/**
 * The dates the service takes from its callers: real dates within the years payroll can speak of,
 * so that every date figured from one (a prescription four years on, a notice 180 days on, the
 * month after) is a date too, and one PostgreSQL's date type holds (it has no year 0000).
 * Parameters outside are refused, naming the range.
 */
export const SERVED_DATES = { from: '1900-01-01', to: '2999-12-31' } as const;

/** A real `YYYY-MM-DD` date within SERVED_DATES. */
export function isServedDate(s: unknown): s is string {
  return isValidDate(s) && (s as string) >= SERVED_DATES.from && (s as string) <= SERVED_DATES.to;
}

/** A `YYYY-MM` month whose days are within SERVED_DATES. */
export function isServedMonth(s: unknown): s is string {
  return typeof s === 'string' && s.length === 7 && isServedDate(`${s}-01`);
}

/** Throws a RangeError naming the value, so bad input is never silently reinterpreted. */
export function assertValidDate(s: unknown, label = 'date'): asserts s is string {
  if (!isValidDate(s)) {
    throw new RangeError(`${label} ${JSON.stringify(s)} is not a real date in YYYY-MM-DD form`);
  }
}

export function toDayNumber(date: string): number {
  assertValidDate(date);
  const day = digits(date, 8, 10);
  const month = digits(date, 5, 7);
  // Counting years from March puts the leap day at the end of the year.
  const year = digits(date, 0, 4) - (month <= 2 ? 1 : 0);
  const era = Math.floor(year / 400);
  const yearOfEra = year - era * 400;
  const dayOfYear = Math.floor((153 * (month + (month > 2 ? -3 : 9)) + 2) / 5) + day - 1;
  const dayOfEra = yearOfEra * 365 + Math.floor(yearOfEra / 4) - Math.floor(yearOfEra / 100) + dayOfYear;
  return era * DAYS_PER_ERA + dayOfEra - EPOCH_SHIFT;
}

export function fromDayNumber(n: number): string {
  if (!Number.isSafeInteger(n) || n < MIN_DAY_NUMBER || n > MAX_DAY_NUMBER) {
    throw new RangeError(`day number ${n} is outside years 0000..9999`);
  }
  const z = n + EPOCH_SHIFT;
  const era = Math.floor(z / DAYS_PER_ERA);
  const dayOfEra = z - era * DAYS_PER_ERA;
  const yearOfEra = Math.floor(
    (dayOfEra - Math.floor(dayOfEra / 1460) + Math.floor(dayOfEra / 36524) - Math.floor(dayOfEra / 146096)) / 365,
  );
  const dayOfYear = dayOfEra - (365 * yearOfEra + Math.floor(yearOfEra / 4) - Math.floor(yearOfEra / 100));
  const monthFromMarch = Math.floor((5 * dayOfYear + 2) / 153);
  const day = dayOfYear - Math.floor((153 * monthFromMarch + 2) / 5) + 1;
  const month = monthFromMarch < 10 ? monthFromMarch + 3 : monthFromMarch - 9;
  const year = yearOfEra + era * 400 + (month <= 2 ? 1 : 0);
  return `${pad(year, 4)}-${pad(month, 2)}-${pad(day, 2)}`;
}

export function addDays(date: string, n: number): string {
  if (!Number.isSafeInteger(n)) throw new RangeError(`day offset ${n} is not a whole number`);
  return fromDayNumber(toDayNumber(date) + n);
}

/** Both ends count: the same date gives 1; `b` before `a` gives 0 or less. */
export function daysBetweenInclusive(a: string, b: string): number {
  return toDayNumber(b) - toDayNumber(a) + 1;
}

/** 0 = Sunday … 6 = Saturday. */
export function dayOfWeek(date: string): number {
  return weekdayOfNumber(toDayNumber(date));
}

/** dayOfWeek of the day numbered `n`. */
export function weekdayOfNumber(n: number): number {
  // 1970-01-01 was a Thursday.
  return (((n + 4) % 7) + 7) % 7;
}

export function compareDates(a: string, b: string): -1 | 0 | 1 {
  assertValidDate(a);
  assertValidDate(b);
  // Fixed-width zero-padded strings order the same as the dates they denote.
  return a < b ? -1 : a > b ? 1 : 0;
}

/** `YYYY-MM`. */
export function monthOf(date: string): string {
  assertValidDate(date);
  return date.slice(0, 7);
}

/** Calendar months a period touches, as `YYYY-MM`, in order. */
export function monthsOf(startDate: string, endDate: string): string[] {
  return [...new Set(eachDay(startDate, endDate).map(monthOf))];
}

const bogotaFormatter = new Intl.DateTimeFormat('en-US', {
  timeZone: 'America/Bogota',
  calendar: 'gregory',
  numberingSystem: 'latn',
  year: 'numeric',
  month: '2-digit',
  day: '2-digit',
});

const HOUR_MS = 3_600_000;
/**
 * The last hour asked and its date. Bogotá's offsets from UTC have always been whole hours, so
 * every instant of one UTC hour falls on one date there; the events a projection reads come in
 * time order, and the formatter is the costliest part of reading a date, and a rebuild reads millions.
 */
let lastHour = Number.NaN;
let lastDate = '';

/** The calendar date in Bogotá at the given instant; the instant is passed in, never read. */
export function todayInBogota(now: Date): string {
  if (!(now instanceof Date) || Number.isNaN(now.getTime())) {
    throw new RangeError('todayInBogota needs a valid Date instant');
  }
  const hour = Math.floor(now.getTime() / HOUR_MS);
  if (hour === lastHour) return lastDate;
  const date = bogotaDateOf(now);
  lastHour = hour;
  lastDate = date;
  return date;
}

function bogotaDateOf(now: Date): string {
  const parts = bogotaFormatter.formatToParts(now);
  const part = (type: Intl.DateTimeFormatPartTypes): number => Number(parts.find((p) => p.type === type)?.value);
  const result = `${pad(part('year'), 4)}-${pad(part('month'), 2)}-${pad(part('day'), 2)}`;
  assertValidDate(result, 'Bogotá date');
  return result;
}

/** The last day of a `YYYY-MM` month. */
export function lastDayOfMonth(month: string): string {
  const [y, m] = month.split('-').map(Number) as [number, number];
  return `${month}-${pad(new Date(Date.UTC(y, m, 0)).getUTCDate(), 2)}`;
}

/** Every date from `from` to `to`, both included; empty when `to` is before `from`. */
export function eachDay(from: string, to: string): string[] {
  const first = toDayNumber(from);
  const last = toDayNumber(to);
  const days: string[] = [];
  for (let n = first; n <= last; n++) days.push(fromDayNumber(n));
  return days;
}

/** `YYYY-MM-DD HH:MM:SS` in Bogota, the local time payroll clerks read. */
export function bogotaTimestamp(d: Date): string {
  const parts = new Intl.DateTimeFormat('en-CA', {
    timeZone: 'America/Bogota',
    year: 'numeric',
    month: '2-digit',
    day: '2-digit',
    hour: '2-digit',
    minute: '2-digit',
    second: '2-digit',
    hourCycle: 'h23',
  }).formatToParts(d);
  const p = (t: string) => parts.find((x) => x.type === t)?.value ?? '00';
  return `${p('year')}-${p('month')}-${p('day')} ${p('hour')}:${p('minute')}:${p('second')}`;
}
