import { addDays, amortize, businessDaysBetween, calendarDays, isBusinessDay, vacationValue, type HolidayLookup } from '../domain/index.ts';
import type { InterruptionReason, VacationInterrupted } from '../events/types.ts';
import { booked, released } from '../events/places.ts';
import { live, reaches, type Decision } from './decider-shared.ts';
import type { Scope } from './types.ts';
import type { RuleViolation } from './violations.ts';
import type { WorkerState } from '../events/worker-state.ts';

export interface InterruptionRequest {
  /** The first day not enjoyed. */
  date: string;
  reason: InterruptionReason;
}

export interface InterruptVacation {
  type: 'InterruptVacation';
  data: InterruptionRequest & {
    code: string;
    userId: number;
    nowIso: string;
    /** The service's business date: the vacation must be in course on it. */
    today: string;
    calendar: HolidayLookup;
    /** Where the actor may act: the record's subgerencia must be in it. */
    scope: Scope;
  };
}

/**
 * Interrupts an approved, enjoyed vacation in course (CST art. 188) on `date`, a business day
 * from its start to its end: the record keeps the business days enjoyed before that day, with
 * their end date, value (salary × days / 30) and amortizations; the rest go back to the balance,
 * and the subgerencia's places from that day on are released. Interrupted on its first day it keeps
 * none: it ends the day before it starts (an empty period), worth nothing and holding no place.
 * Every failing rule is listed.
 */
export function interrupt(c: InterruptVacation['data'], state: WorkerState): Decision {
  const { code, date, today, calendar } = c;
  const previous = live(state, code);
  if (!previous) return { ok: false, kind: 'record_not_found' };
  if (!reaches(c.scope, previous.subgerenciaId)) return { ok: false, kind: 'out_of_scope' };
  const errors: RuleViolation[] = [];
  const { startDate, endDate } = previous;
  if (!previous.approved) errors.push({ rule: 'notApprovedToInterrupt', codigoPila: code });
  if (previous.compensated) errors.push({ rule: 'compensatedToInterrupt', codigoPila: code });
  if (previous.interruptedOn) errors.push({ rule: 'alreadyInterrupted', codigoPila: code, on: previous.interruptedOn });
  else if (today < startDate) errors.push({ rule: 'notBegun', codigoPila: code, startDate, today });
  else if (today > endDate) errors.push({ rule: 'alreadyEnded', codigoPila: code, endDate, today });
  if (date < startDate || date > endDate) errors.push({ rule: 'interruptionOutside', date, startDate, endDate });
  if (!isBusinessDay(date, previous.worksSaturday, calendar)) errors.push({ rule: 'interruptionNotBusinessDay', date });
  if (errors.length) return { ok: false, kind: 'rules', violations: errors };

  // Days enjoyed: the business days from the start to the day before (none on the first day, or
  // after a start that was not a business day, as an imported record's may be).
  const enjoyed = businessDaysBetween(startDate, addDays(date, -1), previous.worksSaturday, calendar);
  let end = addDays(startDate, -1);
  if (enjoyed > 0) {
    end = addDays(date, -1);
    while (!isBusinessDay(end, previous.worksSaturday, calendar)) end = addDays(end, -1);
  }
  const total = vacationValue(previous.salary, enjoyed);
  const { approved: _a, deleted: _d, deletedReason: _r, replacedBy: _b, interruptedOn: _i, daysReturned: _n, ...kept } = previous;
  const record: VacationInterrupted = {
    ...kept,
    endDate: end,
    businessDays: enjoyed,
    calendarDays: enjoyed > 0 ? calendarDays(startDate, end) : 0,
    totalValue: total,
    amortizations: enjoyed > 0 ? amortize({ start: startDate, end, worksSaturday: previous.worksSaturday, total, calendar }) : [],
    interruptedOn: date,
    reason: c.reason,
    daysReturned: previous.businessDays - enjoyed,
    before: {
      endDate: previous.endDate,
      businessDays: previous.businessDays,
      calendarDays: previous.calendarDays,
      totalValue: previous.totalValue,
    },
    interruptedByUserId: c.userId,
    interruptedAt: c.nowIso,
  };
  // The places of the days no longer taken are released: the booking is replaced by the shorter one
  // (by none when no day was enjoyed, as the empty period touches no month).
  const shorter = enjoyed > 0 ? booked(record) : [];
  return { ok: true, events: [{ type: 'VacationInterrupted', data: record }, ...released(previous), ...shorter] };
}
