import {
  amortize,
  businessDaysBetween,
  calendarDays,
  isBusinessDay,
  pilaCode,
  vacationValue,
  addDays,
  type HolidayLookup,
} from '../domain/index.ts';
import { pilaStream, unitStream, workerStream } from '../events/streams.ts';
import type { DomainEvent, InterruptionReason, VacationInterrupted, VacationRecord } from '../events/types.ts';
import type { ExpectedRevision } from '../store/types.ts';
import { evaluate, type EvaluationInput } from './evaluate.ts';
import { monthsOf, type UnitOccupancy } from './occupancy.ts';
import type { CommandFailure, VacationFigures } from './types.ts';
import type { RuleViolation } from './violations.ts';
import type { VacationState, WorkerState } from './worker-state.ts';

/** Events to append, per stream, with the revision each stream must still be at. */
export interface PlannedWrite {
  stream: string;
  expectedRevision: ExpectedRevision;
  events: DomainEvent[];
}

/** What a command needs from outside that a pure function cannot make itself. */
export interface Given {
  recordId: number;
  nowIso: string;
  epochMillis: number;
  randomHex8: string;
}

export type Decision<T> = { ok: true; value: T; writes: PlannedWrite[] } | ({ ok: false } & CommandFailure);

const expectedOf = (revision: number): ExpectedRevision => (revision < 0 ? 'no_stream' : revision);

function newRecord(f: VacationFigures, given: Given, replaces: string | null, continues: string | null): VacationRecord {
  const identity = `${f.workerId}|${f.startDate}|${f.days}|${given.recordId}`;
  return {
    recordId: given.recordId,
    codigoPila: pilaCode({ epochMillis: given.epochMillis, randomHex8: given.randomHex8, identity }),
    workerId: f.workerId,
    documentNumber: f.documentNumber,
    contractId: f.contractId,
    companyContractId: f.companyContractId,
    subgerenciaId: f.subgerenciaId,
    startDate: f.startDate,
    endDate: f.endDate,
    businessDays: f.days,
    calendarDays: f.calendarDays,
    salary: f.salary,
    totalValue: f.totalValue,
    advance: f.advance,
    worksSaturday: f.worksSaturday,
    compensated: f.compensated,
    socialSecurityInPayroll: f.socialSecurityInPayroll,
    amortizations: f.amortizations,
    replaces,
    ...(continues ? { continues } : {}),
    createdAt: given.nowIso,
  };
}

/**
 * Slot bookings for an enjoyed vacation, one per month stream it touches. With a limit on
 * people at once, each month stream is written at the revision that was read, so two bookings
 * decided on the same picture cannot both land.
 */
function bookings(record: VacationRecord, occupancy: UnitOccupancy | undefined, guarded: boolean): PlannedWrite[] {
  if (record.compensated || !record.subgerenciaId) return [];
  return monthsOf(record.startDate, record.endDate).map((month) => ({
    stream: unitStream(record.subgerenciaId!, month),
    expectedRevision: guarded ? expectedOf(occupancy?.revisions.get(month) ?? -1) : 'any',
    events: [
      {
        type: 'SlotsBooked',
        data: {
          codigoPila: record.codigoPila,
          workerId: record.workerId,
          subgerenciaId: record.subgerenciaId!,
          startDate: record.startDate,
          endDate: record.endDate,
        },
      },
    ],
  }));
}

// Releasing only frees places, so it never needs to guard the month streams.
function releases(record: VacationRecord): PlannedWrite[] {
  if (record.compensated || !record.subgerenciaId) return [];
  return monthsOf(record.startDate, record.endDate).map((month) => ({
    stream: unitStream(record.subgerenciaId!, month),
    expectedRevision: 'any' as const,
    events: [{ type: 'SlotsReleased', data: { codigoPila: record.codigoPila, workerId: record.workerId } }],
  }));
}

export interface Created {
  record: VacationRecord;
  figures: VacationFigures;
}

export function decideCreate(input: EvaluationInput, state: WorkerState, given: Given): Decision<Created> {
  const ev = evaluate(input);
  if (!ev.ok) return { ok: false, kind: 'rules', violations: ev.violations };
  const record = newRecord(ev.figures, given, null, input.request.continues ?? null);
  const guarded = ev.params.maxPeopleOnVacation !== null;
  return {
    ok: true,
    value: { record, figures: ev.figures },
    writes: [
      {
        stream: workerStream(record.workerId),
        expectedRevision: expectedOf(state.revision),
        events: [{ type: 'VacationCreated', data: record }],
      },
      {
        stream: pilaStream(record.codigoPila),
        expectedRevision: 'no_stream',
        events: [{ type: 'PilaCodeAssigned', data: { codigoPila: record.codigoPila, workerId: record.workerId } }],
      },
      ...bookings(record, input.occupancy, guarded),
    ],
  };
}

function live(state: WorkerState, code: string): VacationState | undefined {
  const v = state.vacations.get(code);
  return v && !v.deleted ? v : undefined;
}

function snapshot(v: VacationState) {
  const { deleted: _d, deletedReason: _r, replacedBy: _b, ...rest } = v;
  return rest;
}

export interface Edited extends Created {
  previous: VacationState;
}

/**
 * Replaces a record: the rules are checked as if the old record were already gone, then
 * approval, then the start of the edit, the deletion and the new record go out in one append.
 */
export function decideEdit(code: string, input: EvaluationInput, state: WorkerState, given: Given, userId: number): Decision<Edited> {
  const previous = live(state, code);
  if (!previous) return { ok: false, kind: 'record_not_found' };
  // A record that continues an interrupted one keeps doing so when edited.
  const continues = input.request.continues ?? previous.continues ?? null;
  const ev = evaluate({ ...input, request: { ...input.request, continues }, replacing: code });
  if (!ev.ok) return { ok: false, kind: 'rules', violations: ev.violations };
  if (previous.approved) return { ok: false, kind: 'approved' };
  const record = newRecord(ev.figures, given, code, continues);
  const guarded = ev.params.maxPeopleOnVacation !== null;
  const started: DomainEvent = {
    type: 'VacationEditStarted',
    data: {
      codigoPila: code,
      workerId: previous.workerId,
      newRecordId: record.recordId,
      newCodigoPila: record.codigoPila,
      startedAt: given.nowIso,
    },
  };
  const deleted: DomainEvent = {
    type: 'VacationDeleted',
    data: {
      codigoPila: code,
      workerId: previous.workerId,
      reason: 'edit',
      replacedBy: record.codigoPila,
      snapshot: snapshot(previous),
      deletedByUserId: userId,
      deletedAt: given.nowIso,
    },
  };
  return {
    ok: true,
    value: { record, figures: ev.figures, previous },
    writes: mergeWrites([
      {
        stream: workerStream(record.workerId),
        expectedRevision: expectedOf(state.revision),
        events: [started, deleted, { type: 'VacationCreated', data: record }],
      },
      {
        stream: pilaStream(record.codigoPila),
        expectedRevision: 'no_stream',
        events: [{ type: 'PilaCodeAssigned', data: { codigoPila: record.codigoPila, workerId: record.workerId } }],
      },
      ...releases(previous),
      ...bookings(record, input.occupancy, guarded),
    ]),
  };
}

/** A record deleted or approved, and the time the event records for it (what the answer shows). */
export interface Changed {
  record: VacationState;
  at: string;
}

/** Delete and approve both act on a live record that is not yet approved. */
function onPendingRecord(
  code: string,
  state: WorkerState,
  given: Pick<Given, 'nowIso'>,
  change: (record: VacationState) => { event: DomainEvent; also?: PlannedWrite[] },
): Decision<Changed> {
  const previous = live(state, code);
  if (!previous) return { ok: false, kind: 'record_not_found' };
  if (previous.approved) return { ok: false, kind: 'approved' };
  const { event, also = [] } = change(previous);
  return {
    ok: true,
    value: { record: previous, at: given.nowIso },
    writes: [{ stream: workerStream(previous.workerId), expectedRevision: expectedOf(state.revision), events: [event] }, ...also],
  };
}

export function decideDelete(code: string, state: WorkerState, given: Pick<Given, 'nowIso'>, userId: number): Decision<Changed> {
  return onPendingRecord(code, state, given, (previous) => ({
    event: {
      type: 'VacationDeleted',
      data: {
        codigoPila: code,
        workerId: previous.workerId,
        reason: 'delete',
        replacedBy: null,
        snapshot: snapshot(previous),
        deletedByUserId: userId,
        deletedAt: given.nowIso,
      },
    },
    also: releases(previous),
  }));
}

export function decideApprove(code: string, state: WorkerState, given: Pick<Given, 'nowIso'>, userId: number): Decision<Changed> {
  return onPendingRecord(code, state, given, (previous) => ({
    event: {
      type: 'VacationApproved',
      data: { codigoPila: code, workerId: previous.workerId, approvedByUserId: userId, approvedAt: given.nowIso },
    },
  }));
}

export interface InterruptionRequest {
  /** The first day not enjoyed. */
  date: string;
  reason: InterruptionReason;
}

export interface Interrupted {
  /** The record as it stands after the interruption. */
  record: VacationInterrupted;
  previous: VacationState;
}

/**
 * Interrupts an approved, enjoyed vacation in course (CST art. 188) on `request.date`, a business
 * day from its start to its end: the record keeps the business days enjoyed before that day, with
 * their end date, value (salary × days / 30) and amortizations; the rest go back to the balance,
 * and the subgerencia's places from that day on are released. Interrupted on its first day it keeps
 * none: it ends the day before it starts (an empty period), worth nothing and holding no place.
 * Every failing rule is listed.
 */
export function decideInterrupt(
  code: string,
  request: InterruptionRequest,
  state: WorkerState,
  ctx: { calendar: HolidayLookup; today: string },
  given: Pick<Given, 'nowIso'>,
  userId: number,
): Decision<Interrupted> {
  const previous = live(state, code);
  if (!previous) return { ok: false, kind: 'record_not_found' };
  const { date } = request;
  const errors: RuleViolation[] = [];
  const { startDate, endDate } = previous;
  if (!previous.approved) errors.push({ rule: 'notApprovedToInterrupt', codigoPila: code });
  if (previous.compensated) errors.push({ rule: 'compensatedToInterrupt', codigoPila: code });
  if (previous.interruptedOn) errors.push({ rule: 'alreadyInterrupted', codigoPila: code, on: previous.interruptedOn });
  else if (ctx.today < startDate) errors.push({ rule: 'notBegun', codigoPila: code, startDate, today: ctx.today });
  else if (ctx.today > endDate) errors.push({ rule: 'alreadyEnded', codigoPila: code, endDate, today: ctx.today });
  if (date < startDate || date > endDate) errors.push({ rule: 'interruptionOutside', date, startDate, endDate });
  if (!isBusinessDay(date, previous.worksSaturday, ctx.calendar)) errors.push({ rule: 'interruptionNotBusinessDay', date });
  if (errors.length) return { ok: false, kind: 'rules', violations: errors };

  // Days enjoyed: the business days from the start to the day before (none on the first day, or
  // after a start that was not a business day, as an imported record's may be).
  const enjoyed = businessDaysBetween(startDate, addDays(date, -1), previous.worksSaturday, ctx.calendar);
  let end = addDays(startDate, -1);
  if (enjoyed > 0) {
    end = addDays(date, -1);
    while (!isBusinessDay(end, previous.worksSaturday, ctx.calendar)) end = addDays(end, -1);
  }
  const total = vacationValue(previous.salary, enjoyed);
  const { approved: _a, deleted: _d, deletedReason: _r, replacedBy: _b, interruptedOn: _i, daysReturned: _n, ...kept } = previous;
  const record: VacationInterrupted = {
    ...kept,
    endDate: end,
    businessDays: enjoyed,
    calendarDays: enjoyed > 0 ? calendarDays(startDate, end) : 0,
    totalValue: total,
    amortizations:
      enjoyed > 0 ? amortize({ start: startDate, end, worksSaturday: previous.worksSaturday, total, calendar: ctx.calendar }) : [],
    interruptedOn: date,
    reason: request.reason,
    daysReturned: previous.businessDays - enjoyed,
    before: {
      endDate: previous.endDate,
      businessDays: previous.businessDays,
      calendarDays: previous.calendarDays,
      totalValue: previous.totalValue,
    },
    interruptedByUserId: userId,
    interruptedAt: given.nowIso,
  };
  // The places of the days no longer taken are released: the booking is replaced by the shorter one
  // (by none when no day was enjoyed, as the empty period touches no month).
  const shorter = bookings(record, undefined, false);
  return {
    ok: true,
    value: { record, previous },
    writes: mergeWrites([
      {
        stream: workerStream(previous.workerId),
        expectedRevision: expectedOf(state.revision),
        events: [{ type: 'VacationInterrupted', data: record }],
      },
      ...releases(previous),
      ...shorter,
    ]),
  };
}

/**
 * An edit may release and book in the same month stream; one write per stream keeps the
 * append valid, with the stricter expectation.
 */
function mergeWrites(writes: PlannedWrite[]): PlannedWrite[] {
  const byStream = new Map<string, PlannedWrite>();
  for (const w of writes) {
    const prev = byStream.get(w.stream);
    if (!prev) {
      byStream.set(w.stream, { ...w, events: [...w.events] });
      continue;
    }
    prev.events.push(...w.events);
    if (prev.expectedRevision === 'any') prev.expectedRevision = w.expectedRevision;
  }
  return [...byStream.values()];
}
