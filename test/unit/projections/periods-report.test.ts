import { describe, expect, it } from 'vitest';
import { periodsReport, type PeriodWarning } from '../../../src/projections/reports/periods.ts';
import { contract, fortnights, workerFile } from '../commands/builders.ts';
import { entry } from './builders.ts';

/** A worker under one contract since `start`, paid in fortnights through October 2026. */
const since = (start: string, technicalOrTrusted = false) =>
  workerFile({
    contracts: [contract({ startDate: start, endDate: '2028-12-31', technicalOrTrusted })],
    sheets: fortnights(start, '2026-10-31'),
  });

const kinds = (warnings: PeriodWarning[]) => warnings.map((w) => w.kind);

describe('the warnings of the periods (CST arts. 190 and 488)', () => {
  it('given five earned periods pending on 2026-11-21, then it warns of accumulation, one prescribed and one about to prescribe', () => {
    const report = periodsReport(since('2021-01-01'), [], '2026-11-21');
    expect(report.warnings).toEqual([
      { kind: 'accumulation', owed: 5, limit: 2, extended: false },
      { kind: 'prescribed', period: { contractId: 10001, number: 1 }, pendingUnits: 15 * 360, on: '2025-12-31' },
      { kind: 'aboutToPrescribe', period: { contractId: 10001, number: 2 }, pendingUnits: 15 * 360, on: '2026-12-31' },
    ]);
  });

  it('given two earned periods pending, then no accumulation; given three, then accumulation', () => {
    expect(kinds(periodsReport(since('2024-02-01'), [], '2026-11-21').warnings)).toEqual([]);
    expect(periodsReport(since('2023-02-01'), [], '2026-11-21').warnings).toEqual([
      { kind: 'accumulation', owed: 3, limit: 2, extended: false },
    ]);
  });

  it('given technical or trusted staff, then four periods may be accumulated and the fifth is warned of', () => {
    expect(kinds(periodsReport(since('2022-01-01', true), [], '2026-11-21').warnings)).toEqual(['aboutToPrescribe']);
    expect(periodsReport(since('2021-01-01', true), [], '2026-11-21').warnings[0]).toEqual({
      kind: 'accumulation',
      owed: 5,
      limit: 4,
      extended: true,
    });
  });

  it('given a period prescribing 180 days after the cut-off, then it is about to; 181 days after, then not yet', () => {
    // The period earned on 2022-12-31 prescribes on 2026-12-31.
    const file = since('2022-01-01');
    const on = (asOf: string) => periodsReport(file, [], asOf).warnings.filter((w) => w.kind !== 'accumulation');
    expect(on('2026-07-04')).toEqual([
      { kind: 'aboutToPrescribe', period: { contractId: 10001, number: 1 }, pendingUnits: 15 * 360, on: '2026-12-31' },
    ]);
    expect(on('2026-07-03')).toEqual([]);
  });

  it('given the prescription day itself, then the period has prescribed with the days still pending', () => {
    const report = periodsReport(since('2022-01-01'), [entry('VAC_1', '2023-03-06', 5)], '2026-12-31');
    expect(report.periods[0]).toMatchObject({ prescribesOn: '2026-12-31', prescribed: true, pending: 10 });
    expect(report.warnings).toContainEqual({
      kind: 'prescribed',
      period: { contractId: 10001, number: 1 },
      pendingUnits: 10 * 360,
      on: '2026-12-31',
    });
  });

  it('given the days of old periods taken, then neither accumulation nor prescription is warned of', () => {
    const taken = [entry('VAC_1', '2022-03-07', 15), entry('VAC_2', '2023-03-06', 15), entry('VAC_3', '2024-03-04', 15)];
    expect(periodsReport(since('2021-01-01'), taken, '2026-11-21').warnings).toEqual([]);
  });
});
