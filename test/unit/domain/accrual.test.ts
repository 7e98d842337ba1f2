import { describe, expect, it } from 'vitest';
import fc from 'fast-check';
import {
  Days360,
  accruedDays,
  annualDaysFor,
  availableDays,
  countsAsWorked,
  daysWorked,
  ibcLastMonth,
  ibcOf,
  summarizePayroll,
  workedBy,
  lastSettledMonth,
  lte,
  mainContractRanges,
  takenDays,
  toDecimal2,
  type PayrollSheet,
} from '../../../src/domain/index.ts';

const sheet = (periodStart: string, periodEnd: string, days: number, pay = 0, contractId = 'main-1'): PayrollSheet => ({
  contractId,
  periodStart,
  periodEnd,
  daysWorked: days,
  basicCompensation: pay,
});

const contract = (id: string, startDate: string | null, endDate: string | null, additional = false) => ({
  id,
  startDate,
  endDate,
  additional,
});

describe('daysWorked', () => {
  const contracts = [
    contract('main-1', '2025-01-01', '2025-12-31'),
    contract('extra', '2025-06-01', '2026-12-31', true),
    contract('main-2', '2026-01-01', '2026-12-31'),
    contract('open', '2026-01-01', null),
  ];

  it('given sheets of main contracts inside their ranges, when summed, then their days count', () => {
    const sheets = [sheet('2025-01-01', '2025-01-15', 15), sheet('2026-01-01', '2026-01-15', 15, 0, 'main-2')];
    expect(daysWorked(sheets, contracts, '2026-02-10')).toBe(30);
  });

  it('given a sheet of an additional contract whose dates fall inside a main one, when summed, then it adds no days', () => {
    const sheets = [sheet('2025-07-01', '2025-07-15', 15), sheet('2025-07-01', '2025-07-15', 15, 0, 'extra')];
    expect(daysWorked(sheets, contracts, '2026-01-01')).toBe(15);
  });

  it('given a main and an additional contract paid every fortnight, when summed, then only the main sheets count', () => {
    // The shape of a worker with both: 2024-02..2026-10 on the main contract, 2025-01..2026-10 on the additional.
    const both = [contract('10010', '2024-02-01', '2027-01-31'), contract('10510', '2025-01-01', '2026-12-31', true)];
    const sheets: PayrollSheet[] = [];
    for (const [id, from] of [
      ['10010', 2024 * 12 + 1],
      ['10510', 2025 * 12],
    ] as const) {
      for (let m = from; m <= 2026 * 12 + 9; m++) {
        const month = `${Math.floor(m / 12)}-${String((m % 12) + 1).padStart(2, '0')}`;
        sheets.push(sheet(`${month}-01`, `${month}-15`, 15, 0, id), sheet(`${month}-16`, `${month}-28`, 15, 0, id));
      }
    }
    expect(daysWorked(sheets, both, '2026-11-21')).toBe(990);
  });

  it("given a sheet of a main contract outside that contract's range, when summed, then it does not count", () => {
    // Inside main-2's range, but it belongs to main-1, which had ended.
    expect(daysWorked([sheet('2026-02-01', '2026-02-15', 15)], contracts, '2026-03-01')).toBe(0);
  });

  it('given a sheet of an unknown contract, when summed, then it does not count', () => {
    expect(daysWorked([sheet('2025-03-01', '2025-03-15', 15, 0, 'gone')], contracts, '2026-01-01')).toBe(0);
  });

  it('given a sheet that straddles the end of its contract, when summed, then it does not count', () => {
    expect(daysWorked([sheet('2025-12-16', '2026-01-15', 30)], contracts, '2026-02-10')).toBe(0);
  });

  it('given a sheet ending after the reference date, when summed, then it does not count yet', () => {
    const s = sheet('2026-02-01', '2026-02-15', 15, 0, 'main-2');
    expect(daysWorked([s], contracts, '2026-02-14')).toBe(0);
    expect(daysWorked([s], contracts, '2026-02-15')).toBe(15);
  });

  it('given a contract without an end date, when summed, then its sheets have no range to fall in', () => {
    expect(daysWorked([sheet('2026-03-01', '2026-03-15', 15, 0, 'open')], contracts, '2027-12-31')).toBe(0);
  });

  it('given numeric contract ids, when summed, then sheets match their contracts by id', () => {
    const numeric = [{ id: 7, startDate: '2026-01-01', endDate: '2026-12-31', additional: false }];
    const sheets = [{ contractId: 7, periodStart: '2026-01-01', periodEnd: '2026-01-15', daysWorked: 15 }];
    expect(daysWorked(sheets, numeric, '2026-12-31')).toBe(15);
  });

  it('given an invalid sheet date, when summed, then it is rejected', () => {
    expect(() => daysWorked([sheet('2026-02-30', '2026-03-15', 15)], contracts, '2026-12-31')).toThrow(/2026-02-30/);
  });
});

describe('countsAsWorked', () => {
  const ranges = mainContractRanges([contract('main-1', '2025-01-01', '2025-12-31'), contract('extra', '2025-01-01', '2025-12-31', true)]);

  it("given the ranges of a worker, when one sheet is judged, then only a main contract's ended sheet inside its range counts", () => {
    expect([...ranges.keys()]).toEqual(['main-1']);
    expect(countsAsWorked(sheet('2025-05-01', '2025-05-15', 15), ranges, '2025-05-15')).toBe(true);
    expect(countsAsWorked(sheet('2025-05-01', '2025-05-15', 15), ranges, '2025-05-14')).toBe(false);
    expect(countsAsWorked(sheet('2025-05-01', '2025-05-15', 15, 0, 'extra'), ranges, '2025-12-31')).toBe(false);
    expect(countsAsWorked(sheet('2026-01-01', '2026-01-15', 15), ranges, '2026-12-31')).toBe(false);
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

describe('lastSettledMonth', () => {
  it.each([
    ['2026-11-21', '2026-10'],
    ['2026-11-01', '2026-10'],
    ['2026-11-30', '2026-10'],
    ['2026-01-10', '2025-12'],
  ])('given today %s, when asked, then %s is the last month that has ended', (today, month) => {
    expect(lastSettledMonth(today)).toBe(month);
  });
});

describe('ibcLastMonth', () => {
  const sheets = [
    sheet('2026-01-01', '2026-01-15', 15, 1_000_000),
    sheet('2026-01-16', '2026-01-31', 15, 1_100_000),
    sheet('2026-02-01', '2026-02-15', 15, 1_200_000),
    sheet('2026-02-16', '2026-02-28', 13, 1_300_000),
  ];

  it('given sheets of the latest settled month, when summed, then every sheet of that month counts', () => {
    expect(ibcLastMonth(sheets, 999, '2026-03-05')).toBe(2_500_000);
  });

  it('given today in the middle of a month with one fortnight paid, when summed, then the month before stands', () => {
    expect(ibcLastMonth(sheets, 999, '2026-02-20')).toBe(2_100_000);
  });

  it('given today on the last day of a month with both fortnights paid, when summed, then that month is not settled yet', () => {
    expect(ibcLastMonth(sheets, 999, '2026-02-28')).toBe(2_100_000);
    expect(ibcLastMonth(sheets, 999, '2026-03-01')).toBe(2_500_000);
  });

  it('given sheets of an additional contract in the settled month, when summed, then they count too', () => {
    const withExtra = [...sheets, sheet('2026-02-01', '2026-02-28', 30, 450_000, 'extra')];
    expect(ibcLastMonth(withExtra, 999, '2026-03-05')).toBe(2_950_000);
  });

  it('given no sheet in the settled months, when summed, then the latest month with a sheet before them is used', () => {
    expect(ibcLastMonth(sheets, 999, '2026-06-10')).toBe(2_500_000);
  });

  it('given no sheet in a settled month, when summed, then the contract salary stands in', () => {
    expect(ibcLastMonth(sheets, 2_847_000, '2026-01-31')).toBe(2_847_000);
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

  it('property: adding a sheet never lowers days worked', () => {
    const contracts = [contract('main-1', '2020-01-01', '2030-12-31'), contract('extra', '2020-01-01', '2030-12-31', true)];
    const day = fc.integer({ min: 1, max: 28 }).map((d) => `2025-03-${String(d).padStart(2, '0')}`);
    const arbSheet = fc
      .tuple(day, day, fc.integer({ min: 0, max: 30 }), fc.constantFrom('main-1', 'extra', 'gone'))
      .map(([a, b, n, id]) => (a <= b ? sheet(a, b, n, 0, id) : sheet(b, a, n, 0, id)));
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

describe('summarizePayroll', () => {
  const date = (y: number, m: number, d: number) => `${y}-${String(m).padStart(2, '0')}-${String(d).padStart(2, '0')}`;
  const day = fc
    .tuple(fc.integer({ min: 2024, max: 2026 }), fc.integer({ min: 1, max: 12 }), fc.integer({ min: 1, max: 28 }))
    .map(([y, m, d]) => date(y, m, d));
  const arbSheet = fc
    .tuple(day, day, fc.integer({ min: 0, max: 31 }), fc.integer({ min: 0, max: 5_000_000 }), fc.constantFrom('a', 'b', 'c', 'gone'))
    .map(([x, y, n, pay, id]) => (x <= y ? sheet(x, y, n, pay, id) : sheet(y, x, n, pay, id)));
  const arbContract = fc
    .tuple(fc.constantFrom('a', 'b', 'c'), fc.option(day, { nil: null }), fc.option(day, { nil: null }), fc.boolean())
    .map(([id, x, y, additional]) => (x !== null && y !== null && y < x ? contract(id, y, x, additional) : contract(id, x, y, additional)));

  it('property: days worked and the IBC read from the summary equal those of the sheets, on any date', () => {
    fc.assert(
      fc.property(
        fc.array(arbSheet, { maxLength: 30 }),
        fc.array(arbContract, { maxLength: 4 }),
        fc.array(day, { minLength: 1, maxLength: 8 }),
        (sheets, contracts, dates) => {
          const summary = summarizePayroll(sheets, contracts);
          for (const d of [...dates, '2023-12-31', '2027-01-01']) {
            expect(workedBy(summary, d)).toBe(daysWorked(sheets, contracts, d));
            expect(ibcOf(summary, 777, d)).toBe(ibcLastMonth(sheets, 777, d));
          }
        },
      ),
      { numRuns: 300 },
    );
  });

  it('given sheets in any order, then the summary is ascending, with running totals of counted sheets only and where they start', () => {
    const contracts = [contract('main-1', '2026-01-01', '2026-12-31'), contract('extra', '2026-01-01', '2026-12-31', true)];
    const sheets = [
      sheet('2026-02-01', '2026-02-15', 15, 100),
      sheet('2026-01-16', '2026-01-31', 16, 200),
      sheet('2026-01-16', '2026-01-31', 16, 50, 'extra'),
      sheet('2026-01-01', '2026-01-15', 15, 300),
    ];
    expect(summarizePayroll(sheets, contracts)).toEqual({
      workedEnds: ['2026-01-15', '2026-01-31', '2026-02-15'],
      workedSoFar: [15, 31, 46],
      months: ['2026-01', '2026-02'],
      monthPay: [550, 100],
      workedFrom: ['2026-01-01', '2026-01-16', '2026-02-01'],
    });
    expect(workedBy(summarizePayroll(sheets, contracts), '2026-01-30')).toBe(15);
    expect(() => workedBy(summarizePayroll(sheets, contracts), '2026-02-30')).toThrow();
  });
});
