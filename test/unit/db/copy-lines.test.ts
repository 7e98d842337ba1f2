import { describe, expect, it } from 'vitest';
import { CopyLines } from '../../../src/db/copy.ts';

/** The bytes CopyLines gathers must be those of the lines joined and encoded the plain way. */
describe('CopyLines', () => {
  const plain = (lines: readonly string[]) => Buffer.from(lines.map((l) => `${l}\n`).join(''), 'utf8');

  it('gives every line as UTF-8 with its newline, through many growths of a tiny buffer', () => {
    const lines = [
      'a\tb\tc',
      '',
      'ñandú\tCañón de Chicamocha\t€ 1.423.500',
      'dijo — sí\t\u2028\t"comillas"',
      'emoji 🏖️ y 𝄞 (pares sustitutos)',
      'x'.repeat(10_000),
      'ü'.repeat(3_000),
    ];
    const out = new CopyLines(4);
    for (const l of lines) out.add(l);
    expect(out.count).toBe(lines.length);
    expect(out.bytes().equals(plain(lines))).toBe(true);
  });

  it('writes a lone surrogate as the plain encoding does (U+FFFD)', () => {
    const lines = ['antes \ud800 después', 'fin \udfff'];
    const out = new CopyLines(1);
    for (const l of lines) out.add(l);
    expect(out.bytes().equals(plain(lines))).toBe(true);
  });

  it('gives no bytes before the first line', () => {
    const out = new CopyLines();
    expect(out.count).toBe(0);
    expect(out.bytes().length).toBe(0);
  });
});
