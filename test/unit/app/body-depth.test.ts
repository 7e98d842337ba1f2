import { describe, expect, it } from 'vitest';
import { MAX_BODY_DEPTH, nestsDeeperThan } from '../../../src/app/body-depth.ts';

describe('nestsDeeperThan', () => {
  const nested = (n: number) => '['.repeat(n) + ']'.repeat(n);

  it('given lists and objects as deep as the limit, then it lets them through; one level more, it does not', () => {
    expect(nestsDeeperThan(nested(MAX_BODY_DEPTH))).toBe(false);
    expect(nestsDeeperThan(nested(MAX_BODY_DEPTH + 1))).toBe(true);
    expect(nestsDeeperThan('{"a":'.repeat(MAX_BODY_DEPTH + 1) + '1' + '}'.repeat(MAX_BODY_DEPTH + 1))).toBe(true);
  });

  it('given brackets inside strings, escaped quotes included, then they do not count', () => {
    const text = JSON.stringify({ a: '['.repeat(100), b: '\\"[[[[', c: '"{{{{' });
    expect(nestsDeeperThan(text, 1)).toBe(false);
  });

  it('given a body 100,000 deep, then it answers without recursing', () => {
    expect(nestsDeeperThan(nested(100_000))).toBe(true);
  });

  it('given siblings, then only nesting counts, not their number', () => {
    expect(nestsDeeperThan(`[${'[],'.repeat(10_000)}[]]`, 2)).toBe(false);
  });
});
