import { describe, expect, it } from 'vitest';
import fc from 'fast-check';
import { Days360, addDays, compareDays360, eq, gt, gte, lt, lte, payrollDays, toDecimal2 } from '../../../src/domain/index.ts';

describe('Days360', () => {
  it('given whole days, when built, then each day is 360 units', () => {
    expect(Days360.fromWholeDays(15).units).toBe(5400);
    expect(Days360.ZERO.units).toBe(0);
  });

  it('given a fractional unit count, when built, then it is rejected', () => {
    expect(() => Days360.fromUnits(0.5)).toThrow(RangeError);
    expect(() => Days360.fromWholeDays(0.5)).toThrow(RangeError);
  });

  it('given two quantities, when added and subtracted, then the result is exact', () => {
    const a = Days360.fromUnits(1);
    const b = Days360.fromUnits(359);
    expect(a.plus(b).units).toBe(360);
    expect(a.minus(b).units).toBe(-358);
  });

  it('given two quantities, when compared, then every helper agrees', () => {
    const small = Days360.fromUnits(1);
    const big = Days360.fromUnits(2);
    expect(compareDays360(small, big)).toBe(-1);
    expect(compareDays360(big, small)).toBe(1);
    expect(compareDays360(small, Days360.fromUnits(1))).toBe(0);
    expect([lt(small, big), lte(small, big), gt(small, big), gte(small, big), eq(small, big)]).toEqual([true, true, false, false, false]);
    expect([lte(big, big), gte(big, big), eq(big, big), lt(big, big)]).toEqual([true, true, true, false]);
  });
});

describe('toDecimal2', () => {
  it.each([
    [0, 0],
    [5400, 15],
    [1500, 4.17], // 4.1666…
    [18, 0.05], // exactly 0.05
    [9, 0.03], // 0.025 rounds half up
    [8, 0.02], // 0.0222…
    [-9, -0.03], // half up on the magnitude
    [-1, 0], // rounds to zero without a negative sign
    [-660, -1.83],
  ])('given %i units, when shown, then it is %d', (units, expected) => {
    const shown = toDecimal2(Days360.fromUnits(units));
    expect(shown).toBe(expected);
    expect(Object.is(shown, -0)).toBe(false);
  });

  it('property: the shown value is within half a hundredth of the exact value', () => {
    fc.assert(
      fc.property(fc.integer({ min: -10_000_000, max: 10_000_000 }), (units) => {
        const shown = toDecimal2(Days360.fromUnits(units));
        return Math.abs(shown - units / 360) <= 0.005 + 1e-9;
      }),
    );
  });
});

describe('payrollDays (the 30-day months of payroll)', () => {
  it('given whole months, then each counts 30 days, February and 31-day months alike', () => {
    expect(payrollDays('2026-01-01', '2026-01-31')).toBe(30);
    expect(payrollDays('2026-02-01', '2026-02-28')).toBe(30);
    expect(payrollDays('2024-02-01', '2024-02-29')).toBe(30);
    expect(payrollDays('2025-01-01', '2025-12-31')).toBe(360);
  });

  it('given fortnights, then each counts 15 days, as the payroll sheets do', () => {
    expect(payrollDays('2026-10-16', '2026-10-31')).toBe(15);
    expect(payrollDays('2026-02-16', '2026-02-28')).toBe(15);
    expect(payrollDays('2026-11-01', '2026-11-15')).toBe(15);
  });

  it('given a part of a month, then the days up to the 30th count one each', () => {
    expect(payrollDays('2026-11-01', '2026-11-21')).toBe(21);
    expect(payrollDays('2026-11-16', '2026-11-20')).toBe(5);
    expect(payrollDays('2026-10-31', '2026-10-31')).toBe(0);
    expect(payrollDays('2026-12-31', '2027-01-01')).toBe(1);
  });

  it('given an end before the start, then none', () => {
    expect(payrollDays('2026-11-22', '2026-11-21')).toBe(0);
  });

  it('property: consecutive spans add up to the span they make', () => {
    fc.assert(
      fc.property(fc.integer({ min: 0, max: 2000 }), fc.integer({ min: 0, max: 400 }), fc.integer({ min: 0, max: 400 }), (a, b, c) => {
        const d = (n: number) => addDays('2020-01-01', n);
        expect(payrollDays(d(a), d(a + b)) + payrollDays(d(a + b + 1), d(a + b + c + 1))).toBe(payrollDays(d(a), d(a + b + c + 1)));
      }),
    );
  });
});
