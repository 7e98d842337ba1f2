import { describe, expect, it } from 'vitest';
import fc from 'fast-check';
import {
  annualDaysFor,
  balanceOn,
  countsAsWorked,
  ibcOn,
  lastSettledMonth,
  mainContractRanges,
  payrollOf,
  type LedgerContract,
  type PayrollSheet,
} from '../../../src/domain/index.ts';

/** The worker's ids as the ledger holds them (numbers), for the names these tests give contracts. */
const ids = new Map<string, number>();
const idOf = (name: string) => ids.get(name) ?? (ids.set(name, ids.size + 1), ids.size);

type Named = { id: string; startDate: string | null; endDate: string | null; additional: boolean };
const ledgerContracts = (contracts: readonly Named[]): LedgerContract[] =>
  contracts.map((c) => ({ ...c, id: idOf(c.id), settled: false, companyContractId: null, riskLevel: null, baseSalary: 0 }));
const paid = (sheets: readonly PayrollSheet[]) => sheets.map((s) => ({ ...s, contractId: idOf(s.contractId) }));

/** Days worked by `date` as the ledger counts them (its `worked`): main contracts' sheets inside their dates. */
function daysWorked(sheets: readonly PayrollSheet[], contracts: readonly Named[], date: string): number {
  const held = ledgerContracts(contracts);
  return balanceOn({ contracts: held, companyContracts: new Map(), payroll: payrollOf(paid(sheets), held) }, [], date).worked;
}

/** The ledger's IBC for a worker whose only contract pays `salary`. */
function ibcLastMonth(sheets: readonly PayrollSheet[], salary: number, today: string): number {
  const held: LedgerContract[] = [
    {
      id: 0,
      startDate: '2000-01-01',
      endDate: null,
      settled: false,
      additional: false,
      companyContractId: null,
      riskLevel: null,
      baseSalary: salary,
    },
  ];
  return ibcOn({ contracts: held, payroll: payrollOf(paid(sheets), held) }, today);
}

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
});
