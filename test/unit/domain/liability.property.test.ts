/**
 * The liability and its month's movement against a reference model written here from the words of
 * the business rules ("The vacation liability"), sharing no code with src/domain/liability.ts: who
 * owes, the pending days on a cut-off date (a booking ahead counting only as its days pass), their
 * value to the peso at the salary of the contract the worker stands under, the prepaid amount of
 * days taken in advance, and a month's movement whose revaluation stays within rounding when the
 * salary did not change.
 */
import fc from 'fast-check';
import { describe, expect, it } from 'vitest';
import { HolidayCalendar, liabilityOn, movementOf, type LiabilityRecord } from '../../../src/domain/index.ts';
import {
  accrued,
  arbWorker,
  day,
  fileOf,
  governing,
  nextDay,
  type ModelContract,
  type ModelRecord,
  type ModelWorker,
} from '../../support/balance-model.ts';

const calendar = new HolidayCalendar();

// ---- The model. ----

/** "Monday to Friday, never Sunday, minus holidays" (the random workers do not work Saturdays). */
const isBusiness = (d: string) => {
  const weekday = new Date(`${d}T00:00:00Z`).getUTCDay();
  return weekday !== 0 && weekday !== 6 && !calendar.isHoliday(d);
};

/** The days a record covers, as business days walked from its start: the last one is its end. */
const enjoyedDays = (r: ModelRecord) => r.days - r.returned;
function endOf(r: ModelRecord): string {
  if (r.compensated) return r.start;
  let d = r.start;
  for (let n = isBusiness(d) ? 1 : 0; n < enjoyedDays(r);) {
    d = nextDay(d);
    if (isBusiness(d)) n++;
  }
  return d;
}

const settledMainHolding = (w: ModelWorker, date: string) =>
  w.contracts.some((c) => c.settled && !c.additional && c.start <= date && date <= c.end);

/** "Days enjoyed or paid through D": enjoyed ones a business day at a time, compensated ones whole on their start. */
function takenThrough(w: ModelWorker, date: string): number {
  let days = 0;
  for (const r of w.records) {
    if (r.deleted || settledMainHolding(w, r.start) || r.start > date) continue;
    if (r.compensated) {
      days += r.days;
      continue;
    }
    let n = 0;
    for (let d = r.start; d <= date && n < enjoyedDays(r); d = nextDay(d)) if (isBusiness(d)) n++;
    days += n;
  }
  return days;
}

/** "Pending days × salary / 30, rounded half up to a whole peso", on the magnitude. */
const pesos = (salary: number, units: number) => Number((BigInt(salary) * BigInt(Math.abs(units)) + 5_400n) / 10_800n);

/** The contract the worker stands under on D: the governing one, else the one that started last. */
function standing(w: ModelWorker, date: string): ModelContract {
  const g = governing(w, date);
  if (g) return g;
  let latest = w.contracts[0]!;
  for (const c of w.contracts) if (c.start > latest.start) latest = c;
  return latest;
}

interface ModelLiability {
  contract: number;
  pendingUnits: number;
  salary: number;
  value: number;
  advance: number;
}

function modelLiability(w: ModelWorker, salaryOf: (id: number) => number, date: string): ModelLiability | null {
  if (!w.contracts.some((c) => !c.settled && c.start <= date)) return null;
  const contract = standing(w, date);
  const pendingUnits = accrued(w, date) - takenThrough(w, date) * 360;
  const salary = salaryOf(contract.id);
  const value = pesos(salary, pendingUnits);
  return { contract: contract.id, pendingUnits, salary, value: pendingUnits >= 0 ? value : 0, advance: pendingUnits < 0 ? value : 0 };
}

// ---- The service's figures of the same worker. ----

const recordsOf = (w: ModelWorker): LiabilityRecord[] =>
  w.records
    .map((r, i) => ({ r, i }))
    .filter(({ r }) => !r.deleted)
    .map(({ r, i }) => ({
      key: r.code,
      order: i + 1,
      startDate: r.start,
      days: enjoyedDays(r),
      compensated: r.compensated,
      endDate: endOf(r),
      worksSaturday: false,
    }));

const arbSalaries = fc.array(fc.integer({ min: 1_423_500, max: 25_000_000 }), { minLength: 10, maxLength: 10 });
const arbDate = fc.integer({ min: 0, max: 2600 }).map((n) => day('2021-01-01', n));
const arbMonth = fc.integer({ min: 0, max: 84 }).map((n) => {
  const y = 2021 + Math.floor(n / 12);
  const m = (n % 12) + 1;
  return { first: `${y}-${String(m).padStart(2, '0')}-01`, last: new Date(Date.UTC(y, m, 0)).toISOString().slice(0, 10) };
});

describe('the vacation liability equals the reference model', () => {
  it('property: on any cut-off date, who owes, the pending days, the salary, the value and the prepaid amount', () => {
    fc.assert(
      fc.property(arbWorker, arbSalaries, arbDate, (w, salaries, date) => {
        const salaryOf = (id: number) => salaries[id]!;
        const got = liabilityOn(fileOf(w, salaryOf), recordsOf(w), date, calendar);
        const want = modelLiability(w, salaryOf, date);
        if (want === null) {
          expect(got).toBeNull();
          return;
        }
        expect(got).not.toBeNull();
        expect({
          contract: got!.contract.id,
          pendingUnits: got!.pendingUnits,
          salary: got!.salary,
          value: got!.value,
          advance: got!.advance,
        }).toEqual(want);
      }),
      { numRuns: 400 },
    );
  });

  it('property: a month’s movement runs from the liability before it to the liability at its close, within rounding when the salary held', () => {
    fc.assert(
      fc.property(arbWorker, arbSalaries, arbMonth, (w, salaries, { first, last }) => {
        const salaryOf = (id: number) => salaries[id]!;
        const file = fileOf(w, salaryOf);
        const m = movementOf(file, recordsOf(w), first, last, calendar);
        const before = day(first, -1);
        const opening = modelLiability(w, salaryOf, before);
        const closing = modelLiability(w, salaryOf, last);
        if (opening === null && closing === null) {
          expect(m).toBeNull();
          return;
        }
        expect(m).not.toBeNull();
        const net = (l: ModelLiability | null) => (l === null ? 0 : l.value - l.advance);
        expect(m!.openingValue).toBe(net(opening));
        expect(m!.closingValue).toBe(net(closing));
        // A worker who enters the liability during the month opens at nothing: what the closing
        // figure carries in from before (days booked before the hire) moves in this month.
        const since = <T>(f: (d: string) => T, zero: T) => (opening === null ? zero : f(before));
        expect(m!.accruedUnits).toBe(accrued(w, last) - since((d) => accrued(w, d), 0));
        expect(m!.takenDays).toBe(takenThrough(w, last) - since((d) => takenThrough(w, d), 0));
        const salary = (closing ?? opening)!.salary;
        expect(m!.accruedValue).toBe(Math.sign(m!.accruedUnits) * pesos(salary, m!.accruedUnits));
        expect(m!.takenValue).toBe(pesos(salary, m!.takenDays * 360));
        expect(m!.openingValue + m!.accruedValue - m!.takenValue + m!.revaluation).toBe(m!.closingValue);
        if (opening !== null && closing !== null && opening.salary === closing.salary) {
          expect(Math.abs(m!.revaluation)).toBeLessThanOrEqual(2);
        }
      }),
      { numRuns: 400 },
    );
  });
});
