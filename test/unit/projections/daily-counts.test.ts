import { describe, expect, it } from 'vitest';
import { dailyCounts } from '../../../src/projections/occupancy/queries.ts';

describe('people away each day (Ocupación and the calendar)', () => {
  it('counts each person once a day, however many of their records reach it, and every record apart', () => {
    const days = ['2026-12-01', '2026-12-02', '2026-12-03'];
    const counts = dailyCounts(days, [
      { workerId: 1, startDate: '2026-11-20', endDate: '2026-12-01' },
      { workerId: 1, startDate: '2026-12-01', endDate: '2026-12-02' },
      { workerId: 2, startDate: '2026-12-02', endDate: '2026-12-10' },
    ]);
    expect(Object.fromEntries(counts)).toEqual({
      '2026-12-01': { people: 1, records: 2 },
      '2026-12-02': { people: 2, records: 2 },
      '2026-12-03': { people: 1, records: 1 },
    });
  });

  it('leaves out spans outside the days, and clips those that reach past either end', () => {
    const days = ['2026-12-30', '2026-12-31', '2027-01-01'];
    const counts = dailyCounts(days, [
      { workerId: 1, startDate: '2026-12-01', endDate: '2026-12-29' },
      { workerId: 2, startDate: '2027-01-02', endDate: '2027-01-09' },
      { workerId: 3, startDate: '2026-12-20', endDate: '2027-01-20' },
    ]);
    expect([...counts.values()].map((c) => c.people)).toEqual([1, 1, 1]);
    expect(dailyCounts([], [{ workerId: 1, startDate: '2026-12-01', endDate: '2026-12-02' }]).size).toBe(0);
  });
});
