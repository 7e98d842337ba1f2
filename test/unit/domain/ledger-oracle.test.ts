/**
 * Every view of a worker's balance against a small reference model written here from the words of
 * the business rules alone (day by day, contract by contract), sharing no code with the ledger:
 * consult's available days, calculate's DiasDisponibles, the periods' total pending and the
 * settlement's pending must each be the model's figure, for random workers on random dates.
 */
import fc from 'fast-check';
import { describe, expect, it } from 'vitest';
import { evaluate } from '../../../src/commands/evaluate.ts';
import { HolidayCalendar } from '../../../src/domain/index.ts';
import { vacationBalance } from '../../../src/projections/reports/balance.ts';
import { periodsReport } from '../../../src/projections/reports/periods.ts';
import { settlementPreview } from '../../../src/projections/reports/settlement.ts';
import { arbWorker, day, entries, fileOf, governing, judged, modelAvailable, modelSettlement } from '../../support/balance-model.ts';

const calendar = new HolidayCalendar();
const arbDate = fc.integer({ min: 0, max: 2600 }).map((n) => day('2021-01-01', n));

describe('every view of the balance equals the reference model', () => {
  it('property: consult, calculate, the periods and the settlement each give the model’s figure', async () => {
    await fc.assert(
      fc.asyncProperty(arbWorker, arbDate, async (w, date) => {
        const file = fileOf(w);
        const want = modelAvailable(w, date);

        const consult = await vacationBalance(file, date, async () =>
          judged(w).map((v) => ({
            key: v.codigoPila,
            order: v.recordId,
            startDate: v.startDate,
            days: v.businessDays,
            compensated: v.compensated,
          })),
        );
        if (consult.ok) expect(consult.balance.available.units).toBe(want);

        const g = governing(w, date);
        const ev = evaluate({
          request: { startDate: date, days: 1, advance: true, worksSaturday: true, compensated: true, socialSecurityInPayroll: null },
          file,
          state: { vacations: new Map(judged(w).map((v) => [v.codigoPila, v])) },
          calendar,
        });
        if (g) expect(ev.figures?.availableUnits).toBe(want);

        expect(periodsReport(file, entries(w), date).totals.pendingUnits).toBe(want);

        const s = settlementPreview(file, entries(w), date);
        if (g && g.risk !== null) {
          expect(s.ok).toBe(true);
          if (s.ok) expect(s.settlement.pendingUnits).toBe(modelSettlement(w, date, g));
        }
      }),
      { numRuns: 400 },
    );
  });
});
