import { pilaCode } from '../domain/index.ts';
import { pilaStream, unitStream, workerStream } from '../events/streams.ts';
import type { DomainEvent, VacationRecord } from '../events/types.ts';
import type { ExpectedRevision } from '../store/types.ts';
import { evaluate, type EvaluationInput } from './evaluate.ts';
import { monthsOf, type UnitOccupancy } from './occupancy.ts';
import type { CommandFailure, VacationFigures } from './types.ts';
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

function newRecord(f: VacationFigures, given: Given, replaces: string | null): VacationRecord {
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
  const record = newRecord(ev.figures, given, null);
  const guarded = ev.params.maxPeopleOnVacation !== null;
  return {
    ok: true,
    value: { record, figures: ev.figures },
    writes: [
      { stream: workerStream(record.workerId), expectedRevision: expectedOf(state.revision), events: [{ type: 'VacationCreated', data: record }] },
      { stream: pilaStream(record.codigoPila), expectedRevision: 'no_stream', events: [{ type: 'PilaCodeAssigned', data: { codigoPila: record.codigoPila, workerId: record.workerId } }] },
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
  const ev = evaluate({ ...input, replacing: code });
  if (!ev.ok) return { ok: false, kind: 'rules', violations: ev.violations };
  if (previous.approved) return { ok: false, kind: 'approved' };
  const record = newRecord(ev.figures, given, code);
  const guarded = ev.params.maxPeopleOnVacation !== null;
  const started: DomainEvent = {
    type: 'VacationEditStarted',
    data: { codigoPila: code, workerId: previous.workerId, newRecordId: record.recordId, newCodigoPila: record.codigoPila, startedAt: given.nowIso },
  };
  const deleted: DomainEvent = {
    type: 'VacationDeleted',
    data: { codigoPila: code, workerId: previous.workerId, reason: 'edit', replacedBy: record.codigoPila, snapshot: snapshot(previous), deletedByUserId: userId, deletedAt: given.nowIso },
  };
  return {
    ok: true,
    value: { record, figures: ev.figures, previous },
    writes: mergeWrites([
      { stream: workerStream(record.workerId), expectedRevision: expectedOf(state.revision), events: [started, deleted, { type: 'VacationCreated', data: record }] },
      { stream: pilaStream(record.codigoPila), expectedRevision: 'no_stream', events: [{ type: 'PilaCodeAssigned', data: { codigoPila: record.codigoPila, workerId: record.workerId } }] },
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
      data: { codigoPila: code, workerId: previous.workerId, reason: 'delete', replacedBy: null, snapshot: snapshot(previous), deletedByUserId: userId, deletedAt: given.nowIso },
    },
    also: releases(previous),
  }));
}

export function decideApprove(code: string, state: WorkerState, given: Pick<Given, 'nowIso'>, userId: number): Decision<Changed> {
  return onPendingRecord(code, state, given, (previous) => ({
    event: { type: 'VacationApproved', data: { codigoPila: code, workerId: previous.workerId, approvedByUserId: userId, approvedAt: given.nowIso } },
  }));
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
