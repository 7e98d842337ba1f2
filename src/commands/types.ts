import type { Amortization } from '../domain/index.ts';
import type { EventMetadata } from '../events/types.ts';
import type { RuleViolation } from './violations.ts';

export type { VacationParams } from '../reference/repository.ts';

export type { ContractRef, WorkerFile } from '../reference/types.ts';

/** A vacation as a caller asks for it (calculate, add, edit). */
export interface VacationRequest {
  startDate: string;
  days: number;
  advance: boolean;
  worksSaturday: boolean;
  compensated: boolean;
  socialSecurityInPayroll: boolean | null;
  /**
   * The code of an interrupted record whose days not enjoyed this one books (CST art. 188); the
   * days may not exceed those still left of it.
   */
  continues?: string | null;
}

/**
 * The subgerencias an actor may act in: an area head's. Null: every one (administrators, the API's
 * keys, the operator's commands).
 */
export type Scope = readonly string[] | null;

/** Who acts, and through what: becomes every event's metadata (its scope excepted). */
export interface Actor {
  userId: number;
  userEmail: string;
  apiKeyId: string | null;
  apiKeyName: string | null;
  requestId: string | null;
  correlationId: string | null;
  idempotencyKey: string | null;
  source?: 'http' | 'import' | 'cli' | 'panel';
  /** Where the actor may act; absent: everywhere. Each command judges it on the record's own stream. */
  scope?: Scope;
  /**
   * The request may have been written already, by an earlier run under the same idempotency key
   * cut short before its answer was kept (a crash): the handler looks for that run's events
   * first, and answers from them instead of deciding again.
   */
  resumes?: boolean;
}

/** The computed figures of a vacation, before any rule is applied. */
export interface VacationFigures {
  workerId: number;
  documentNumber: string;
  contractId: number;
  companyContractId: number | null;
  subgerenciaId: string;
  startDate: string;
  endDate: string;
  businessDays: number;
  calendarDays: number;
  salary: number;
  totalValue: number;
  advance: boolean;
  worksSaturday: boolean;
  compensated: boolean;
  socialSecurityInPayroll: boolean | null;
  amortizations: Amortization[];
  /** Exact balances in 360ths of a day. */
  availableUnits: number;
  accruedUnits: number;
}

export type CommandFailure =
  | { kind: 'worker_not_found' }
  | { kind: 'record_not_found' }
  /** The code names a record of another worker than the one the document names. */
  | { kind: 'not_owner'; code: string; documentNumber: string }
  | { kind: 'rules'; violations: RuleViolation[] }
  | { kind: 'approved' }
  /** The record, or the contract a request falls under, is in no subgerencia of the actor's scope. */
  | { kind: 'out_of_scope' }
  | { kind: 'busy' };

export type Outcome<T> = { ok: true; value: T } | ({ ok: false } & CommandFailure);

/** The metadata every event of an actor's command or audited query carries. */
export function metadataOf(actor: Actor, now: Date, businessDate: string): EventMetadata {
  return {
    userId: actor.userId,
    userEmail: actor.userEmail,
    apiKeyId: actor.apiKeyId,
    apiKeyName: actor.apiKeyName,
    requestId: actor.requestId,
    correlationId: actor.correlationId ?? actor.requestId,
    idempotencyKey: actor.idempotencyKey,
    occurredAt: now.toISOString(),
    businessDate,
    source: actor.source ?? 'http',
  };
}
