import { describe, expect, it } from 'vitest';
import fc from 'fast-check';
import {
  HolidayCalendar,
  amortize,
  calendarDays,
  endDate,
  fromDayNumber,
  nextBusinessDay,
  splitByLargestRemainder,
  toDayNumber,
  vacationValue,
} from '../../../src/domain/index.ts';

const calendar = new HolidayCalendar();

describe('amortize', () => {
  it('given a vacation inside one month, when amortized, then there is one entry with the total', () => {
    expect(amortize({ start: '2026-03-16', end: '2026-03-24', worksSaturday: false, total: 569_400, calendar })).toEqual([
      { periodo: '2026-03', diasHabiles: 6, diasCalendario: 9, valor: 569_400 },
    ]);
  });

  it('given a vacation across a year end, when amortized, then value follows business days', () => {
    expect(amortize({ start: '2025-12-15', end: '2026-01-06', worksSaturday: false, total: 1_423_500, calendar })).toEqual([
      { periodo: '2025-12', diasHabiles: 12, diasCalendario: 17, valor: 1_138_800 },
      { periodo: '2026-01', diasHabiles: 3, diasCalendario: 6, valor: 284_700 },
    ]);
  });

  it('given an uneven split, when amortized, then the leftover peso goes to the largest remainder', () => {
    // 500 001 × 8/15 = 266 667.2 and × 7/15 = 233 333.8
    expect(amortize({ start: '2026-12-21', end: '2027-01-13', worksSaturday: false, total: 500_001, calendar })).toEqual([
      { periodo: '2026-12', diasHabiles: 8, diasCalendario: 11, valor: 266_667 },
      { periodo: '2027-01', diasHabiles: 7, diasCalendario: 13, valor: 233_334 },
    ]);
  });

  it('given a Saturday worker, when amortized, then Saturdays count as business days', () => {
    const [entry] = amortize({ start: '2026-01-05', end: '2026-01-22', worksSaturday: true, total: 100, calendar });
    expect(entry).toEqual({ periodo: '2026-01', diasHabiles: 15, diasCalendario: 18, valor: 100 });
  });

  it('given an end before the start, when amortized, then it is rejected', () => {
    expect(() => amortize({ start: '2026-01-06', end: '2026-01-05', worksSaturday: false, total: 1, calendar })).toThrow(RangeError);
  });

  it('given a fractional total, when amortized, then it is rejected', () => {
    expect(() => amortize({ start: '2026-01-05', end: '2026-01-06', worksSaturday: false, total: 1.5, calendar })).toThrow(RangeError);
  });

  it('given a range without business days and a positive total, when amortized, then it is rejected', () => {
    expect(() => amortize({ start: '2026-01-10', end: '2026-01-12', worksSaturday: false, total: 1, calendar })).toThrow(RangeError);
  });
});

describe('splitByLargestRemainder', () => {
  it('given equal remainders, when split, then earlier parts get the leftover first', () => {
    expect(splitByLargestRemainder(100, [1, 1, 1])).toEqual([34, 33, 33]);
    expect(splitByLargestRemainder(1, [1, 1])).toEqual([1, 0]);
  });

  it('given a larger later remainder, when split, then the later part gets the leftover', () => {
    expect(splitByLargestRemainder(10, [1, 2])).toEqual([3, 7]);
  });

  it('given zero weights and zero total, when split, then every part is zero', () => {
    expect(splitByLargestRemainder(0, [0, 0])).toEqual([0, 0]);
  });

  it('given a negative weight, when split, then it is rejected', () => {
    expect(() => splitByLargestRemainder(10, [2, -1])).toThrow(RangeError);
  });

  it('property: parts add up to the total and each is the floor or ceiling of its exact share', () => {
    fc.assert(
      fc.property(
        fc.integer({ min: 0, max: 1_000_000_000 }),
        fc.array(fc.integer({ min: 0, max: 31 }), { minLength: 1, maxLength: 14 }).filter((w) => w.some((x) => x > 0)),
        (total, weights) => {
          const parts = splitByLargestRemainder(total, weights);
          const sum = weights.reduce((a, b) => a + b, 0);
          const exactFloors = weights.map((w) => Math.floor((total * w) / sum));
          return (
            parts.reduce((a, b) => a + b, 0) === total && parts.every((p, i) => p - exactFloors[i]! === 0 || p - exactFloors[i]! === 1)
          );
        },
      ),
    );
  });
});

describe('amortize properties', () => {
  it('property: parts sum to the value, to N business days and to the calendar days', () => {
    const start = fc.integer({ min: toDayNumber('2024-01-01'), max: toDayNumber('2028-06-30') }).map(fromDayNumber);
    fc.assert(
      fc.property(
        start,
        fc.integer({ min: 1, max: 30 }),
        fc.boolean(),
        fc.integer({ min: 0, max: 50_000_000 }),
        (rawStart, n, worksSaturday, salary) => {
          const first = nextBusinessDay(rawStart, worksSaturday, calendar);
          const end = endDate(first, n, worksSaturday, calendar);
          const total = vacationValue(salary, n);
          const parts = amortize({ start: first, end, worksSaturday, total, calendar });
          const sum = (f: (p: (typeof parts)[number]) => number): number => parts.reduce((a, p) => a + f(p), 0);
          const months = parts.map((p) => p.periodo);
          return (
            sum((p) => p.valor) === total &&
            sum((p) => p.diasHabiles) === n &&
            sum((p) => p.diasCalendario) === calendarDays(first, end) &&
            months.every((m, i) => i === 0 || months[i - 1]! < m)
          );
        },
      ),
      { numRuns: 200 },
    );
  });
});
