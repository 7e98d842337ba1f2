import { describe, expect, it } from 'vitest';
import { periodsProblem } from '../../../src/projections/reports/periods.ts';
import { settlementPreview } from '../../../src/projections/reports/settlement.ts';
import { contract, fortnights, params, workerFile } from '../commands/builders.ts';
import { entry } from './builders.ts';

describe('when the periods and the settlement cannot be figured (the consult checks, in its order)', () => {
  const file = (over: Parameters<typeof contract>[0], withParams = true) =>
    workerFile({ contracts: [contract(over)], params: withParams ? params() : null });

  it('given a contract without end date, then both refuse for its dates (no date is governed by it)', () => {
    expect(periodsProblem(file({ endDate: null }), '2026-11-21')).toEqual({ kind: 'no_dates' });
    expect(settlementPreview(file({ endDate: null }), [], '2026-11-30')).toEqual({ ok: false, problem: { kind: 'no_dates' } });
  });

  it('given no company contract, or one the reference data does not hold, then both refuse for it', () => {
    for (const companyContractId of [null, 99]) {
      expect(periodsProblem(file({ companyContractId }), '2026-11-21')).toEqual({ kind: 'no_company_contract' });
      expect(settlementPreview(file({ companyContractId }), [], '2026-11-30')).toMatchObject({ problem: { kind: 'no_company_contract' } });
    }
  });

  it('given no risk level and no company contract, then the company contract is named first, as the consult does', () => {
    expect(periodsProblem(file({ riskLevel: null, companyContractId: null }), '2026-11-21')).toEqual({ kind: 'no_company_contract' });
    expect(periodsProblem(file({ riskLevel: null }), '2026-11-21')).toEqual({ kind: 'no_risk_level' });
    expect(settlementPreview(file({ riskLevel: null }), [], '2026-11-30')).toMatchObject({ problem: { kind: 'no_risk_level' } });
  });

  it('given a company contract without vacation parameters, then both refuse for it', () => {
    expect(periodsProblem(file({}, false), '2026-11-21')).toMatchObject({ kind: 'no_params' });
    expect(settlementPreview(file({}, false), [], '2026-11-30')).toMatchObject({ problem: { kind: 'no_params' } });
  });

  it('given only a settled contract, then the periods are history and the settlement has no contract in force', () => {
    const settled = file({ settled: true, endDate: '2025-12-31' });
    expect(periodsProblem(settled, '2026-11-21')).toBeNull();
    expect(settlementPreview(settled, [], '2026-11-30')).toEqual({
      ok: false,
      problem: { kind: 'no_contract_on_leaving', leavingDate: '2026-11-30' },
    });
  });

  it('given a contract that can accrue, then neither refuses', () => {
    expect(periodsProblem(workerFile({ sheets: fortnights('2024-02-01', '2026-10-31') }), '2026-11-21')).toBeNull();
    expect(settlementPreview(workerFile(), [], '2026-11-30').ok).toBe(true);
  });
});

describe('what a settlement owes', () => {
  const salary = 3_600_000;
  // Settled contract 10001 (2022-2023) and 10002 in force since 2024-01-01, both paid in fortnights.
  const file = workerFile({
    contracts: [
      contract({ startDate: '2022-01-01', endDate: '2023-12-31', settled: true }),
      contract({ id: 10002, startDate: '2024-01-01', endDate: '2028-12-31', baseSalary: salary }),
    ],
    sheets: [...fortnights('2022-01-01', '2023-12-31'), ...fortnights('2024-01-01', '2026-10-31', salary, 10002)],
  });
  const taken = [entry('VAC_1', '2023-03-06', 10, { contractId: 10002 }), entry('VAC_2', '2025-03-03', 10, { contractId: 10002 })];

  it('given a settled contract and one in force, then only the one in force is owed, valued at its salary, and the settled periods are listed apart', () => {
    const s = settlementPreview(file, taken, '2026-10-31');
    if (!s.ok) throw new Error(JSON.stringify(s));
    // 10002: 15 + 15 + 300 days of 2026 (12.5), less the 10 taken in 2025.
    expect(s.settlement).toMatchObject({ pending: 32.5, pendingUnits: 32.5 * 360, value: 3_900_000 });
    expect(s.settlement.contract.id).toBe(10002);
    expect(s.settlement.periods.map((p) => [p.contractId, p.number, p.pending])).toEqual([
      [10002, 1, 5],
      [10002, 2, 15],
      [10002, 3, 12.5],
    ]);
    expect(s.settlement.excluded.map((p) => [p.contractId, p.number, p.pending, p.settled])).toEqual([
      [10001, 1, 5, true],
      [10001, 2, 15, true],
    ]);
    expect(s.settlement.warnings).toEqual([{ kind: 'settledContract', contractId: 10001, pendingUnits: 20 * 360 }]);
  });

  it('given days taken in advance, then what is owed and its value are negative, rounded half up on the magnitude', () => {
    const s = settlementPreview(workerFile(), [entry('VAC_1', '2026-09-01', 43)], '2026-10-31');
    if (!s.ok) throw new Error(JSON.stringify(s));
    // 15 + 15 + 270 days of 2026 (11.25) = 41.25, less 43: -1.75 days at 2,847,000 a month.
    expect(s.settlement).toMatchObject({ pending: -1.75, value: -166_075 });
    expect(s.settlement.warnings).toEqual([]);
  });

  it('given a record ending after the leaving date, then its days count as taken and it is named', () => {
    const s = settlementPreview(workerFile(), [entry('VAC_9', '2026-10-26', 6, { endDate: '2026-11-03' })], '2026-10-31');
    expect(s.ok && s.settlement.warnings).toEqual([
      { kind: 'endsAfterLeaving', codigoPila: 'VAC_9', startDate: '2026-10-26', endDate: '2026-11-03' },
    ]);
    expect(s.ok && s.settlement.pending).toBe(35.25);
  });
});

describe('the days worked after the last payroll sheet, in a settlement', () => {
  it('given payroll through October, when leaving on 21 November, then 21 days are counted from the contract and named', () => {
    const s = settlementPreview(workerFile(), [], '2026-11-21');
    if (!s.ok) throw new Error(JSON.stringify(s));
    expect(s.settlement.unpaid).toEqual({ payrollThrough: '2026-10-31', from: '2026-11-01', days: 21, accruedUnits: 21 * 15 });
    // 15 + 15 + 270 days of 2026 (11.25) + 0.875; 2,847,000 × 42.125 / 30 = 3,997,662.5, rounded half up.
    expect(s.settlement).toMatchObject({ pendingUnits: 42.125 * 360, pending: 42.13, value: 3_997_663 });
    expect(s.settlement.periods.at(-1)).toMatchObject({ daysWorked: 291, accrued: 12.13 });
    expect(s.settlement.warnings).toEqual([
      { kind: 'projected', contractId: 10001, payrollThrough: '2026-10-31', from: '2026-11-01', days: 21, accruedUnits: 315 },
    ]);
  });

  it('given a contract without any payroll yet, then its days are counted from its start', () => {
    const file = workerFile({ contracts: [contract({ startDate: '2026-09-16' })], sheets: [] });
    const s = settlementPreview(file, [], '2026-11-30');
    expect(s.ok && s.settlement.unpaid).toEqual({ payrollThrough: null, from: '2026-09-16', days: 75, accruedUnits: 75 * 15 });
    expect(s.ok && s.settlement.pending).toBe(3.13);
  });

  it('given the days after the last sheet complete a period, then the period is earned inside them and the next one starts', () => {
    // 345 days by 2025-01-15; 30 more to the leaving date on 2025-02-15.
    const file = workerFile({ sheets: fortnights('2024-02-01', '2025-01-31').slice(0, -1) });
    const s = settlementPreview(file, [], '2025-02-15');
    if (!s.ok) throw new Error(JSON.stringify(s));
    expect(s.settlement.unpaid.days).toBe(30);
    expect(s.settlement.periods.map((p) => [p.number, p.daysWorked, p.earnedOn !== null])).toEqual([
      [1, 360, true],
      [2, 15, false],
    ]);
    expect(s.settlement.pendingUnits).toBe(375 * 15);
  });

  it('given an additional contract governing the leaving date, then nothing is counted beyond payroll', () => {
    const file = workerFile({
      contracts: [contract({ endDate: '2026-06-30' }), contract({ id: 10002, additional: true, startDate: '2026-01-01' })],
    });
    const s = settlementPreview(file, [], '2026-11-21');
    expect(s.ok && s.settlement.contract.id).toBe(10002);
    expect(s.ok && s.settlement.unpaid.days).toBe(0);
  });
});

describe('a settled contract that gave days in advance', () => {
  it('given more days taken under it than it earned, then its debt is listed apart but neither owed nor named as days left out', () => {
    const file = workerFile({
      contracts: [
        contract({ startDate: '2022-01-01', endDate: '2022-12-31', settled: true }),
        contract({ id: 10002, startDate: '2023-01-01', endDate: '2028-12-31' }),
      ],
      sheets: [...fortnights('2022-01-01', '2022-12-31'), ...fortnights('2023-01-01', '2023-12-31', 2_847_000, 10002)],
    });
    const s = settlementPreview(file, [entry('VAC_1', '2022-11-01', 18)], '2023-12-31');
    if (!s.ok) throw new Error(JSON.stringify(s));
    expect(s.settlement.excluded.map((p) => [p.contractId, p.pending])).toEqual([[10001, -3]]);
    expect(s.settlement.pending).toBe(15);
    expect(s.settlement.warnings).toEqual([]);
  });
});
