import { randomUUID } from 'node:crypto';
import { encode } from '../events/codec.ts';
import { auditStream } from '../events/streams.ts';
import type { ContractStatusChecked, VacationDataConsulted } from '../events/types.ts';
import type { Position, StreamWrite } from '../store/types.ts';
import { metadataOf, type Actor } from './types.ts';

/**
 * Records an audited query (consult, contract check) in the worker's audit stream. That stream
 * is apart from the worker's vacation stream so that reads never contend with writes.
 */
export async function recordQuery(
  audits: { append(writes: StreamWrite[]): Promise<Position> },
  actor: Actor,
  event: { type: 'VacationDataConsulted'; data: VacationDataConsulted } | { type: 'ContractStatusChecked'; data: ContractStatusChecked },
  businessDate: string,
  now: Date = new Date(),
): Promise<Position> {
  const metadata = metadataOf(actor, now, businessDate);
  return audits.append([{ stream: auditStream(event.data.workerId), expectedRevision: 'any', events: [encode(event, metadata, randomUUID())] }]);
}
