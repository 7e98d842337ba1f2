import { describe, expect, it } from 'vitest';
import fc from 'fast-check';
import {
  addDays,
  assertValidDate,
  compareDates,
  dayOfWeek,
  daysBetweenInclusive,
  eachDay,
  fromDayNumber,
  isValidDate,
  monthOf,
  toDayNumber,
  todayInBogota,
  lastDayOfMonth,
} from '../../../src/domain/index.ts';

const anyDate = fc.integer({ min: toDayNumber('0000-01-01'), max: toDayNumber('9999-12-31') }).map(fromDayNumber);

describe('isValidDate', () => {
  it.each(['2026-01-05', '2024-02-29', '2000-02-29', '0000-01-01', '9999-12-31'])('given %s, when checked, then it is a real date', (s) =>
    expect(isValidDate(s)).toBe(true),
  );

  it.each([
    '2026-02-30',
    '2025-02-29',
    '1900-02-29',
    '2026-04-31',
    '2026-13-01',
    '2026-00-10',
    '2026-01-00',
    '2026-1-05',
    ' 2026-01-05',
    '2026-01-05T00:00:00Z',
    '20260105',
    '',
  ])('given %j, when checked, then it is rejected', (s) => expect(isValidDate(s)).toBe(false));

  it('given a non-string, when checked, then it is rejected', () => {
    expect(isValidDate(20260105)).toBe(false);
    expect(isValidDate(null)).toBe(false);
  });

  it('given an invalid date, when asserted, then the error names the value', () => {
    expect(() => assertValidDate('2026-02-30', 'start')).toThrow(/start "2026-02-30"/);
  });
});

describe('day numbers', () => {
  it('given the Unix epoch, when converted, then its day number is 0', () => {
    expect(toDayNumber('1970-01-01')).toBe(0);
    expect(fromDayNumber(0)).toBe('1970-01-01');
  });

  it('given dates around a leap day, when converted, then consecutive days are consecutive numbers', () => {
    expect(toDayNumber('2024-03-01') - toDayNumber('2024-02-28')).toBe(2);
    expect(toDayNumber('2025-03-01') - toDayNumber('2025-02-28')).toBe(1);
  });

  it('given an invalid date, when converted, then a RangeError is thrown', () => {
    expect(() => toDayNumber('2026-02-30')).toThrow(RangeError);
  });

  it('given a day number outside years 0000..9999, when converted back, then it is rejected', () => {
    expect(() => fromDayNumber(toDayNumber('9999-12-31') + 1)).toThrow(RangeError);
    expect(() => fromDayNumber(1.5)).toThrow(RangeError);
  });

  it('property: fromDayNumber(toDayNumber(d)) === d', () => {
    fc.assert(fc.property(anyDate, (d) => fromDayNumber(toDayNumber(d)) === d));
  });

  it('property: day numbers agree with UTC milliseconds / 86400000', () => {
    fc.assert(
      fc.property(
        anyDate.filter((d) => d >= '0100'),
        (d) => {
          const [y, m, day] = d.split('-').map(Number) as [number, number, number];
          return toDayNumber(d) === Date.UTC(y, m - 1, day) / 86_400_000;
        },
      ),
    );
  });

  it('property: every generated date is valid', () => {
    fc.assert(fc.property(anyDate, (d) => isValidDate(d)));
  });
});

describe('addDays and daysBetweenInclusive', () => {
  it('given a month end, when one day is added, then it rolls over the year', () => {
    expect(addDays('2025-12-31', 1)).toBe('2026-01-01');
    expect(addDays('2024-02-28', 1)).toBe('2024-02-29');
    expect(addDays('2026-03-01', -1)).toBe('2026-02-28');
  });

  it('given a fractional offset, when added, then it is rejected', () => {
    expect(() => addDays('2026-01-01', 0.5)).toThrow(RangeError);
  });

  it('given the same date twice, when counted inclusively, then it is one day', () => {
    expect(daysBetweenInclusive('2026-01-05', '2026-01-05')).toBe(1);
    expect(daysBetweenInclusive('2026-01-05', '2026-01-26')).toBe(22);
    expect(daysBetweenInclusive('2025-12-15', '2026-01-06')).toBe(23);
  });

  it('property: daysBetweenInclusive(d, addDays(d, n)) === n + 1', () => {
    fc.assert(
      fc.property(
        anyDate.filter((d) => d < '9999'),
        fc.integer({ min: 0, max: 400 }),
        (d, n) => {
          return daysBetweenInclusive(d, addDays(d, n)) === n + 1;
        },
      ),
    );
  });
});

describe('dayOfWeek', () => {
  it.each([
    ['2026-01-04', 0],
    ['2026-01-05', 1],
    ['2026-01-10', 6],
    ['1970-01-01', 4],
    ['1969-12-28', 0],
    ['2025-07-20', 0],
  ])('given %s, when asked, then weekday is %i', (date, expected) => {
    expect(dayOfWeek(date)).toBe(expected);
  });
});

describe('compareDates and monthOf', () => {
  it('given two dates, when compared, then order follows the calendar', () => {
    expect(compareDates('2025-12-31', '2026-01-01')).toBe(-1);
    expect(compareDates('2026-01-01', '2026-01-01')).toBe(0);
    expect(compareDates('2026-02-01', '2026-01-31')).toBe(1);
  });

  it('given an invalid date, when compared, then it is rejected', () => {
    expect(() => compareDates('2026-02-30', '2026-01-01')).toThrow(RangeError);
  });

  it('given a date, when its month is asked, then it is YYYY-MM', () => {
    expect(monthOf('2026-03-24')).toBe('2026-03');
  });
});

describe('todayInBogota', () => {
  it('given 04:59 UTC, when converted, then Bogotá is still on the previous day', () => {
    expect(todayInBogota(new Date('2026-01-06T04:59:59Z'))).toBe('2026-01-05');
  });

  it('given 05:00 UTC, when converted, then Bogotá has reached the new day', () => {
    expect(todayInBogota(new Date('2026-01-06T05:00:00Z'))).toBe('2026-01-06');
  });

  it('given midnight UTC on New Year, when converted, then Bogotá is on 31 December', () => {
    expect(todayInBogota(new Date('2027-01-01T00:00:00Z'))).toBe('2026-12-31');
  });

  it('given an invalid Date, when converted, then it is rejected', () => {
    expect(() => todayInBogota(new Date(Number.NaN))).toThrow(RangeError);
  });

  // Colombia kept UTC−5 all year except from May 1992 to April 1993 (an energy-saving hour);
  // from 1994 on the time-zone database and the fixed offset must agree.
  it('property: matches the UTC−5 date for any instant from 1994 on', () => {
    fc.assert(
      fc.property(fc.integer({ min: Date.UTC(1994, 0, 1), max: 4_102_444_800_000 }), (ms) => {
        const shifted = new Date(ms - 5 * 3_600_000).toISOString().slice(0, 10);
        return todayInBogota(new Date(ms)) === shifted;
      }),
      { numRuns: 200 },
    );
  });
});

describe('todayInBogota asked in time order, as a projection reads events', () => {
  it('gives the UTC−5 date at every step of seven minutes over three days, across each day boundary', () => {
    const start = Date.UTC(2026, 10, 26, 0, 3);
    for (let ms = start; ms < start + 3 * 24 * 3_600_000; ms += 7 * 60_000) {
      expect(todayInBogota(new Date(ms))).toBe(new Date(ms - 5 * 3_600_000).toISOString().slice(0, 10));
    }
  });

  it('gives the right date going back and forth between hours', () => {
    expect(todayInBogota(new Date('2026-01-06T05:00:00Z'))).toBe('2026-01-06');
    expect(todayInBogota(new Date('2026-01-06T04:59:59Z'))).toBe('2026-01-05');
    expect(todayInBogota(new Date('2026-01-06T05:30:00Z'))).toBe('2026-01-06');
  });
});

describe('todayInBogota during the 1992-1993 energy-saving hour', () => {
  it('given 1992-05-04T04:30Z, then Bogota (then UTC−4) was already on the 4th', () => {
    expect(todayInBogota(new Date(Date.UTC(1992, 4, 4, 4, 30)))).toBe('1992-05-04');
  });
});

describe('lastDayOfMonth', () => {
  it('gives the last day of short, long and leap months', () => {
    expect(['2026-02', '2028-02', '2026-04', '2026-12'].map(lastDayOfMonth)).toEqual([
      '2026-02-28',
      '2028-02-29',
      '2026-04-30',
      '2026-12-31',
    ]);
  });
});

describe('eachDay', () => {
  it('given a range across a month end, when listed, then every day appears once in order', () => {
    expect(eachDay('2026-01-30', '2026-02-02')).toEqual(['2026-01-30', '2026-01-31', '2026-02-01', '2026-02-02']);
  });

  it('given an empty or reversed range, when listed, then it has one or zero days', () => {
    expect(eachDay('2026-01-05', '2026-01-05')).toEqual(['2026-01-05']);
    expect(eachDay('2026-01-06', '2026-01-05')).toEqual([]);
  });
});
