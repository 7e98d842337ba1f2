import { describe, expect, it } from 'vitest';
import { periodsProblem } from '../../../src/projections/register/periods.ts';
import { settlementPreview } from '../../../src/projections/register/settlement.ts';
import { contract, fortnights, params, workerFile } from '../commands/builders.ts';

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
