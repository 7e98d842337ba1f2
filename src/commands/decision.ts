import { pilaCode } from '../domain/index.ts';
import type { DomainEvent, VacationRecord } from '../events/types.ts';
import type { CommandFailure, VacationFigures } from './types.ts';
import type { VacationState, WorkerState } from './worker-state.ts';

/** What a decision needs from outside that a pure function cannot make itself: the time and random bytes of an attempt. */
export interface Moment {
  nowIso: string;
  epochMillis: number;
  randomHex8: string;
}

/** A moment with the id allotted to the record a command creates. */
export interface Given extends Moment {
  recordId: number;
}

/**
 * What the decider answers: the events the command gives, or why it is refused. Create and edit
 * also give the figures they judged, which the answer shows and no event carries (the balances).
 */
export type Decision = { ok: true; events: DomainEvent[]; figures?: VacationFigures } | ({ ok: false } & CommandFailure);

export function newRecord(f: VacationFigures, given: Given, replaces: string | null, continues: string | null): VacationRecord {
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

/** The record under `code`, unless it was never recorded or is deleted. */
export function live(state: WorkerState, code: string): VacationState | undefined {
  const v = state.vacations.get(code);
  return v && !v.deleted ? v : undefined;
}

export function snapshot(v: VacationState) {
  const { deleted: _d, deletedReason: _r, replacedBy: _b, ...rest } = v;
  return rest;
}

/** The places an enjoyed vacation takes in its subgerencia over its period; none for one paid in money. */
export function booked(record: VacationRecord): DomainEvent[] {
  if (record.compensated || !record.subgerenciaId) return [];
  const { codigoPila, workerId, subgerenciaId, startDate, endDate } = record;
  return [{ type: 'SlotsBooked', data: { codigoPila, workerId, subgerenciaId, startDate, endDate } }];
}

/**
 * Whether an event moves places in a subgerencia's month streams, or comes in the same append as
 * events that do: a booking or a release, and every vacation event written beside one (booked,
 * released), which a reader of the log may meet on a page without them.
 */
export function movesPlaces(event: DomainEvent): boolean {
  switch (event.type) {
    case 'SlotsBooked':
    case 'SlotsReleased':
    case 'VacationDeleted':
    case 'VacationInterrupted':
      return true;
    case 'VacationCreated':
    case 'VacationImported':
      return booked(event.data).length > 0;
    default:
      return false;
  }
}

/** The places a record took, given back. */
export function released(record: VacationRecord): DomainEvent[] {
  if (record.compensated || !record.subgerenciaId) return [];
  return [{ type: 'SlotsReleased', data: { codigoPila: record.codigoPila, workerId: record.workerId } }];
}
