import { describe, expect, it } from 'vitest';
import { bookingNotices } from '../../../src/domain/index.ts';
import { noticesField } from '../../../src/app/notices.ts';

describe('the notice of CST art. 187', () => {
  it('warns of a start today or fewer than 15 calendar days after it, and of none 15 or more days ahead or already past', () => {
    expect(bookingNotices('2026-12-15', '2026-11-30')).toEqual([]);
    expect(bookingNotices('2026-12-14', '2026-11-30')).toEqual([{ code: 'art187Preaviso', startDate: '2026-12-14', today: '2026-11-30' }]);
    expect(bookingNotices('2026-11-30', '2026-11-30')).toHaveLength(1);
    // A start already past is a vacation recorded after the fact: no date is left to announce.
    expect(bookingNotices('2026-11-29', '2026-11-30')).toEqual([]);
  });

  it('puts it into words in the additional field avisos, and leaves the field out when there is nothing to heed', () => {
    expect(noticesField('2026-12-07', '2026-11-30')).toEqual({
      avisos: [
        {
          codigo: 'art187Preaviso',
          mensaje:
            'El inicio (2026-12-07) está a menos de 15 días de hoy (2026-11-30): el CST art. 187 pide avisar con 15 días de anticipación',
        },
      ],
    });
    expect(noticesField('2027-01-11', '2026-11-30')).toEqual({});
  });
});
