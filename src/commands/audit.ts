import { randomUUID } from 'node:crypto';
import { encode } from '../events/codec.ts';
import { auditStream } from '../events/streams.ts';
import type { ContractStatusChecked, VacationDataConsulted, VacationEditFailed } from '../events/types.ts';
import type { Position, StreamWrite } from '../store/types.ts';
import { metadataOf, type Actor } from './types.ts';

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
