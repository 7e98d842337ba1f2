import type { NewEvent, StoredEvent } from '../store/types.ts';
import { upcast } from './upcast.ts';
import { CURRENT_VERSION, eventMetadataSchema, eventSchemas, type DomainEvent, type EventMetadata } from './types.ts';

/** Turns a domain event into what the store writes, validating it against its schema. */
export function encode(event: DomainEvent, metadata: EventMetadata, id: string): NewEvent {
  const schema = eventSchemas[event.type];
  return {
    id,
    type: event.type,
    version: CURRENT_VERSION[event.type],
    data: schema.parse(event.data) as Record<string, unknown>,
    metadata: eventMetadataSchema.parse(metadata) as Record<string, unknown>,
  };
}

export interface DecodedEvent {
  event: DomainEvent;
  metadata: EventMetadata;
  stored: StoredEvent;
}

/** Reads a stored event at the current version; unknown types give undefined (skipped by readers). */
export function decode(stored: StoredEvent): DecodedEvent | undefined {
  if (!(stored.type in eventSchemas)) return undefined;
  const type = stored.type as DomainEvent['type'];
  const data = upcast(type, stored.version, stored.data);
  return {
    event: { type, data } as DomainEvent,
    metadata: stored.metadata as EventMetadata,
    stored,
  };
}
