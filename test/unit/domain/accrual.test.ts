import { describe, expect, it } from 'vitest';
import fc from 'fast-check';
import {
  Days360,
  accruedDays,
  annualDaysFor,
  availableDays,
  daysWorked,
  ibcLastMonth,
  lte,
  takenDays,
  toDecimal2,
  type PayrollSheet,
} from '../../../src/domain/index.ts';

const sheet = (periodStart: string, periodEnd: string, days: number, pay = 0): PayrollSheet => ({
  contractId: 'c-1',
  periodStart,
  periodEnd,
  daysWorked: days,
  basicCompensation: pay,
});

const range = (startDate: string | null, endDate: string | null, additional = false) => ({
  startDate,
  endDate,
  additional,
});

describe('daysWorked', () => {
  const contracts = [
    range('2025-01-01', '2025-12-31'),
    range('2025-06-01', '2026-12-31', true),
    range('2026-01-01', '2026-12-31'),
    range('2026-01-01', null),
  ];

  it('given sheets inside main contracts, when summed, then their days count', () => {
    const sheets = [sheet('2025-01-01', '2025-01-15', 15), sheet('2026-01-01', '2026-01-15', 15)];
    expect(daysWorked(sheets, contracts, '2026-02-10')).toBe(30);
  });

  it('given a sheet that straddles two contracts, when summed, then it does not count', () => {
    expect(daysWorked([sheet('2025-12-16', '2026-01-15', 30)], contracts, '2026-02-10')).toBe(0);
  });

  it('given a sheet ending after the reference date, when summed, then it does not count yet', () => {
    expect(daysWorked([sheet('2026-02-01', '2026-02-15', 15)], contracts, '2026-02-14')).toBe(0);
    expect(daysWorked([sheet('2026-02-01', '2026-02-15', 15)], contracts, '2026-02-15')).toBe(15);
  });

  it('given a sheet covered only by an additional contract, when summed, then it adds no days', () => {
    const onlyAdditional = [range('2025-06-01', '2026-12-31', true)];
    expect(daysWorked([sheet('2025-07-01', '2025-07-15', 15)], onlyAdditional, '2026-01-01')).toBe(0);
  });

  it('given a contract without an end date, when summed, then it has no range', () => {
    expect(daysWorked([sheet('2027-01-01', '2027-01-15', 15)], contracts, '2027-12-31')).toBe(0);
  });

  it('given a sheet inside two overlapping main contracts, when summed, then it counts once', () => {
    const overlapping = [range('2026-01-01', '2026-06-30'), range('2026-01-01', '2026-12-31')];
    expect(daysWorked([sheet('2026-01-01', '2026-01-15', 15)], overlapping, '2026-12-31')).toBe(15);
  });

  it('given an invalid sheet date, when summed, then it is rejected', () => {
    expect(() => daysWorked([sheet('2026-02-30', '2026-03-15', 15)], contracts, '2026-12-31')).toThrow(
      /2026-02-30/,
    );
  });
});

describe('annualDaysFor', () => {
  const params = { annualDays: 15, annualDaysHighRisk: 30 };

  it.each([1, 2, 3])('given risk level %i, when asked, then the ordinary rate applies', (level) => {
    expect(annualDaysFor(level, params)).toBe(15);
  });

  it.each([4, 5])('given risk level %i, when asked, then the high-risk rate applies', (level) => {
    expect(annualDaysFor(level, params)).toBe(30);
  });

  it('given no risk level, when asked, then null lets the caller report it', () => {
    expect(annualDaysFor(null, params)).toBeNull();
  });

  it.each([0, 6, 2.5])('given risk level %s, when asked, then it is rejected', (level) => {
    expect(() => annualDaysFor(level, params)).toThrow(RangeError);
  });
});

describe('accrued, taken and available days', () => {
  it('given 360 days worked at 15 a year, when accrued, then exactly 15 days accrue', () => {
    const accrued = accruedDays(360, 15);
    expect(accrued.units).toBe(5400);
    expect(toDecimal2(accrued)).toBe(15);
  });

  it('given 100 days worked at 15 a year, when accrued, then 4.17 days show', () => {
    expect(toDecimal2(accruedDays(100, 15))).toBe(4.17);
  });

  it('given more taken than accrued, when subtracted, then the balance is negative', () => {
    const available = availableDays(accruedDays(100, 15), takenDays(6));
    expect(available.units).toBe(1500 - 2160);
    expect(toDecimal2(available)).toBe(-1.83);
  });

  it('given fractional inputs, when accrued or taken, then they are rejected', () => {
    expect(() => accruedDays(10.5, 15)).toThrow(RangeError);
    expect(() => takenDays(1.5)).toThrow(RangeError);
  });
});

describe('ibcLastMonth', () => {
  const sheets = [
    sheet('2026-01-01', '2026-01-15', 15, 1_000_000),
    sheet('2026-01-16', '2026-01-31', 15, 1_100_000),
    sheet('2026-02-01', '2026-02-15', 15, 1_200_000),
    sheet('2026-02-16', '2026-02-28', 13, 1_300_000),
  ];

  it('given sheets of the latest month, when summed, then every sheet of that month counts', () => {
    expect(ibcLastMonth(sheets, 999, '2026-03-05')).toBe(2_500_000);
  });

  it('given a month only partly ended by today, when summed, then that month still is the latest', () => {
    expect(ibcLastMonth(sheets, 999, '2026-02-20')).toBe(2_500_000);
  });

  it('given today before the first sheet of a month, when summed, then the previous month is used', () => {
    expect(ibcLastMonth(sheets, 999, '2026-02-14')).toBe(2_100_000);
  });

  it('given no sheet ended by today, when summed, then the contract salary stands in', () => {
    expect(ibcLastMonth(sheets, 2_847_000, '2026-01-14')).toBe(2_847_000);
    expect(ibcLastMonth([], 2_847_000, '2026-01-14')).toBe(2_847_000);
  });
});

describe('accrual properties', () => {
  it('property: accrued days never decrease as days worked grow', () => {
    fc.assert(
      fc.property(
        fc.integer({ min: 0, max: 20_000 }),
        fc.integer({ min: 0, max: 1_000 }),
        fc.constantFrom(15, 30),
        (worked, more, annual) => lte(accruedDays(worked, annual), accruedDays(worked + more, annual)),
      ),
    );
  });

  it('property: adding a sheet inside a main contract never lowers days worked', () => {
    const contracts = [range('2020-01-01', '2030-12-31')];
    const day = fc.integer({ min: 1, max: 28 }).map((d) => `2025-03-${String(d).padStart(2, '0')}`);
    const arbSheet = fc
      .tuple(day, day, fc.integer({ min: 0, max: 30 }))
      .map(([a, b, n]) => (a <= b ? sheet(a, b, n) : sheet(b, a, n)));
    fc.assert(
      fc.property(fc.array(arbSheet, { maxLength: 10 }), arbSheet, (sheets, extra) => {
        const before = daysWorked(sheets, contracts, '2025-12-31');
        return daysWorked([...sheets, extra], contracts, '2025-12-31') >= before;
      }),
      { numRuns: 200 },
    );
  });

  it('property: available = accrued − taken, exactly', () => {
    fc.assert(
      fc.property(fc.integer({ min: 0, max: 20_000 }), fc.integer({ min: 0, max: 500 }), (worked, taken) => {
        const available = availableDays(accruedDays(worked, 15), takenDays(taken));
        return available.plus(Days360.fromWholeDays(taken)).units === worked * 15;
      }),
    );
  });
});
