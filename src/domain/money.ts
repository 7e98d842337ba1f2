/** Peso amounts are whole numbers; rounding is done in BigInt so no float error can move a peso. */

function assertWholeNonNegative(value: number, label: string): void {
  if (!Number.isSafeInteger(value) || value < 0) {
    throw new RangeError(`${label} ${value} is not a whole non-negative number`);
  }
}

/** salary × days / 30, rounded half up to a whole peso (the payroll month has 30 days). */
export function vacationValue(salary: number, days: number): number {
  assertWholeNonNegative(salary, 'salary');
  assertWholeNonNegative(days, 'days');
  const doubled = BigInt(salary) * BigInt(days) * 2n;
  return Number((doubled + 30n) / 60n);
}

/**
 * salary × days / 30 for a balance held in 360ths of a day (a settlement's pending days, which may
 * hold fractions and be negative after days taken in advance): rounded half up on the magnitude
 * to a whole peso, so that a debt mirrors a credit.
 */
export function valueOfUnits(salary: number, units: number): number {
  assertWholeNonNegative(salary, 'salary');
  if (!Number.isSafeInteger(units)) throw new RangeError(`${units} is not a whole number of 360ths`);
  const magnitude = BigInt(Math.abs(units));
  // salary × units / (30 × 360), half up: (2 × salary × units + 10,800) div 21,600.
  const pesos = Number((BigInt(salary) * magnitude * 2n + 10_800n) / 21_600n);
  return units < 0 && pesos !== 0 ? -pesos : pesos;
}
