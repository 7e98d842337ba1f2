import { randomUUID } from 'node:crypto';
import { encode } from '../events/codec.ts';
import { auditStream } from '../events/streams.ts';
import type { ContractStatusChecked, VacationDataConsulted, VacationEditFailed } from '../events/types.ts';
import type { Position, StreamWrite } from '../store/types.ts';
import type { EditAttempt } from './vacation-commands.ts';
import { metadataOf, type Actor, type VacationRequest } from './types.ts';

/** What the audit stream holds: facts that change no vacation. */
export type AuditOnlyEvent =
  | { type: 'VacationDataConsulted'; data: VacationDataConsulted }
  | { type: 'ContractStatusChecked'; data: ContractStatusChecked }
  | { type: 'VacationEditFailed'; data: VacationEditFailed };

/**
 * Records an audited query (consult, contract check) or a failed edit in the worker's audit
 * stream. That stream is apart from the worker's vacation stream so that reads and refusals never
 * contend with writes.
 */
export async function recordAudit(
  audits: { append(writes: StreamWrite[]): Promise<Position> },
  actor: Actor,
  event: AuditOnlyEvent,
  businessDate: string,
  now: Date = new Date(),
): Promise<Position> {
  const metadata = metadataOf(actor, now, businessDate);
  return audits.append([
    { stream: auditStream(event.data.workerId), expectedRevision: 'any', events: [encode(event, metadata, randomUUID())] },
  ]);
}

/** A refused or failed edit of a known record, as its trail records it. */
export interface EditFailure {
  code: string;
  attempt: EditAttempt;
  reason: VacationEditFailed['reason'];
  /** What the caller was told, in the words of the interface. */
  detail: string[];
  documentNumber: string;
  request: Pick<VacationRequest, 'startDate' | 'days'>;
}

/** Records a failed edit in the audit stream of the record's worker, beside the record's own trail. */
export function recordEditFailure(
  audits: { append(writes: StreamWrite[]): Promise<Position> },
  actor: Actor,
  f: EditFailure,
  businessDate: string,
  now: Date,
): Promise<Position> {
  return recordAudit(
    audits,
    actor,
    {
      type: 'VacationEditFailed',
      data: {
        codigoPila: f.code,
        workerId: f.attempt.workerId,
        newRecordId: f.attempt.newRecordId,
        reason: f.reason,
        detail: f.detail,
        documentNumber: f.documentNumber,
        startDate: f.request.startDate,
        days: f.request.days,
        failedAt: now.toISOString(),
      },
    },
    businessDate,
    now,
  );
}
