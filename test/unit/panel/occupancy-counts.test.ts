import { describe, expect, it } from 'vitest';
import { dailyCounts } from '../../../src/panel/views/occupancy.ts';

describe("Ocupación's daily counts", () => {
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
});
