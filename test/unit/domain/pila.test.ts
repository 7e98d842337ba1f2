import { createHash } from 'node:crypto';
import { describe, expect, it } from 'vitest';
import fc from 'fast-check';
import { isPilaCode, pilaCode } from '../../../src/domain/index.ts';

describe('pilaCode', () => {
  it('given time, random hex and identity, when built, then it has the VAC format', () => {
    const code = pilaCode({ epochMillis: 1_767_600_000_000, randomHex8: '0a1b2c3d', identity: 'CC-1020304050' });
    const hash = createHash('sha256').update('CC-1020304050').digest('hex').slice(0, 8);
    expect(code).toBe(`VAC_1767600000000_0a1b2c3d_${hash}`);
    expect(isPilaCode(code)).toBe(true);
  });

  it('given the same inputs twice, when built, then the code is the same', () => {
    const input = { epochMillis: 1, randomHex8: 'ffffffff', identity: 'x' };
    expect(pilaCode(input)).toBe(pilaCode(input));
  });

  it('given different identities, when built, then the hash part differs', () => {
    const base = { epochMillis: 1, randomHex8: '00000000' };
    expect(pilaCode({ ...base, identity: 'a' })).not.toBe(pilaCode({ ...base, identity: 'b' }));
  });

  it.each(['0A1B2C3D', '0a1b2c3', '0a1b2c3d4', 'ghijklmn', ''])('given random hex %j, when built, then it is rejected', (randomHex8) => {
    expect(() => pilaCode({ epochMillis: 1, randomHex8, identity: 'x' })).toThrow(RangeError);
  });

  it.each([-1, 1.5, Number.NaN])('given epoch %s, when built, then it is rejected', (epochMillis) => {
    expect(() => pilaCode({ epochMillis, randomHex8: '00000000', identity: 'x' })).toThrow(RangeError);
  });

  it('property: every built code is recognised', () => {
    fc.assert(
      fc.property(
        fc.integer({ min: 0, max: Number.MAX_SAFE_INTEGER }),
        fc.stringMatching(/^[0-9a-f]{8}$/),
        fc.string(),
        (epochMillis, randomHex8, identity) => isPilaCode(pilaCode({ epochMillis, randomHex8, identity })),
      ),
      { numRuns: 200 },
    );
  });
});

describe('isPilaCode', () => {
  it.each(['VAC_1_a_b', 'VAC_1767600000000_0a1b2c3d_9f86d081'])('given %s, when checked, then it is accepted', (s) => {
    expect(isPilaCode(s)).toBe(true);
  });

  it.each(['vac_1_a_b', 'VAC__a_b', 'VAC_1_A_b', 'VAC_1_a_', 'VAC_1_a_b_c', 'VAC_1_a_b ', 42, null])(
    'given %j, when checked, then it is rejected',
    (s) => {
      expect(isPilaCode(s)).toBe(false);
    },
  );
});
