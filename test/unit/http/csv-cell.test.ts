import { describe, expect, it } from 'vitest';
import { formulaSafe } from '../../../src/app/csv-cell.ts';

describe('formulaSafe', () => {
  it('keeps as text every cell a spreadsheet would run as a formula', () => {
    for (const s of ["=cmd|' /C calc'!A0", '+SUM(1,2)', '-2+3', '@SUM(A1)', '\t=1', '\r=1']) expect(formulaSafe(s)).toBe(`'${s}`);
  });
  it('leaves other text as it is', () => {
    for (const s of ['Ana María', '2026-12-01', 'a=b', '', "'quoted"]) expect(formulaSafe(s)).toBe(s);
  });
});
