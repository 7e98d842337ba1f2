import { describe, expect, it } from 'vitest';
import { liabilityOn, movementOf, payrollOf, type LedgerFile, type LiabilityRecord } from '../../../src/domain/index.ts';

const noHolidays = { isHoliday: () => false };

const contract = {
  id: 1,
  startDate: '2026-01-01',
  endDate: '2026-12-31',
  settled: false,
  additional: false,
  companyContractId: 7,
  riskLevel: 1,
  baseSalary: 3_000_000,
};

const file: LedgerFile = {
  contracts: [contract],
  companyContracts: new Map([[7, { vacationParams: { annualDays: 15, annualDaysHighRisk: 30 } }]]),
  payroll: payrollOf(
    [
      { contractId: 1, periodStart: '2026-01-01', periodEnd: '2026-01-15', daysWorked: 15, basicCompensation: 1_500_000 },
      { contractId: 1, periodStart: '2026-01-16', periodEnd: '2026-01-31', daysWorked: 15, basicCompensation: 1_500_000 },
    ],
    [contract],
  ),
};

// Monday 26 January 2026 to Friday 30, five business days; a second one booked ahead in February.
const enjoyed: LiabilityRecord = {
  key: 'A',
  order: 1,
  startDate: '2026-01-26',
  endDate: '2026-01-30',
  days: 5,
  compensated: false,
  worksSaturday: false,
};
const ahead: LiabilityRecord = {
  key: 'B',
  order: 2,
  startDate: '2026-02-02',
  endDate: '2026-02-06',
  days: 5,
  compensated: false,
  worksSaturday: false,
};

describe('liabilityOn', () => {
  it('values 30 days worked at 15 a year: 1.25 days of 3,000,000 is 125,000', () => {
    const l = liabilityOn(file, [], '2026-01-31', noHolidays)!;
    expect(l.pendingUnits).toBe(450);
    expect(l.value).toBe(125_000);
    expect(l.advance).toBe(0);
  });

  it('counts an enjoyed record only as its days pass, and a booking ahead not at all', () => {
    // By Wednesday 28: 15 days worked accrue 0.625; 3 of the 5 days enjoyed: -2.375 days, 237,500 prepaid.
    const l = liabilityOn(file, [enjoyed, ahead], '2026-01-28', noHolidays)!;
    expect(l.enjoyedDays).toBe(3);
    expect(l.value).toBe(0);
    expect(l.advance).toBe(237_500);
  });

  it('counts a compensated record whole from its start', () => {
    const paid = { ...ahead, key: 'C', startDate: '2026-01-27', endDate: '2026-01-29', days: 1, compensated: true };
    const l = liabilityOn(file, [paid], '2026-01-27', noHolidays)!;
    expect(l.compensatedDays).toBe(1);
    // 0.625 - 1 = -0.375 days: 37,500 prepaid.
    expect(l.advance).toBe(37_500);
  });

  it('leaves out a worker whose contract starts after the date', () => {
    expect(liabilityOn(file, [], '2025-12-31', noHolidays)).toBeNull();
  });
});

describe('movementOf', () => {
  it('January: opening 0, accrued 125,000, taken 500,000, closing -375,000, nothing revalued', () => {
    const m = movementOf(file, [enjoyed, ahead], '2026-01-01', '2026-01-31', noHolidays)!;
    expect(m.openingValue).toBe(0);
    expect(m.accruedValue).toBe(125_000);
    expect(m.takenDays).toBe(5);
    expect(m.takenValue).toBe(500_000);
    expect(m.closingValue).toBe(-375_000);
    expect(m.revaluation).toBe(0);
  });
});
