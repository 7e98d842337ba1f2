import { describe, expect, it } from 'vitest';
import {
  consultContract,
  contractStatus,
  governingContract,
  isValidOn,
  latestContract,
  standingContract,
  type ContractDates,
} from '../../../src/domain/index.ts';

const contract = (id: string, over: Partial<ContractDates> = {}): ContractDates & { id: string } => ({
  id,
  startDate: '2026-01-01',
  endDate: '2026-12-31',
  settled: false,
  additional: false,
  ...over,
});

describe('isValidOn', () => {
  it('given a date on either boundary, when checked, then the contract is valid', () => {
    expect(isValidOn(contract('a'), '2026-01-01')).toBe(true);
    expect(isValidOn(contract('a'), '2026-12-31')).toBe(true);
  });

  it('given a date outside the range, when checked, then the contract is not valid', () => {
    expect(isValidOn(contract('a'), '2025-12-31')).toBe(false);
    expect(isValidOn(contract('a'), '2027-01-01')).toBe(false);
  });

  it('given a settled contract, when checked, then it is never valid', () => {
    expect(isValidOn(contract('a', { settled: true }), '2026-06-01')).toBe(false);
  });

  it('given a missing start or end, when checked, then it is never valid', () => {
    expect(isValidOn(contract('a', { startDate: null }), '2026-06-01')).toBe(false);
    expect(isValidOn(contract('a', { endDate: null }), '2026-06-01')).toBe(false);
  });

  it('given an invalid date, when checked, then it is rejected', () => {
    expect(() => isValidOn(contract('a'), '2026-02-30')).toThrow(RangeError);
  });
});

describe('governingContract', () => {
  it('given a main and an additional contract, when both valid, then the main one governs', () => {
    const main = contract('main', { startDate: '2025-01-01' });
    const extra = contract('extra', { additional: true, startDate: '2026-03-01' });
    expect(governingContract([extra, main], '2026-06-01')).toBe(main);
  });

  it('given several valid main contracts, when asked, then the latest start governs', () => {
    const older = contract('older', { startDate: '2025-01-01' });
    const newer = contract('newer', { startDate: '2026-02-01' });
    expect(governingContract([older, newer], '2026-06-01')).toBe(newer);
  });

  it('given only additional contracts are valid, when asked, then the latest-starting one governs', () => {
    const first = contract('first', { additional: true, startDate: '2026-01-01' });
    const second = contract('second', { additional: true, startDate: '2026-04-01' });
    const expiredMain = contract('main', { endDate: '2026-03-31' });
    expect(governingContract([first, second, expiredMain], '2026-06-01')).toBe(second);
  });

  it('given no valid contract, when asked, then it is null', () => {
    expect(governingContract([contract('a', { settled: true })], '2026-06-01')).toBeNull();
    expect(governingContract([], '2026-06-01')).toBeNull();
  });

  it('given the input list, when asked, then it is left in its original order', () => {
    const list = [contract('a', { startDate: '2025-01-01' }), contract('b', { startDate: '2026-01-01' })];
    governingContract(list, '2026-06-01');
    expect(list.map((c) => c.id)).toEqual(['a', 'b']);
  });
});

describe('contractStatus', () => {
  it('given no contracts, when asked, then the status is none', () => {
    expect(contractStatus([], '2026-06-01')).toEqual({ kind: 'none' });
  });

  it('given contracts none of which is valid today, when asked, then the status is inactive', () => {
    expect(contractStatus([contract('a', { endDate: '2026-03-31' })], '2026-06-01')).toEqual({
      kind: 'inactive',
    });
  });

  it('given a valid contract, when asked, then the status is active with the governing one', () => {
    const main = contract('main');
    expect(contractStatus([main], '2026-06-01')).toEqual({ kind: 'active', contract: main });
  });
});

describe('consultContract', () => {
  it('given no contracts or only settled ones, when consulted, then it is null', () => {
    expect(consultContract([], '2026-06-01')).toBeNull();
    expect(consultContract([contract('a', { settled: true })], '2026-06-01')).toBeNull();
  });

  it('given an unsettled contract that ended, when consulted, then it is still reported', () => {
    const ended = contract('ended', { endDate: '2026-03-31' });
    expect(consultContract([ended], '2026-06-01')).toBe(ended);
  });

  it('given main and additional unsettled contracts, when consulted, then main wins over a later additional', () => {
    const main = contract('main', { startDate: '2024-01-01' });
    const extra = contract('extra', { additional: true, startDate: '2026-05-01' });
    expect(consultContract([extra, main], '2026-06-01')).toBe(main);
  });

  it('given several main contracts, when consulted, then the latest start wins and a missing start is last', () => {
    const noStart = contract('no-start', { startDate: null });
    const older = contract('older', { startDate: '2024-01-01' });
    const newer = contract('newer', { startDate: '2025-01-01' });
    const settledNewest = contract('settled', { startDate: '2026-01-01', settled: true });
    expect(consultContract([noStart, older, settledNewest, newer], '2026-06-01')).toBe(newer);
    expect(consultContract([noStart, contract('x', { additional: true })], '2026-06-01')).toBe(noStart);
  });
});

describe('standingContract', () => {
  const left = contract('ops', { startDate: '2021-01-01', endDate: '2023-12-31', settled: true });
  const now = contract('tec', { startDate: '2024-01-01', endDate: '2027-12-31' });

  it('given a worker who moved, when asked today, then the contract in force stands, not the one left', () => {
    expect(standingContract([now, left], '2026-11-21')?.id).toBe('tec');
    expect(standingContract([left, now], '2022-06-01')?.id).toBe('tec');
  });

  it('given no contract in force, when asked, then the one that started last stands, settled or not', () => {
    expect(standingContract([now, left], '2028-02-01')?.id).toBe('tec');
    expect(standingContract([left], '2026-11-21')?.id).toBe('ops');
    expect(standingContract([], '2026-11-21')).toBeNull();
  });

  it('given equal starts or a missing one, then the first of the latest stands and a missing start counts as earliest', () => {
    const a = contract('a', { startDate: '2020-01-01', endDate: '2020-12-31' });
    const b = contract('b', { startDate: '2020-01-01', endDate: '2020-06-30' });
    const undated = contract('x', { startDate: null });
    expect(latestContract([undated, a, b])?.id).toBe('a');
    expect(latestContract([undated])?.id).toBe('x');
  });
});
