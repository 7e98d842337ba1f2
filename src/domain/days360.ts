/**
 * Vacation day quantities held exactly as whole 360ths of a day: accrual is
 * days worked × annual days / 360, so this unit keeps every balance an integer and no
 * float drift can make a worker one cent of a day short.
 */
import { addDays, assertValidDate } from './dates.ts';

function assertUnits(units: number): void {
  if (!Number.isSafeInteger(units)) throw new RangeError(`${units} is not a whole number of 360ths`);
}

export class Days360 {
  static readonly ZERO = new Days360(0);

  private constructor(
    /** Whole 360ths of a day; may be negative for an overdrawn balance. */
    readonly units: number,
  ) {}

  static fromUnits(units: number): Days360 {
    assertUnits(units);
    return new Days360(units);
  }

  static fromWholeDays(days: number): Days360 {
    if (!Number.isSafeInteger(days)) throw new RangeError(`${days} is not a whole number of days`);
    return Days360.fromUnits(days * 360);
  }

  plus(other: Days360): Days360 {
    return Days360.fromUnits(this.units + other.units);
  }

  minus(other: Days360): Days360 {
    return Days360.fromUnits(this.units - other.units);
  }
}

export function compareDays360(a: Days360, b: Days360): -1 | 0 | 1 {
  return a.units < b.units ? -1 : a.units > b.units ? 1 : 0;
}

export const eq = (a: Days360, b: Days360): boolean => a.units === b.units;
export const lt = (a: Days360, b: Days360): boolean => a.units < b.units;
export const lte = (a: Days360, b: Days360): boolean => a.units <= b.units;
export const gt = (a: Days360, b: Days360): boolean => a.units > b.units;
export const gte = (a: Days360, b: Days360): boolean => a.units >= b.units;

/**
 * Days with two decimals for responses, rounding half up on the magnitude so a negative balance
 * mirrors the positive one.
 */
export function toDecimal2(x: Days360): number {
  const magnitude = BigInt(Math.abs(x.units));
  // hundredths = |units| × 100 / 360, rounded half up: (2 × |units| × 100 + 360) div 720.
  const hundredths = Number((magnitude * 200n + 360n) / 720n);
  if (hundredths === 0) return 0;
  return (x.units < 0 ? -hundredths : hundredths) / 100;
}

/**
 * Days worked from `from` to `to`, both included, as payroll counts them: every month has 30 days
 * (the 31st adds none, and the last day of February makes its month whole). 0 when `to` is before
 * `from`. What a payroll sheet of that span would hold for a worker who worked all of it.
 */
export function payrollDays(from: string, to: string): number {
  assertValidDate(from, 'first day');
  assertValidDate(to, 'last day');
  if (to < from) return 0;
  return payrollSerial(to) - payrollSerial(addDays(from, -1));
}

/** Days on the 30-day calendar from a fixed origin to the end of `date`. */
function payrollSerial(date: string): number {
  const year = Number(date.slice(0, 4));
  const month = Number(date.slice(5, 7));
  const day = Number(date.slice(8, 10));
  const endOfFebruary = month === 2 && addDays(date, 1).slice(5, 7) === '03';
  return year * 360 + (month - 1) * 30 + (endOfFebruary ? 30 : Math.min(day, 30));
}
