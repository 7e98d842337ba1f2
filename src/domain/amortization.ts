/**
 * Splits a vacation's value across the payroll months it touches, in proportion to the business
 * days falling in each month, so each month's payroll books its own share.
 */
import { isBusinessDayNumber, type HolidayLookup } from './calendar.ts';
import { fromDayNumber, toDayNumber } from './dates.ts';

export interface Amortization {
  /** `YYYY-MM`. */
  periodo: string;
  diasHabiles: number;
  diasCalendario: number;
  valor: number;
}

export interface AmortizeInput {
  start: string;
  end: string;
  worksSaturday: boolean;
  /** Whole pesos. */
  total: number;
  calendar: HolidayLookup;
}

/** One entry per month touched by [start, end], in month order; `valor` adds up to `total`. */
export function amortize({ start, end, worksSaturday, total, calendar }: AmortizeInput): Amortization[] {
  if (!Number.isSafeInteger(total) || total < 0) {
    throw new RangeError(`total ${total} is not a whole non-negative number of pesos`);
  }
  const first = toDayNumber(start);
  const last = toDayNumber(end);
  if (last < first) throw new RangeError(`end ${end} is before start ${start}`);

  const entries: Amortization[] = [];
  for (let n = first; n <= last; n++) {
    const date = fromDayNumber(n);
    const periodo = date.slice(0, 7);
    let entry = entries.at(-1);
    if (entry?.periodo !== periodo) {
      entry = { periodo, diasHabiles: 0, diasCalendario: 0, valor: 0 };
      entries.push(entry);
    }
    entry.diasCalendario++;
    if (isBusinessDayNumber(n, worksSaturday, calendar, date)) entry.diasHabiles++;
  }

  const shares = splitByLargestRemainder(
    total,
    entries.map((e) => e.diasHabiles),
  );
  entries.forEach((entry, i) => (entry.valor = shares[i] ?? 0));
  return entries;
}

/**
 * Hamilton's method: floor every exact share, then hand the leftover pesos to the largest
 * remainders. Ties go to the earlier month so the split is reproducible.
 */
export function splitByLargestRemainder(total: number, weights: readonly number[]): number[] {
  if (!Number.isSafeInteger(total) || total < 0) {
    throw new RangeError(`total ${total} is not a whole non-negative number`);
  }
  const badWeight = weights.find((w) => !Number.isSafeInteger(w) || w < 0);
  if (badWeight !== undefined) throw new RangeError(`weight ${badWeight} is not a whole non-negative number`);
  const weightSum = weights.reduce((a, b) => a + b, 0);
  if (weightSum === 0) {
    if (total === 0) return weights.map(() => 0);
    throw new RangeError(`cannot split ${total} over periods without business days`);
  }
  const bigTotal = BigInt(total);
  const bigSum = BigInt(weightSum);
  const parts = weights.map((weight, index) => {
    const scaled = bigTotal * BigInt(weight);
    return { index, share: scaled / bigSum, remainder: scaled % bigSum };
  });
  let leftover = bigTotal - parts.reduce((sum, p) => sum + p.share, 0n);
  const byRemainder = [...parts].sort((a, b) => (a.remainder === b.remainder ? a.index - b.index : a.remainder > b.remainder ? -1 : 1));
  for (const part of byRemainder) {
    if (leftover === 0n) break;
    part.share += 1n;
    leftover -= 1n;
  }
  return parts.map((p) => Number(p.share));
}
