/**
 * Vacation day quantities held exactly as whole 360ths of a day: accrual is
 * days worked × annual days / 360, so this unit keeps every balance an integer and no
 * float drift can make a worker one cent of a day short.
 */

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
