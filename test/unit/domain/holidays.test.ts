import { describe, expect, it } from 'vitest';
import { HolidayCalendar, addDays, dayOfWeek, libraryHolidays, parseHolidayOverride } from '../../../src/domain/index.ts';

const pad = (n: number): string => String(n).padStart(2, '0');

/** Anonymous Gregorian algorithm (Meeus/Jones/Butcher). */
function easterSunday(year: number): string {
  const a = year % 19;
  const b = Math.floor(year / 100);
  const c = year % 100;
  const d = Math.floor(b / 4);
  const e = b % 4;
  const f = Math.floor((b + 8) / 25);
  const g = Math.floor((b - f + 1) / 3);
  const h = (19 * a + b - d - g + 15) % 30;
  const i = Math.floor(c / 4);
  const k = c % 4;
  const l = (32 + 2 * e + 2 * i - h - k) % 7;
  const m = Math.floor((a + 11 * h + 22 * l) / 451);
  const month = Math.floor((h + l - 7 * m + 114) / 31);
  const day = ((h + l - 7 * m + 114) % 31) + 1;
  return `${year}-${pad(month)}-${pad(day)}`;
}

function nextMondayFrom(date: string): string {
  return addDays(date, (1 - dayOfWeek(date) + 7) % 7);
}

/** The Colombian holiday rules written out by hand, so the library is checked rather than echoed. */
function expectedHolidays(year: number): string[] {
  const on = (month: number, day: number): string => `${year}-${pad(month)}-${pad(day)}`;
  const fixed = [on(1, 1), on(5, 1), on(7, 20), on(8, 7), on(12, 8), on(12, 25)];
  const movable = [
    [1, 6],
    [3, 19],
    [6, 29],
    [8, 15],
    [10, 12],
    [11, 1],
    [11, 11],
  ];
  if (year >= 2026) movable.push([7, 9]);
  const moved = movable.map(([m, d]) => nextMondayFrom(on(m!, d!)));
  const easter = easterSunday(year);
  const easterBased = [-3, -2, 43, 64, 71].map((offset) => addDays(easter, offset));
  const all = new Set([...fixed, ...moved, ...easterBased].filter((d) => dayOfWeek(d) !== 0));
  return [...all].sort();
}

describe('libraryHolidays', () => {
  it.each([2025, 2026, 2027])('given year %i, when read from date-holidays, then it equals the independent rules', (year) => {
    expect(libraryHolidays(year)).toEqual(expectedHolidays(year));
  });

  it('given 2026, when read, then it is exactly the published list', () => {
    const days = [
      '01-01',
      '01-12',
      '03-23',
      '04-02',
      '04-03',
      '05-01',
      '05-18',
      '06-08',
      '06-15',
      '06-29',
      '07-13',
      '07-20',
      '08-07',
      '08-17',
      '10-12',
      '11-02',
      '11-16',
      '12-08',
      '12-25',
    ];
    expect(libraryHolidays(2026)).toEqual(days.map((d) => `2026-${d}`));
  });

  it('given Easter Sunday, when the library lists it, then it is dropped', () => {
    for (const year of [2025, 2026, 2027]) {
      expect(libraryHolidays(year)).not.toContain(easterSunday(year));
    }
  });

  it('given 9 July, when before 2026, then no Monday holiday is added for it', () => {
    expect(libraryHolidays(2025)).not.toContain('2025-07-14');
    expect(libraryHolidays(2026)).toContain('2026-07-13');
    expect(libraryHolidays(2027)).toContain('2027-07-12');
  });

  it('given 2025 where two holidays share 30 June, when read, then the date appears once', () => {
    expect(libraryHolidays(2025).filter((d) => d === '2025-06-30')).toHaveLength(1);
  });

  it('given 2025 where 20 July is a Sunday, when read, then it is not listed', () => {
    expect(libraryHolidays(2025)).not.toContain('2025-07-20');
  });

  it('given a non-integer year, when read, then it is rejected', () => {
    expect(() => libraryHolidays(2026.5)).toThrow(RangeError);
  });
});

describe('HolidayCalendar', () => {
  it('given no override, when asked, then it follows the library', () => {
    const calendar = new HolidayCalendar();
    expect(calendar.isHoliday('2026-01-12')).toBe(true);
    expect(calendar.isHoliday('2026-01-13')).toBe(false);
    expect(calendar.holidaysOf(2026)).toEqual(libraryHolidays(2026));
  });

  it('given an extra date, when asked, then it is a holiday only in its own year', () => {
    const calendar = new HolidayCalendar({ extra: ['2026-03-10'] });
    expect(calendar.isHoliday('2026-03-10')).toBe(true);
    expect(calendar.holidaysOf(2026)).toContain('2026-03-10');
    expect(calendar.holidaysOf(2027)).not.toContain('2026-03-10');
  });

  it('given a removed date, when asked, then it is no longer a holiday', () => {
    const calendar = new HolidayCalendar({ removed: ['2026-01-12'] });
    expect(calendar.isHoliday('2026-01-12')).toBe(false);
    expect(calendar.holidaysOf(2026)).not.toContain('2026-01-12');
    expect(calendar.holidaysOf(2026)).toHaveLength(18);
  });

  it('given the same date extra and removed, when asked, then removal wins', () => {
    const calendar = new HolidayCalendar({ extra: ['2026-03-10'], removed: ['2026-03-10'] });
    expect(calendar.isHoliday('2026-03-10')).toBe(false);
  });

  it('given a year asked twice, when listed, then the cached list is returned', () => {
    const calendar = new HolidayCalendar();
    expect(calendar.holidaysOf(2026)).toBe(calendar.holidaysOf(2026));
  });

  it('given an invalid override date, when constructed, then the error names it', () => {
    expect(() => new HolidayCalendar({ extra: ['2026-02-30'] })).toThrow(/2026-02-30/);
  });

  it('given an invalid date, when asked, then it is rejected', () => {
    expect(() => new HolidayCalendar().isHoliday('2026-13-01')).toThrow(RangeError);
  });
});

describe('parseHolidayOverride', () => {
  it('given both lists, when parsed, then both are returned', () => {
    const text = '{"extra": ["2026-03-10"], "removed": ["2026-01-12"]}';
    expect(parseHolidayOverride(text)).toEqual({ extra: ['2026-03-10'], removed: ['2026-01-12'] });
  });

  it('given an empty object, when parsed, then there is nothing to override', () => {
    expect(parseHolidayOverride('{}')).toEqual({});
  });

  it('given a date that does not exist, when parsed, then the error names it', () => {
    expect(() => parseHolidayOverride('{"extra": ["2026-02-30"]}')).toThrow(/"2026-02-30"/);
    expect(() => parseHolidayOverride('{"removed": ["12/01/2026"]}')).toThrow(/"12\/01\/2026"/);
  });

  it('given broken JSON, when parsed, then the error says so', () => {
    expect(() => parseHolidayOverride('{"extra": [')).toThrow(/not valid JSON/);
  });

  it('given the wrong shape, when parsed, then the error shows the expected shape', () => {
    expect(() => parseHolidayOverride('["2026-03-10"]')).toThrow(/must look like/);
    expect(() => parseHolidayOverride('{"extra": "2026-03-10"}')).toThrow(/at extra/);
    expect(() => parseHolidayOverride('{"added": ["2026-03-10"]}')).toThrow(/must look like/);
    expect(() => parseHolidayOverride('{"extra": [20260310]}')).toThrow(/at extra\.0/);
  });
});
