import { describe, expect, it } from 'vitest';
import { balanceOn, type PaidSheet } from '../../../src/domain/index.ts';
import { periodsReport } from '../../../src/projections/reports/periods.ts';
import { contract, workerFile } from '../commands/builders.ts';

/** One fortnight of 2026-10 with the days given, under the builders' contract (id 1, 15 days a year). */
const fortnight = (daysWorked: number, leave?: PaidSheet['leave']): PaidSheet => ({
  contractId: 1,
  periodStart: '2026-10-01',
  periodEnd: '2026-10-15',
  daysWorked,
  basicCompensation: 1_000_000,
  ...(leave ? { leave } : {}),
});

const fileOf = (sheet: PaidSheet) =>
  workerFile({ contracts: [contract({ id: 1, startDate: '2026-10-01', endDate: '2027-12-31' })], sheets: [sheet] });

describe('leave on a payroll sheet (DOMAIN.md, "Leave on a payroll sheet")', () => {
  it('a fortnight of 10 days worked and 5 of sick leave accrues 15 days, and consult still counts 10 worked', () => {
    const sick = balanceOn(fileOf(fortnight(10, { sick: 5 })), [], '2026-10-31');
    const full = balanceOn(fileOf(fortnight(15)), [], '2026-10-31');
    expect(sick.accruedUnits).toBe(full.accruedUnits);
    expect(sick.accruedUnits).toBe(15 * 15);
    expect(sick.worked).toBe(10);
    expect(periodsReport(fileOf(fortnight(10, { sick: 5 })), [], '2026-10-31').periods[0]).toMatchObject({ daysWorked: 15 });
  });

  it('a fortnight of 10 days worked and 5 of unpaid leave accrues 10 days and shows 5 deducted', () => {
    const file = fileOf(fortnight(10, { unpaidLeave: 5 }));
    const b = balanceOn(file, [], '2026-10-31');
    expect(b.accruedUnits).toBe(10 * 15);
    expect(b.worked).toBe(10);
    const p = periodsReport(file, [], '2026-10-31').periods[0]!;
    expect(p.daysWorked).toBe(10);
    expect(p.deducted).toEqual({ unpaidLeave: 5, suspension: 0 });
  });

  it('paid leave and paid vacation accrue; suspension does not', () => {
    const b = balanceOn(fileOf(fortnight(5, { paidLeave: 3, vacation: 2, suspension: 5 })), [], '2026-10-31');
    expect(b.accruedUnits).toBe(10 * 15);
    expect(b.worked).toBe(5);
  });
});
