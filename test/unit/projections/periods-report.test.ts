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
/** The warnings of arts. 190 (accumulation) and 488; the six days of art. 190 are tested on their own below. */
const notSixDays = (w: PeriodWarning) => w.kind !== 'sixDays';

describe('the warnings of the periods (CST arts. 190 and 488)', () => {
  it('given five earned periods pending on 2026-11-21, then it warns of accumulation, one prescribed and one about to prescribe', () => {
    const report = periodsReport(since('2021-01-01'), [], '2026-11-21');
    expect(report.warnings.filter(notSixDays)).toEqual([
      { kind: 'accumulation', owed: 5, limit: 2, extended: false },
      { kind: 'prescribed', period: { contractId: 10001, number: 1 }, pendingUnits: 15 * 360, on: '2025-12-31' },
      { kind: 'aboutToPrescribe', period: { contractId: 10001, number: 2 }, pendingUnits: 15 * 360, on: '2026-12-31' },
    ]);
  });

  it('given two earned periods pending, then no accumulation; given three, then accumulation', () => {
    expect(kinds(periodsReport(since('2024-02-01'), [], '2026-11-21').warnings.filter(notSixDays))).toEqual([]);
    expect(periodsReport(since('2023-02-01'), [], '2026-11-21').warnings.filter(notSixDays)).toEqual([
      { kind: 'accumulation', owed: 3, limit: 2, extended: false },
    ]);
  });

  it('given technical or trusted staff, then four periods may be accumulated and the fifth is warned of', () => {
    expect(kinds(periodsReport(since('2022-01-01', true), [], '2026-11-21').warnings.filter(notSixDays))).toEqual(['aboutToPrescribe']);
    expect(periodsReport(since('2021-01-01', true), [], '2026-11-21').warnings.filter(notSixDays)[0]).toEqual({
      kind: 'accumulation',
      owed: 5,
      limit: 4,
      extended: true,
    });
  });

  it('given a period prescribing 180 days after the cut-off, then it is about to; 181 days after, then not yet', () => {
    // The period earned on 2022-12-31 prescribes on 2026-12-31.
    const file = since('2022-01-01');
    const on = (asOf: string) =>
      periodsReport(file, [], asOf)
        .warnings.filter(notSixDays)
        .filter((w) => w.kind !== 'accumulation');
    expect(on('2026-07-04')).toEqual([
      { kind: 'aboutToPrescribe', period: { contractId: 10001, number: 1 }, pendingUnits: 15 * 360, on: '2026-12-31' },
    ]);
    expect(on('2026-07-03')).toEqual([]);
  });

  it('given the prescription day itself, then the period has prescribed with the days still pending', () => {
    const report = periodsReport(since('2022-01-01'), [entry('VAC_1', '2023-03-06', 5)], '2026-12-31');
    expect(report.periods[0]).toMatchObject({ prescribesOn: '2026-12-31', prescribed: true, pending: 10 });
    expect(report.warnings.filter(notSixDays)).toContainEqual({
      kind: 'prescribed',
      period: { contractId: 10001, number: 1 },
      pendingUnits: 10 * 360,
      on: '2026-12-31',
    });
  });

  it('given the days of old periods taken, then neither accumulation nor prescription is warned of', () => {
    const taken = [entry('VAC_1', '2022-03-07', 15), entry('VAC_2', '2023-03-06', 15), entry('VAC_3', '2024-03-04', 15)];
    expect(periodsReport(since('2021-01-01'), taken, '2026-11-21').warnings.filter(notSixDays)).toEqual([]);
  });
});

describe('the six continuous days of CST art. 190', () => {
  // Earned on 2023-12-31, enforceable from 2024-12-31: its year to be enjoyed ends on 2025-12-31.
  const file = since('2023-01-01');
  const sixDays = (records: Parameters<typeof periodsReport>[1], asOf: string) =>
    periodsReport(file, records, asOf).warnings.filter((w) => w.kind === 'sixDays');

  it('given a period whose year to be enjoyed has passed with nothing enjoyed, then it warns, naming the period and the dates', () => {
    expect(sixDays([], '2026-01-01')).toEqual([
      { kind: 'sixDays', period: { contractId: 10001, number: 1 }, enforceableFrom: '2024-12-31', due: '2025-12-31' },
    ]);
    // On the last day of that year there is still time.
    expect(sixDays([], '2025-12-31')).toEqual([]);
  });

  it('given one enjoyed record of 6 business days charged to the period, then no warning; of 5, or paid in money, then the warning stands', () => {
    expect(sixDays([entry('VAC_1', '2025-03-03', 6)], '2026-06-01').map((w) => w.kind === 'sixDays' && w.period.number)).not.toContain(1);
    expect(sixDays([entry('VAC_1', '2025-03-03', 5)], '2026-06-01').map((w) => w.kind === 'sixDays' && w.period.number)).toContain(1);
    expect(
      sixDays([entry('VAC_1', '2025-03-03', 10, { compensated: true })], '2026-06-01').map((w) => w.kind === 'sixDays' && w.period.number),
    ).toContain(1);
  });
});
