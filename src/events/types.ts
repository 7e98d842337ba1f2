import { z } from 'zod';
import type { Amortization } from '../domain/index.ts';

/**
 * Event payload schemas. Events are facts in the past tense; each type has a version, and a
 * payload carries everything needed to replay it without the reference data of the day.
 * A change to a payload's meaning is a new version with an upcaster in upcast.ts.
 */

const date = z.string().regex(/^\d{4}-\d{2}-\d{2}$/);

export const amortizationSchema = z.object({
  periodo: z.string().regex(/^\d{4}-\d{2}$/),
  diasHabiles: z.number().int(),
  diasCalendario: z.number().int(),
  valor: z.number().int(),
}) satisfies z.ZodType<Amortization>;

/** The vacation record as the events describe it; also the snapshot kept on deletion. */
export const vacationRecordSchema = z.object({
  /** Numeric id callers know the record by (the spec's `id`), from the vacation id sequence. */
  recordId: z.number().int(),
  codigoPila: z.string(),
  workerId: z.number().int(),
  documentNumber: z.string(),
  contractId: z.number().int().nullable(),
  companyContractId: z.number().int().nullable(),
  subgerenciaId: z.string().nullable(),
  startDate: date,
  endDate: date,
  businessDays: z.number().int(),
  calendarDays: z.number().int(),
  salary: z.number().int(),
  totalValue: z.number().int(),
  advance: z.boolean(),
  worksSaturday: z.boolean(),
  compensated: z.boolean(),
  socialSecurityInPayroll: z.boolean().nullable(),
  amortizations: z.array(amortizationSchema),
  /** Code of the record this one replaced by an edit. */
  replaces: z.string().nullable(),
  /**
   * Code of the interrupted record whose remaining days this one books (CST art. 188). Absent
   * from records written before interruptions existed, which continue nothing.
   */
  continues: z.string().nullable().optional(),
  /** The collective closure that booked the record (DOMAIN "Collective vacations"); absent: booked alone. */
  closureId: z.string().optional(),
  createdAt: z.string(),
});
export type VacationRecord = z.infer<typeof vacationRecordSchema>;

/** A vacation booked through the service: the record as it was decided. */
export type VacationCreated = VacationRecord;

export const vacationImportedSchema = vacationRecordSchema.extend({ approved: z.boolean() });
export type VacationImported = z.infer<typeof vacationImportedSchema>;

export const vacationDeletedSchema = z.object({
  codigoPila: z.string(),
  workerId: z.number().int(),
  reason: z.enum(['delete', 'edit']),
  replacedBy: z.string().nullable(),
  snapshot: vacationRecordSchema.extend({ approved: z.boolean() }),
  deletedByUserId: z.number().int(),
  deletedAt: z.string(),
  /** The closure whose cancellation deleted the record, and the reason it gave. */
  closureId: z.string().optional(),
  closureReason: z.string().optional(),
});
export type VacationDeleted = z.infer<typeof vacationDeletedSchema>;

export const vacationApprovedSchema = z.object({
  codigoPila: z.string(),
  workerId: z.number().int(),
  approvedByUserId: z.number().int(),
  approvedAt: z.string(),
});
export type VacationApproved = z.infer<typeof vacationApprovedSchema>;

/** Why a vacation was interrupted (CST art. 188), as callers name it. */
export const INTERRUPTION_REASONS = ['incapacidad', 'licencia', 'calamidad', 'necesidad del servicio', 'otro'] as const;
export type InterruptionReason = (typeof INTERRUPTION_REASONS)[number];

/**
 * An approved, enjoyed vacation stopped before its end (CST art. 188): the payload is the record as
 * it now stands (the days enjoyed before `interruptedOn`, their end date, value and amortizations),
 * so that every read model takes it as the record's latest state, and what it was before.
 */
export const vacationInterruptedSchema = vacationRecordSchema.extend({
  /**
   * The first day not enjoyed: a business day from the start to the former end. On the start
   * itself nothing was enjoyed: the record keeps 0 days and ends the day before it starts.
   */
  interruptedOn: date,
  reason: z.enum(INTERRUPTION_REASONS),
  /** Business days not enjoyed, back in the worker's balance. */
  daysReturned: z.number().int(),
  /** The record's figures before the interruption. */
  before: z.object({
    endDate: date,
    businessDays: z.number().int(),
    calendarDays: z.number().int(),
    totalValue: z.number().int(),
  }),
  interruptedByUserId: z.number().int(),
  interruptedAt: z.string(),
});
export type VacationInterrupted = z.infer<typeof vacationInterruptedSchema>;

/**
 * An edit began on a record: the first event of the one append that deletes the old record and
 * creates its replacement, so the trail shows the edit as a whole beside its two halves.
 */
export const vacationEditStartedSchema = z.object({
  /** The code of the record being replaced. */
  codigoPila: z.string(),
  workerId: z.number().int(),
  newRecordId: z.number().int(),
  newCodigoPila: z.string(),
  startedAt: z.string(),
});
export type VacationEditStarted = z.infer<typeof vacationEditStartedSchema>;

/**
 * An edit of a known record that did not happen, and why. Written to the worker's audit stream:
 * it changes no vacation, so it must not contend with the worker's vacation stream.
 */
export const vacationEditFailedSchema = z.object({
  /** The code of the record the edit named. */
  codigoPila: z.string(),
  /** The record's worker. */
  workerId: z.number().int(),
  /** The id allotted to the new record; null when the edit failed before one was. */
  newRecordId: z.number().int().nullable(),
  reason: z.enum(['not_owner', 'record_not_found', 'rules', 'approved', 'busy', 'error']),
  /** What the caller was told (the failing rules, the inconsistency), or where to look for an error. */
  detail: z.array(z.string()),
  /** The document number and period the edit asked for. */
  documentNumber: z.string(),
  startDate: date,
  days: z.number().int(),
  failedAt: z.string(),
});
export type VacationEditFailed = z.infer<typeof vacationEditFailedSchema>;

export const pilaCodeAssignedSchema = z.object({ codigoPila: z.string(), workerId: z.number().int() });
export type PilaCodeAssigned = z.infer<typeof pilaCodeAssignedSchema>;

export const slotsBookedSchema = z.object({
  codigoPila: z.string(),
  workerId: z.number().int(),
  subgerenciaId: z.string(),
  startDate: date,
  endDate: date,
});
export type SlotsBooked = z.infer<typeof slotsBookedSchema>;

export const slotsReleasedSchema = z.object({ codigoPila: z.string(), workerId: z.number().int() });
export type SlotsReleased = z.infer<typeof slotsReleasedSchema>;

export const vacationDataConsultedSchema = z.object({
  workerId: z.number().int(),
  documentNumber: z.string(),
  /** The answer given, as the caller saw it (estado or figures). */
  outcome: z.record(z.string(), z.unknown()),
  companyContractId: z.number().int().nullable(),
  consultedAt: z.string(),
});
export type VacationDataConsulted = z.infer<typeof vacationDataConsultedSchema>;

export const contractStatusCheckedSchema = z.object({
  workerId: z.number().int(),
  documentNumber: z.string(),
  documentType: z.string().nullable(),
  estado: z.string(),
  activo: z.boolean(),
  checkedAt: z.string(),
});
export type ContractStatusChecked = z.infer<typeof contractStatusCheckedSchema>;

/** Who a closure reaches: subgerencias, or every subgerencia of a company contract. */
export const closureScopeSchema = z.object({
  subgerenciaIds: z.array(z.string()),
  companyContractId: z.number().int().nullable(),
});
export type ClosureScope = z.infer<typeof closureScopeSchema>;

/** Why a worker in a closure's scope got no record of it. */
export const CLOSURE_EXCLUSIONS = ['solapamiento', 'finContrato', 'sinContrato', 'sinParametrizacion', 'diaNoHabil'] as const;
export type ClosureExclusion = (typeof CLOSURE_EXCLUSIONS)[number];

/**
 * A collective closure (vacaciones colectivas, CST art. 187) booked: one decision over many
 * workers, written to its own stream in the same append as every record it booked.
 */
export const collectiveClosureScheduledSchema = z.object({
  closureId: z.string(),
  scope: closureScopeSchema,
  startDate: date,
  businessDays: z.number().int(),
  worksSaturday: z.boolean(),
  records: z.array(z.object({ codigoPila: z.string(), workerId: z.number().int(), documentNumber: z.string() })),
  excluded: z.array(
    z.object({ workerId: z.number().int(), documentNumber: z.string(), reason: z.enum(CLOSURE_EXCLUSIONS), detail: z.string() }),
  ),
  scheduledByUserId: z.number().int(),
  scheduledAt: z.string(),
});
export type CollectiveClosureScheduled = z.infer<typeof collectiveClosureScheduledSchema>;

/** A closure's pending records approved together. */
export const collectiveClosureApprovedSchema = z.object({
  closureId: z.string(),
  codes: z.array(z.string()),
  approvedByUserId: z.number().int(),
  approvedAt: z.string(),
});
export type CollectiveClosureApproved = z.infer<typeof collectiveClosureApprovedSchema>;

/** A closure called off before its start: its pending records deleted, with its reason. */
export const collectiveClosureCancelledSchema = z.object({
  closureId: z.string(),
  reason: z.string(),
  codes: z.array(z.string()),
  cancelledByUserId: z.number().int(),
  cancelledAt: z.string(),
});
export type CollectiveClosureCancelled = z.infer<typeof collectiveClosureCancelledSchema>;

export const eventSchemas = {
  VacationCreated: vacationRecordSchema,
  VacationImported: vacationImportedSchema,
  VacationDeleted: vacationDeletedSchema,
  VacationApproved: vacationApprovedSchema,
  PilaCodeAssigned: pilaCodeAssignedSchema,
  SlotsBooked: slotsBookedSchema,
  SlotsReleased: slotsReleasedSchema,
  VacationDataConsulted: vacationDataConsultedSchema,
  ContractStatusChecked: contractStatusCheckedSchema,
  VacationEditStarted: vacationEditStartedSchema,
  VacationEditFailed: vacationEditFailedSchema,
  VacationInterrupted: vacationInterruptedSchema,
  CollectiveClosureScheduled: collectiveClosureScheduledSchema,
  CollectiveClosureApproved: collectiveClosureApprovedSchema,
  CollectiveClosureCancelled: collectiveClosureCancelledSchema,
} as const;

export type EventType = keyof typeof eventSchemas;

/** Current version written for each type. */
export const CURRENT_VERSION: Record<EventType, number> = {
  VacationCreated: 1,
  VacationImported: 1,
  VacationDeleted: 1,
  VacationApproved: 1,
  PilaCodeAssigned: 1,
  SlotsBooked: 1,
  SlotsReleased: 1,
  VacationDataConsulted: 1,
  ContractStatusChecked: 1,
  VacationEditStarted: 1,
  VacationEditFailed: 1,
  VacationInterrupted: 1,
  CollectiveClosureScheduled: 1,
  CollectiveClosureApproved: 1,
  CollectiveClosureCancelled: 1,
};

export type DomainEvent =
  | { type: 'VacationCreated'; data: VacationCreated }
  | { type: 'VacationImported'; data: VacationImported }
  | { type: 'VacationDeleted'; data: VacationDeleted }
  | { type: 'VacationApproved'; data: VacationApproved }
  | { type: 'PilaCodeAssigned'; data: PilaCodeAssigned }
  | { type: 'SlotsBooked'; data: SlotsBooked }
  | { type: 'SlotsReleased'; data: SlotsReleased }
  | { type: 'VacationDataConsulted'; data: VacationDataConsulted }
  | { type: 'ContractStatusChecked'; data: ContractStatusChecked }
  | { type: 'VacationEditStarted'; data: VacationEditStarted }
  | { type: 'VacationEditFailed'; data: VacationEditFailed }
  | { type: 'VacationInterrupted'; data: VacationInterrupted }
  | { type: 'CollectiveClosureScheduled'; data: CollectiveClosureScheduled }
  | { type: 'CollectiveClosureApproved'; data: CollectiveClosureApproved }
  | { type: 'CollectiveClosureCancelled'; data: CollectiveClosureCancelled };

/** Who did it and through what: carried by every event. */
export const eventMetadataSchema = z.object({
  userId: z.number().int().nullable(),
  userEmail: z.string().nullable(),
  apiKeyId: z.string().nullable(),
  apiKeyName: z.string().nullable(),
  requestId: z.string().nullable(),
  correlationId: z.string().nullable(),
  idempotencyKey: z.string().nullable(),
  /** Real clock time of the command (ISO 8601). */
  occurredAt: z.string(),
  /** The service's business date when the command ran (VACACIONES_TODAY or Bogota's date). */
  businessDate: z.string().optional(),
  source: z.enum(['http', 'import', 'cli', 'panel']).optional(),
});
export type EventMetadata = z.infer<typeof eventMetadataSchema>;

/** The metadata of an event no person asked for: written by one of the service's own tools. */
export function unattendedMetadata(source: 'import' | 'cli', occurredAt: string, businessDate?: string): EventMetadata {
  return {
    userId: null,
    userEmail: null,
    apiKeyId: null,
    apiKeyName: null,
    requestId: null,
    correlationId: null,
    idempotencyKey: null,
    occurredAt,
    ...(businessDate !== undefined ? { businessDate } : {}),
    source,
  };
}
