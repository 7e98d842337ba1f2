/**
 * The law's notices on a booking: warnings the booking carries without being refused. Pure: the
 * caller gives the service's today.
 */
import { toDayNumber } from './dates.ts';

/** CST art. 187: the employer gives the date of the vacation at least this many calendar days ahead. */
export const NOTICE_DAYS = 15;

export interface BookingNotice {
  code: 'art187Preaviso';
  startDate: string;
  today: string;
}

/**
 * The notices of a vacation starting on `startDate`, booked on `today`: art. 187 when it starts
 * today or in the 14 days after. A start already past is a vacation recorded after the fact, with
 * no date left to announce.
 */
export function bookingNotices(startDate: string, today: string): BookingNotice[] {
  const ahead = toDayNumber(startDate) - toDayNumber(today);
  return ahead >= 0 && ahead < NOTICE_DAYS ? [{ code: 'art187Preaviso', startDate, today }] : [];
}
