import fc from 'fast-check';
import { describe, expect, it } from 'vitest';
import {
  accrualPeriods,
  addYears,
  allocateAcrossContracts,
  allocateTaken,
  enforceableFrom,
  prescribesOn,
  settledContractOf,
  type PeriodContract,
  type TakenRecord,
  type WorkedSheet,
} from '../../../src/domain/index.ts';

const contract = (over: Partial<PeriodContract<number>> = {}): PeriodContract<number> => ({
  id: 1,
  startDate: '2024-02-01',
  endDate: '2027-01-31',
  additional: false,
  annualDays: 15,
  ...over,
});

/** Fortnights of 15 days worked from the month of `from` through the month of `through`. */
function fortnights(from: string, through: string, contractId = 1): WorkedSheet<number>[] {
  const sheets: WorkedSheet<number>[] = [];
  let [y, m] = from.split('-').map(Number) as [number, number];
  const pad = (n: number) => String(n).padStart(2, '0');
  while (`${y}-${pad(m)}` <= through.slice(0, 7)) {
    const last = new Date(Date.UTC(y, m, 0)).getUTCDate();
    sheets.push({ contractId, periodStart: `${y}-${pad(m)}-01`, periodEnd: `${y}-${pad(m)}-15`, daysWorked: 15 });
    sheets.push({ contractId, periodStart: `${y}-${pad(m)}-16`, periodEnd: `${y}-${pad(m)}-${last}`, daysWorked: 15 });
    if (++m === 13) [y, m] = [y + 1, 1];
  }
  return sheets;
}

const taken = (key: string, startDate: string, days: number, compensated = false, order = 0): TakenRecord => ({
  key,
  startDate,
  days,
  compensated,
  order,
});
const days = (units: number) => units / 360;

describe('accrualPeriods', () => {
  it('given 33 months of fortnights from 2024-02-01, when read on 2026-11-21, then two full periods and a third in progress', () => {
    const periods = accrualPeriods([contract()], fortnights('2024-02-01', '2026-10-31'), '2026-11-21');
    expect(periods.map((p) => [p.number, p.from, p.earnedOn, p.daysWorked, days(p.accruedUnits), days(p.entitlementUnits)])).toEqual([
      [1, '2024-02-01', '2025-01-31', 360, 15, 15],
      [2, '2025-02-01', '2026-01-31', 360, 15, 15],
      [3, '2026-02-01', null, 270, 11.25, 15],
    ]);
  });

  it('given the reference date, then sheets that end after it do not count', () => {
    const periods = accrualPeriods([contract()], fortnights('2024-02-01', '2026-10-31'), '2025-01-30');
    expect(periods.map((p) => [p.number, p.earnedOn, p.daysWorked])).toEqual([[1, null, 345]]);
  });

  it('given a monthly sheet in which the 360th day falls, then the period is earned on that day in proportion', () => {
    const sheets: WorkedSheet<number>[] = [{ contractId: 1, periodStart: '2024-02-10', periodEnd: '2024-02-29', daysWorked: 20 }];
    for (let m = 3; m <= 14; m++) {
      const y = m > 12 ? 2025 : 2024;
      const mm = String(m > 12 ? m - 12 : m).padStart(2, '0');
      const last = new Date(Date.UTC(y, Number(mm), 0)).getUTCDate();
      sheets.push({ contractId: 1, periodStart: `${y}-${mm}-01`, periodEnd: `${y}-${mm}-${last}`, daysWorked: 30 });
    }
    const [first, second] = accrualPeriods([contract({ startDate: '2024-02-10' })], sheets, '2026-01-01');
    // 20 + 11 × 30 = 350 days by the end of January 2025: ten more of February's 28 calendar days.
    expect(first).toMatchObject({ earnedOn: '2025-02-10', daysWorked: 360 });
    expect(second).toMatchObject({ number: 2, from: '2025-02-11', daysWorked: 20 });
  });

  it('given high-risk annual days, then each period earns them', () => {
    const [p] = accrualPeriods([contract({ annualDays: 30 })], fortnights('2024-02-01', '2024-07-31'), '2026-01-01');
    expect(days(p!.accruedUnits)).toBe(15);
    expect(days(p!.entitlementUnits)).toBe(30);
  });

  it('given an additional contract, a contract without dates and one not yet started, then only main contracts with dates that started count', () => {
    const contracts = [
      contract(),
      contract({ id: 2, additional: true, startDate: '2024-03-01' }),
      contract({ id: 3, startDate: null }),
      contract({ id: 4, startDate: '2027-02-01', endDate: '2028-01-31' }),
    ];
    const sheets = [...fortnights('2024-02-01', '2024-12-31'), ...fortnights('2024-03-01', '2024-12-31', 2)];
    const periods = accrualPeriods(contracts, sheets, '2025-01-10');
    expect(periods.map((p) => [p.contractId, p.daysWorked])).toEqual([[1, 330]]);
  });

  it('given a contract that ended or was settled short of a period, then that period is closed; in force, it is not', () => {
    const sheets = fortnights('2024-02-01', '2025-06-30');
    const on = (over: Partial<PeriodContract<number>>, asOf: string) =>
      accrualPeriods([contract(over)], sheets, asOf).map((p) => [p.number, p.daysWorked, p.closed]);
    expect(on({ endDate: '2025-06-30' }, '2025-07-01')).toEqual([
      [1, 360, true],
      [2, 150, true],
    ]);
    expect(on({ endDate: '2025-06-30' }, '2025-06-30')).toEqual([
      [1, 360, false],
      [2, 150, false],
    ]);
    expect(on({ settled: true }, '2025-07-01')).toEqual([
      [1, 360, true],
      [2, 150, true],
    ]);
    expect(on({}, '2025-07-01')).toEqual([
      [1, 360, false],
      [2, 150, false],
    ]);
  });

  it('given a contract that ended, then no empty period follows its last one; one in force keeps an empty period open', () => {
    const ended = accrualPeriods([contract({ endDate: '2025-01-31' })], fortnights('2024-02-01', '2025-01-31'), '2026-01-01');
    expect(ended.map((p) => p.number)).toEqual([1]);
    const inForce = accrualPeriods([contract()], fortnights('2024-02-01', '2025-01-31'), '2025-02-05');
    expect(inForce.map((p) => [p.number, p.from, p.daysWorked])).toEqual([
      [1, '2024-02-01', 360],
      [2, '2025-02-01', 0],
    ]);
  });

  it("given two main contracts, then the older contract's periods come first and each counts from its own start", () => {
    const contracts = [
      contract({ id: 2, startDate: '2025-03-01', endDate: '2026-12-31' }),
      contract({ endDate: '2025-02-28', settled: true }),
    ];
    const sheets = [...fortnights('2024-02-01', '2025-02-28'), ...fortnights('2025-03-01', '2025-08-31', 2)];
    const periods = accrualPeriods(contracts, sheets, '2025-09-10');
    expect(periods.map((p) => [p.contractId, p.number, p.from, p.daysWorked])).toEqual([
      [1, 1, '2024-02-01', 360],
      [1, 2, '2025-02-01', 30],
      [2, 1, '2025-03-01', 180],
    ]);
  });

  it('property: the periods add up to the days worked and every full period but the last has 360', () => {
    fc.assert(
      fc.property(fc.array(fc.integer({ min: 0, max: 31 }), { maxLength: 80 }), (worked) => {
        const sheets = fortnights('2020-01-01', '2023-04-30')
          .slice(0, worked.length)
          .map((s, i) => ({ ...s, daysWorked: worked[i]! }));
        const periods = accrualPeriods([contract({ startDate: '2020-01-01', endDate: '2030-12-31' })], sheets, '2026-01-01');
        expect(periods.reduce((s, p) => s + p.daysWorked, 0)).toBe(worked.reduce((a, b) => a + b, 0));
        for (const p of periods.slice(0, -1)) expect(p.daysWorked).toBe(360);
        for (const p of periods) expect(p.accruedUnits).toBe(p.daysWorked * 15);
      }),
    );
  });
});

describe('allocateTaken', () => {
  const periods = accrualPeriods([contract()], fortnights('2024-02-01', '2026-10-31'), '2026-11-21');

  it('given vacations of both kinds, then they fill the oldest period first, in order of start', () => {
    const a = allocateTaken(periods, [
      taken('C', '2026-03-02', 20, false, 3),
      taken('A', '2025-06-09', 10, false, 1),
      taken('B', '2025-09-01', 5, true, 2),
    ]);
    expect(a.periods.map((u) => [days(u.enjoyedUnits), days(u.compensatedUnits), days(u.pendingUnits)])).toEqual([
      [10, 5, 0],
      [15, 0, 0],
      [5, 0, 6.25],
    ]);
    expect(a.byRecord.get('C')).toEqual([
      { period: 1, units: 15 * 360 },
      { period: 2, units: 5 * 360 },
    ]);
  });

  it('given more days than accrued, then the rest goes to the last period, which shows them owed', () => {
    const a = allocateTaken(periods, [taken('A', '2025-06-09', 45)]);
    expect(a.periods.map((u) => days(u.pendingUnits))).toEqual([0, 0, -3.75]);
  });

  it('given no period at all, then nothing is placed', () => {
    const a = allocateTaken([], [taken('A', '2025-06-09', 5)]);
    expect(a.periods).toEqual([]);
    expect(a.byRecord.get('A')).toEqual([]);
  });

  it('property: the pending days of all periods are what was accrued less what was taken', () => {
    fc.assert(
      fc.property(fc.array(fc.tuple(fc.integer({ min: 1, max: 30 }), fc.boolean()), { maxLength: 10 }), (records) => {
        const a = allocateTaken(
          periods,
          records.map(([d, c], i) => taken(`R${i}`, `2025-0${(i % 9) + 1}-01`, d, c, i)),
        );
        const accrued = periods.reduce((s, p) => s + p.accruedUnits, 0);
        const total = records.reduce((s, [d]) => s + d * 360, 0);
        expect(a.periods.reduce((s, u) => s + u.pendingUnits, 0)).toBe(accrued - total);
      }),
    );
  });
});

describe('allocateAcrossContracts', () => {
  // Settled contract 1 (2022-2023, two full periods) and contract 2 in force since 2024-01-01.
  const settled = contract({ startDate: '2022-01-01', endDate: '2023-12-31', settled: true });
  const current = contract({ id: 2, startDate: '2024-01-01', endDate: '2028-12-31' });
  const sheets = [...fortnights('2022-01-01', '2023-12-31'), ...fortnights('2024-01-01', '2025-12-31', 2)];
  const periods = accrualPeriods([settled, current], sheets, '2026-01-10');
  const pending = (a: ReturnType<typeof allocateTaken>) => a.periods.map((u) => days(u.pendingUnits));

  it('given records under a settled contract and after it, then each contract pays its own: later days never go to the settled periods', () => {
    const a = allocateAcrossContracts(periods, [taken('OLD', '2023-03-06', 10, false, 1), taken('NEW', '2025-03-03', 10, false, 2)], (r) =>
      settledContractOf([settled, current], r),
    );
    expect(periods.map((p) => [p.contractId, p.number, p.settled])).toEqual([
      [1, 1, true],
      [1, 2, true],
      [2, 1, false],
      [2, 2, false],
      [2, 3, false],
    ]);
    expect(pending(a)).toEqual([5, 15, 5, 15, 0]);
    expect(a.byRecord.get('NEW')).toEqual([{ period: 2, units: 10 * 360 }]);
    // As one sequence, the later record would have taken the settled contract's leftover days.
    expect(pending(allocateTaken(periods, [taken('OLD', '2023-03-06', 10, false, 1), taken('NEW', '2025-03-03', 10, false, 2)]))).toEqual([
      0, 10, 15, 15, 0,
    ]);
  });

  it("given more days under the settled contract than it earned, then its last period owes them, and the others' are untouched", () => {
    const a = allocateAcrossContracts(periods, [taken('OLD', '2023-03-06', 35, false, 1)], (r) => settledContractOf([settled, current], r));
    expect(pending(a)).toEqual([0, -5, 15, 15, 0]);
  });

  it('given a record on a day an unsettled main contract was also in force, then it goes to the unsettled periods', () => {
    const overlapping = contract({ id: 2, startDate: '2023-07-01', endDate: '2028-12-31' });
    const ps = accrualPeriods([settled, overlapping], sheets, '2026-01-10');
    const a = allocateAcrossContracts(ps, [taken('MID', '2023-09-04', 5, false, 1)], (r) => settledContractOf([settled, overlapping], r));
    expect(a.byRecord.get('MID')!.map((part) => ps[part.period]!.contractId)).toEqual([2]);
  });

  it('given a settled contract with no period (no payroll), then its records are history: no period takes them', () => {
    const unpaid = accrualPeriods([settled, current], fortnights('2024-01-01', '2025-12-31', 2), '2026-01-10');
    const a = allocateAcrossContracts(unpaid, [taken('OLD', '2023-03-06', 10, false, 1)], (r) => settledContractOf([settled, current], r));
    expect(pending(a)).toEqual([15, 15, 0]);
    expect(a.byRecord.get('OLD')).toBeUndefined();
  });

  it('property: whatever the records, the pending days of all periods are what was accrued less what was taken', () => {
    fc.assert(
      fc.property(fc.array(fc.tuple(fc.integer({ min: 1, max: 30 }), fc.integer({ min: 0, max: 47 })), { maxLength: 12 }), (records) => {
        const list = records.map(([d, month], i) =>
          taken(`R${i}`, `${2022 + Math.floor(month / 12)}-${String((month % 12) + 1).padStart(2, '0')}-02`, d, i % 2 === 0, i),
        );
        const a = allocateAcrossContracts(periods, list, (r) => settledContractOf([settled, current], r));
        const accrued = periods.reduce((sum, p) => sum + p.accruedUnits, 0);
        expect(a.periods.reduce((sum, u) => sum + u.pendingUnits, 0)).toBe(accrued - records.reduce((sum, [d]) => sum + d * 360, 0));
        expect([...a.byRecord.keys()].sort()).toEqual(list.map((r) => r.key).sort());
      }),
    );
  });
});

describe('dates of a period', () => {
  it('given a period earned on 2025-01-31, then it is enforceable a year later and prescribes three years after that', () => {
    expect(enforceableFrom('2025-01-31')).toBe('2026-01-31');
    expect(prescribesOn('2025-01-31')).toBe('2029-01-31');
  });

  it('given a date whose prescription would fall past 9999, then it is refused rather than written as a date of five digits', () => {
    expect(() => prescribesOn('9996-06-01')).toThrow(RangeError);
  });

  it('given 29 February, then a common year gives 28 February', () => {
    expect(addYears('2024-02-29', 1)).toBe('2025-02-28');
    expect(addYears('2024-02-29', 4)).toBe('2028-02-29');
  });
});
