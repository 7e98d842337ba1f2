import { describe, expect, it } from 'vitest';
import fc from 'fast-check';
import {
  HolidayCalendar,
  businessDaysBetween,
  calendarDays,
  endDate,
  fromDayNumber,
  isBusinessDay,
  nextBusinessDay,
  toDayNumber,
  type HolidayLookup,
} from '../../../src/domain/index.ts';

const calendar = new HolidayCalendar();

describe('isBusinessDay', () => {
  it('given a plain weekday, when checked, then it is a business day', () => {
    expect(isBusinessDay('2026-01-05', false, calendar)).toBe(true);
  });

  it('given a Saturday, when checked, then it depends on whether the worker works Saturdays', () => {
    expect(isBusinessDay('2026-01-10', false, calendar)).toBe(false);
    expect(isBusinessDay('2026-01-10', true, calendar)).toBe(true);
  });

  it('given a Sunday, when checked for a Saturday worker, then it is never a business day', () => {
    expect(isBusinessDay('2026-01-11', true, calendar)).toBe(false);
  });

  it('given a holiday on a Monday, when checked, then it is not a business day', () => {
    expect(isBusinessDay('2026-01-12', false, calendar)).toBe(false);
    expect(isBusinessDay('2026-01-12', true, calendar)).toBe(false);
  });

  it('given an override that removes a holiday, when checked, then the day is worked', () => {
    expect(isBusinessDay('2026-01-12', false, new HolidayCalendar({ removed: ['2026-01-12'] }))).toBe(true);
  });
});

describe('nextBusinessDay', () => {
  it('given a business day, when asked, then it is returned unchanged', () => {
    expect(nextBusinessDay('2026-01-05', false, calendar)).toBe('2026-01-05');
  });

  it('given a Saturday before a holiday Monday, when asked, then Tuesday is returned', () => {
    expect(nextBusinessDay('2026-01-10', false, calendar)).toBe('2026-01-13');
  });

  it('given a calendar without business days, when asked, then it gives up with an error', () => {
    const everyDayOff: HolidayLookup = { isHoliday: () => true };
    expect(() => nextBusinessDay('2026-01-05', false, everyDayOff)).toThrow(RangeError);
  });
});

describe('endDate worked examples', () => {
  it.each([
    ['2026-01-05', 15, false, '2026-01-26', 22],
    ['2026-01-05', 15, true, '2026-01-22', 18],
    ['2026-03-16', 6, false, '2026-03-24', 9],
    ['2025-04-14', 5, false, '2025-04-22', 9],
    ['2025-12-15', 15, false, '2026-01-06', 23],
    ['2026-03-30', 15, true, '2026-04-17', 19],
    ['2026-07-06', 15, false, '2026-07-28', 23],
    ['2026-12-21', 15, false, '2027-01-13', 24],
  ] as const)(
    'given start %s and %i business days (Saturdays %s), when computed, then it ends %s after %i calendar days',
    (start, days, worksSaturday, expectedEnd, expectedCalendarDays) => {
      const end = endDate(start, days, worksSaturday, calendar);
      expect(end).toBe(expectedEnd);
      expect(calendarDays(start, end)).toBe(expectedCalendarDays);
      expect(businessDaysBetween(start, end, worksSaturday, calendar)).toBe(days);
    },
  );

  it('given one business day, when computed, then the vacation ends on its start', () => {
    expect(endDate('2026-01-05', 1, false, calendar)).toBe('2026-01-05');
  });

  it('given a start on a holiday, when computed, then counting begins on the next business day', () => {
    expect(endDate('2026-01-12', 1, false, calendar)).toBe('2026-01-13');
    expect(endDate('2026-01-12', 2, false, calendar)).toBe('2026-01-14');
  });

  it.each([0, -1, 1.5, Number.NaN])('given %s business days, when computed, then it is rejected', (n) => {
    expect(() => endDate('2026-01-05', n, false, calendar)).toThrow(RangeError);
  });

  it('given an extra holiday inside the vacation, when computed, then the end moves one day', () => {
    const withExtra = new HolidayCalendar({ extra: ['2026-01-07'] });
    expect(endDate('2026-01-05', 15, false, withExtra)).toBe('2026-01-27');
  });
});

describe('the end of the calendar', () => {
  it('given a vacation that would run past 9999-12-31, when its end is computed, then it is refused with a RangeError', () => {
    // 9999-12-31 is a Friday: the last business day there is.
    expect(endDate('9999-12-27', 5, false, calendar)).toBe('9999-12-31');
    expect(() => endDate('9999-12-27', 6, false, calendar)).toThrow(RangeError);
    expect(() => nextBusinessDay('9999-12-31', false, { isHoliday: (d) => d === '9999-12-31' })).toThrow(RangeError);
  });

  it('given the weekday of a date far from 1970, when checked, then it agrees with the UTC calendar', () => {
    for (const date of ['0001-01-01', '1582-10-15', '1969-12-31', '2026-11-28', '9999-12-31']) {
      const utc = new Date(`${date}T00:00:00Z`);
      utc.setUTCFullYear(Number(date.slice(0, 4)));
      const weekday = utc.getUTCDay();
      expect(isBusinessDay(date, true, { isHoliday: () => false }), date).toBe(weekday !== 0);
      expect(isBusinessDay(date, false, { isHoliday: () => false }), date).toBe(weekday !== 0 && weekday !== 6);
    }
  });
});

describe('calendarDays and businessDaysBetween', () => {
  it('given a reversed range, when counting calendar days, then it is rejected', () => {
    expect(() => calendarDays('2026-01-06', '2026-01-05')).toThrow(RangeError);
  });

  it('given a reversed range, when counting business days, then it is zero', () => {
    expect(businessDaysBetween('2026-01-06', '2026-01-05', false, calendar)).toBe(0);
  });

  it('given Holy Week 2026, when counting business days, then Thursday and Friday are excluded', () => {
    expect(businessDaysBetween('2026-03-30', '2026-04-05', false, calendar)).toBe(3);
    expect(businessDaysBetween('2026-03-30', '2026-04-05', true, calendar)).toBe(4);
  });
});

describe('business day properties', () => {
  const startDay = fc.integer({ min: toDayNumber('2024-01-01'), max: toDayNumber('2028-06-30') }).map(fromDayNumber);
  const businessDays = fc.integer({ min: 1, max: 30 });

  it('property: the end date is a business day', () => {
    fc.assert(
      fc.property(startDay, businessDays, fc.boolean(), (start, n, sat) => isBusinessDay(endDate(start, n, sat, calendar), sat, calendar)),
      { numRuns: 300 },
    );
  });

  it('property: a business-day start to its end date spans exactly N business days', () => {
    fc.assert(
      fc.property(startDay, businessDays, fc.boolean(), (rawStart, n, sat) => {
        const start = nextBusinessDay(rawStart, sat, calendar);
        return businessDaysBetween(start, endDate(start, n, sat, calendar), sat, calendar) === n;
      }),
      { numRuns: 300 },
    );
  });

  it('property: Saturday workers never end later than weekday-only workers', () => {
    const weekdayStart = startDay.filter((d) => isBusinessDay(d, false, calendar));
    fc.assert(
      fc.property(weekdayStart, businessDays, (start, n) => endDate(start, n, true, calendar) <= endDate(start, n, false, calendar)),
      { numRuns: 300 },
    );
  });
});
