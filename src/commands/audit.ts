import { randomUUID } from 'node:crypto';
import { encode } from '../events/codec.ts';
import { auditStream } from '../events/streams.ts';
import type { ContractStatusChecked, EventMetadata, VacationDataConsulted } from '../events/types.ts';
import type { Position, StreamWrite } from '../store/types.ts';
import type { Actor } from './types.ts';

/**
 * Records an audited query (consult, contract check) in the worker's audit stream. That stream
 * is apart from the worker's vacation stream so that reads never contend with writes.
 */
export async function recordQuery(
  store: { append(writes: StreamWrite[]): Promise<{ position: Position } | Position> },
  actor: Actor,
  event: { type: 'VacationDataConsulted'; data: VacationDataConsulted } | { type: 'ContractStatusChecked'; data: ContractStatusChecked },
  businessDate: string,
  now: Date = new Date(),
): Promise<Position> {
  const metadata: EventMetadata = {
    userId: actor.userId,
    userEmail: actor.userEmail,
    apiKeyId: actor.apiKeyId,
    apiKeyName: actor.apiKeyName,
    requestId: actor.requestId,
    correlationId: actor.correlationId ?? actor.requestId,
    idempotencyKey: null,
    occurredAt: now.toISOString(),
    businessDate,
    source: actor.source ?? 'http',
  };
  const r = await store.append([{ stream: auditStream(event.data.workerId), expectedRevision: 'any', events: [encode(event, metadata, randomUUID())] }]);
  return 'position' in r ? r.position : r;
}
