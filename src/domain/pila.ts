/**
 * PILA novelty codes for vacations. Time and randomness come from the caller so the code is
 * reproducible; the identity hash ties a code to its worker without exposing the identity.
 */
import { createHash } from 'node:crypto';

const PILA_CODE_PATTERN = /^VAC_[0-9]+_[0-9a-f]+_[0-9a-f]+$/;
const RANDOM_HEX8_PATTERN = /^[0-9a-f]{8}$/;

export interface PilaCodeInput {
  epochMillis: number;
  /** Eight lowercase hex characters from a random source. */
  randomHex8: string;
  identity: string;
}

export function pilaCode({ epochMillis, randomHex8, identity }: PilaCodeInput): string {
  if (!Number.isSafeInteger(epochMillis) || epochMillis < 0) {
    throw new RangeError(`epochMillis ${epochMillis} is not a whole non-negative number`);
  }
  if (!RANDOM_HEX8_PATTERN.test(randomHex8)) {
    throw new RangeError(`randomHex8 ${JSON.stringify(randomHex8)} is not 8 lowercase hex characters`);
  }
  const identityHash = createHash('sha256').update(identity, 'utf8').digest('hex').slice(0, 8);
  return `VAC_${epochMillis}_${randomHex8}_${identityHash}`;
}

export function isPilaCode(s: unknown): boolean {
  return typeof s === 'string' && PILA_CODE_PATTERN.test(s);
}
