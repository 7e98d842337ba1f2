import { pilaCode } from '../domain/index.ts';
import { booked } from '../events/places.ts';
import type { DomainEvent, VacationRecord } from '../events/types.ts';
import type { CommandFailure, Scope, VacationFigures } from './types.ts';
import type { VacationState, WorkerState } from '../events/worker-state.ts';

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
  const identity = `${f.workerId}|${f.startDate}|${f.businessDays}|${given.recordId}`;
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
    businessDays: f.businessDays,
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

/** What a new record writes: the record, its code's assignment and the places it takes. */
export const createdEvents = (record: VacationRecord): DomainEvent[] => [
  { type: 'VacationCreated', data: record },
  { type: 'PilaCodeAssigned', data: { codigoPila: record.codigoPila, workerId: record.workerId } },
  ...booked(record),
];

/** The record under `code`, unless it was never recorded or is deleted. */
export function live(state: WorkerState, code: string): VacationState | undefined {
  const v = state.vacations.get(code);
  return v && !v.deleted ? v : undefined;
}

export function snapshot(v: VacationState) {
  const { deleted: _d, deletedReason: _r, replacedBy: _b, ...rest } = v;
  return rest;
}

/**
 * Whether an actor of this scope reaches what is in this subgerencia: one held by nothing (a
 * record imported with no contract, a request no contract governs) is reached only unscoped.
 */
export const reaches = (scope: Scope, subgerenciaId: string | null): boolean =>
  scope === null || (subgerenciaId !== null && scope.includes(subgerenciaId));
