import { describe, expect, it } from 'vitest';
import fc from 'fast-check';
import { valueOfUnits, vacationValue } from '../../../src/domain/index.ts';

describe('vacationValue', () => {
  it.each([
    [2_847_000, 15, 1_423_500],
    [2_847_000, 6, 569_400],
    [2_847_000, 5, 474_500],
    [1_000_001, 15, 500_001],
    [1_000_001, 1, 33_333],
    [45, 1, 2],
    [44, 1, 1],
    [0, 15, 0],
    [2_847_000, 0, 0],
  ])('given salary %i and %i days, when valued, then it is %i pesos', (salary, days, expected) => {
    expect(vacationValue(salary, days)).toBe(expected);
  });

  it('given an exact half peso, when rounded, then it goes up', () => {
    // 15 × 1 / 30 = 0.5
    expect(vacationValue(15, 1)).toBe(1);
  });

  it('given a salary near the safe integer limit, when valued, then no float error appears', () => {
    const salary = 300_000_000_000_007;
    expect(vacationValue(salary, 30)).toBe(salary);
    expect(vacationValue(salary, 15)).toBe(150_000_000_000_004);
  });

  it.each([
    [-1, 15],
    [1.5, 15],
    [1000, -1],
    [1000, 2.5],
    [Number.NaN, 1],
  ])('given salary %s and days %s, when valued, then it is rejected', (salary, days) => {
    expect(() => vacationValue(salary, days)).toThrow(RangeError);
  });

  it('property: thirty days are worth exactly one salary', () => {
    fc.assert(fc.property(fc.integer({ min: 0, max: 2 ** 47 }), (s) => vacationValue(s, 30) === s));
  });

  it('property: the value is within half a peso of salary × days / 30', () => {
    fc.assert(
      fc.property(fc.integer({ min: 0, max: 100_000_000 }), fc.integer({ min: 0, max: 60 }), (s, d) => {
        const value = vacationValue(s, d);
        // Compared at ×60 scale to stay in integers: |60·value − 2·s·d| ≤ 30, with ties rounded up.
        const diff = 60 * value - 2 * s * d;
        return diff >= -29 && diff <= 30;
      }),
    );
  });
});

describe('valueOfUnits', () => {
  it.each([
    [2_847_000, 15 * 360, 1_423_500],
    [2_847_000, 4050, 1_067_625], // 11.25 days
    [3_000_000, 360 * 7 + 180, 750_000], // 7.5 days
    [1_000_000, 1, 93], // a 360th of a 33,333.33-peso day is 92.59 pesos
    [2_847_000, -3 * 360, -284_700],
    [15, 360, 1], // half a peso, up
    [15, -360, -1],
    [2_847_000, 0, 0],
  ])('given salary %i and %i 360ths of a day, when valued, then it is %i pesos', (salary, units, expected) => {
    expect(valueOfUnits(salary, units)).toBe(expected);
  });

  it('property: whole days value the same as vacationValue', () => {
    fc.assert(
      fc.property(fc.integer({ min: 0, max: 50_000_000 }), fc.integer({ min: 0, max: 360 }), (salary, days) => {
        expect(valueOfUnits(salary, days * 360)).toBe(vacationValue(salary, days));
      }),
    );
  });
});
