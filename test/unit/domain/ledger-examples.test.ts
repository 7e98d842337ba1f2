import { describe, expect, it } from 'vitest';
import { evaluate } from '../../../src/commands/evaluate.ts';
import { balanceOn, salaryOn, type LedgerRecord } from '../../../src/domain/index.ts';
import { ruleMessages } from '../../../src/app/rule-messages.ts';
import { periodsReport } from '../../../src/projections/reports/periods.ts';
import { settlementPreview } from '../../../src/projections/reports/settlement.ts';
import { calendar, contract, fortnights, params, request, workerFile } from '../commands/builders.ts';
import { entry } from '../projections/builders.ts';

/** The balance in days (two decimals) the ledger, calculate, the periods and the settlement each give. */
function everyView(file: ReturnType<typeof workerFile>, records: ReturnType<typeof entry>[], date: string) {
  const asLedger: LedgerRecord[] = records.map((r) => ({
    key: r.codigoPila,
    order: r.recordId,
    startDate: r.startDate,
    days: r.businessDays,
    compensated: r.compensated,
  }));
  return {
    ledger: balanceOn(file, asLedger, date).availableUnits / 360,
    periods: periodsReport(file, records, date).totals.pendingUnits / 360,
  };
}

describe('one balance: each contract accrues at its own rate', () => {
  // A high-risk contract (30 days a year) for a year, then an ordinary one (15) for 33 months.
  const file = workerFile({
    contracts: [
      contract({ id: 1, startDate: '2023-01-01', endDate: '2023-12-31', riskLevel: 5 }),
      contract({ id: 2, startDate: '2024-01-01', endDate: '2027-12-31', riskLevel: 1 }),
    ],
    sheets: [...fortnights('2023-01-01', '2023-12-31', 3_000_000, 1), ...fortnights('2024-01-01', '2026-09-30', 3_000_000, 2)],
  });

  it('given a year at 30 and 33 months at 15, then every view gives 30 + 41.25 = 71.25', () => {
    expect(everyView(file, [], '2026-10-05')).toEqual({ ledger: 71.25, periods: 71.25 });
    const ev = evaluate({ request: request({ startDate: '2026-10-05', days: 6 }), file, state: { vacations: new Map() }, calendar });
    expect(ev.ok && ev.figures.availableUnits / 360).toBe(71.25);
    const s = settlementPreview(file, [], '2026-09-30');
    expect(s.ok && s.settlement.pending).toBe(71.25);
  });
});

describe('one balance: a settled contract is out of it', () => {
  // Settled after two years with a 10-day vacation inside it; then a new contract for 34 months.
  const file = workerFile({
    contracts: [
      contract({ id: 1, startDate: '2021-01-01', endDate: '2022-12-31', settled: true }),
      contract({ id: 2, startDate: '2023-01-01', endDate: '2027-12-31' }),
    ],
    sheets: [...fortnights('2021-01-01', '2022-12-31', 3_000_000, 1), ...fortnights('2023-01-01', '2025-10-31', 3_000_000, 2)],
  });
  const old = entry('VAC_1', '2022-03-07', 10, { contractId: 1 });

  it('given its accrual and its vacation, then neither counts: 42.5 everywhere', () => {
    expect(everyView(file, [old], '2025-11-10')).toEqual({ ledger: 42.5, periods: 42.5 });
    const s = settlementPreview(file, [old], '2025-10-31');
    expect(s.ok && s.settlement.pending).toBe(42.5);
  });

  it('given its vacation, then the periods show it as history under the settled contract, never as taken', () => {
    const report = periodsReport(file, [old], '2025-11-10');
    expect(report.settledRecords).toEqual(new Map([['VAC_1', 1]]));
    expect(report.totals.enjoyed).toBe(0);
  });
});

describe('one balance: a sheet of 0 days worked is payroll run', () => {
  // Paid through November 2026, the last fortnight an unpaid leave (0 days).
  const sheets = fortnights('2026-01-01', '2026-11-30', 3_000_000).map((s) =>
    s.periodStart === '2026-11-16' ? { ...s, daysWorked: 0, basicCompensation: 0 } : s,
  );
  const file = workerFile({ contracts: [contract({ startDate: '2026-01-01', endDate: '2026-11-30' })], sheets });

  it('given the last sheet of 0 days, then the settlement runs payroll through its end and projects nothing', () => {
    const s = settlementPreview(file, [], '2026-11-30');
    expect(s.ok && s.settlement.unpaid).toEqual({ payrollThrough: '2026-11-30', from: '2026-12-01', days: 0, accruedUnits: 0 });
    // 315 days worked (10.5 months): 13.13 days, nothing more.
    expect(s.ok && s.settlement.pending).toBe(13.13);
  });
});

describe('rule (f): the vacation ends inside the contract', () => {
  const file = workerFile({ contracts: [contract({ startDate: '2024-02-01', endDate: '2026-12-31' })] });

  it('given 15 days from 2026-12-21 on a contract ending 2026-12-31, then it fails naming both dates', () => {
    const ev = evaluate({ request: request({ startDate: '2026-12-21', days: 15 }), file, state: { vacations: new Map() }, calendar });
    expect(!ev.ok && ruleMessages(ev.violations)).toEqual([
      'Las vacaciones terminan el 2027-01-13, después del fin del contrato (2026-12-31)',
    ]);
  });

  it('given a vacation that ends on the contract’s last day, then it passes', () => {
    const ev = evaluate({ request: request({ startDate: '2026-12-22', days: 6 }), file, state: { vacations: new Map() }, calendar });
    expect(ev.ok && ev.figures.endDate).toBe('2026-12-30');
  });
});

describe('variable salary (CST art. 192 §2)', () => {
  // Paid 2,000,000 a month through June 2026 and 4,000,000 from July, 15 days a fortnight.
  const sheets = [...fortnights('2025-01-01', '2026-06-30', 2_000_000), ...fortnights('2026-07-01', '2026-10-31', 4_000_000)];
  const variable = workerFile({ contracts: [contract({ startDate: '2025-01-01', endDate: '2027-12-31', variableSalary: true })], sheets });

  it('given a start on 2026-11-03, then the salary is the average of the sheets ending in the year before, to the peso', () => {
    // Sheets ending 2025-11-15 .. 2026-10-31: 16 fortnights at 1,000,000 and 8 at 2,000,000 over 360 days.
    expect(salaryOn(variable, variable.contracts[0]!, '2026-11-03')).toBe(2_666_667);
    const ev = evaluate({
      request: request({ startDate: '2026-11-03', days: 15 }),
      file: variable,
      state: { vacations: new Map() },
      calendar,
    });
    expect(ev.ok && [ev.figures.salary, ev.figures.totalValue]).toEqual([2_666_667, 1_333_334]);
  });

  it('given no sheet in the year before, then the base salary stands in; a fixed salary is always the base', () => {
    expect(salaryOn(variable, variable.contracts[0]!, '2025-01-01')).toBe(2_847_000);
    const fixed = workerFile({ contracts: [contract({ startDate: '2025-01-01', endDate: '2027-12-31' })], sheets });
    expect(salaryOn(fixed, fixed.contracts[0]!, '2026-11-03')).toBe(2_847_000);
  });

  it('given a leaving date, then the settlement values the pending days at the average of the year before it', () => {
    // Sheets ending 2025-10-31 .. 2026-10-30: 17 fortnights at 1,000,000 and 7 at 2,000,000 over 360 days.
    const s = settlementPreview(variable, [], '2026-10-31');
    if (!s.ok) throw new Error('no settlement');
    expect(s.settlement.salary).toBe(2_583_333);
    expect(s.settlement.value).toBe(Math.round((2_583_333 * s.settlement.pendingUnits) / (30 * 360)));
  });
});

describe('a continuation of an interrupted vacation is exempt from the minimum', () => {
  const file = workerFile({ params: params({ minEnjoyedDays: 6 }) });
  // An approved 10-day vacation interrupted after 8 days: 2 given back.
  const state = {
    vacations: new Map([
      [
        'VAC_I',
        {
          codigoPila: 'VAC_I',
          recordId: 1,
          startDate: '2025-06-02',
          endDate: '2025-06-11',
          businessDays: 8,
          compensated: false,
          deleted: false,
          continues: null,
          interruptedOn: '2025-06-12',
          daysReturned: 2,
        },
      ],
    ]),
  };
  const continuing = (days: number) =>
    evaluate({ request: request({ startDate: '2026-01-05', days, continues: 'VAC_I' }), file, state, calendar });

  it('given the 2 days given back, when booked as the continuation, then they pass below the minimum of 6', () => {
    expect(continuing(2).ok).toBe(true);
    expect(continuing(1).ok).toBe(true);
  });

  it('given 3 days, then they exceed what was given back, and only that is said', () => {
    const ev = continuing(3);
    expect(!ev.ok && ruleMessages(ev.violations)).toEqual([
      'Los días solicitados (3) superan los 2 días no disfrutados que quedan de las vacaciones interrumpidas VAC_I',
    ]);
  });

  it('given 2 days that are not a continuation, then the minimum still applies', () => {
    const ev = evaluate({ request: request({ startDate: '2026-01-05', days: 2 }), file, state, calendar });
    expect(!ev.ok && ruleMessages(ev.violations)).toEqual(['Los días solicitados (2) no cumplen el mínimo de 6 días disfrutados']);
  });
});
