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
