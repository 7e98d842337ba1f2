import { bookingNotices, NOTICE_DAYS, type BookingNotice } from '../domain/index.ts';

/** A notice as the interface and the panel word it. */
export interface NoticeBody {
  codigo: BookingNotice['code'];
  mensaje: string;
}

export const noticeBody = (n: BookingNotice): NoticeBody => ({
  codigo: n.code,
  mensaje: `El inicio (${n.startDate}) está a menos de ${NOTICE_DAYS} días de hoy (${n.today}): el CST art. 187 pide avisar con ${NOTICE_DAYS} días de anticipación`,
});

/**
 * The additional `avisos` field of an answer about a vacation starting on `startDate`: present only
 * when there is something to heed, so that the fields the interface defines stay as they are.
 */
export function noticesField(startDate: string, today: string): { avisos?: NoticeBody[] } {
  const notices = bookingNotices(startDate, today);
  return notices.length === 0 ? {} : { avisos: notices.map(noticeBody) };
}
