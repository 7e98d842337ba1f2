import type { NewEvent, StoredEvent } from './recorded.ts';
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

/**
 * encode() for the many events an import builds with this service's own typed code from rows it
 * has checked already, under one metadata checked once (checkedMetadata): the same stored shape,
 * without checking every payload against its schema again, a tenth of an import's time in this
 * process. The tests hold the import's events to their schemas.
 */
export function encodeBuilt(event: DomainEvent, metadata: CheckedMetadata, id: string): NewEvent {
  return { id, type: event.type, version: CURRENT_VERSION[event.type], data: event.data as Record<string, unknown>, metadata };
}

declare const checked: unique symbol;
/** Metadata that passed its schema, shared by every event it is given to. */
export type CheckedMetadata = Record<string, unknown> & { readonly [checked]: true };

export function checkedMetadata(metadata: EventMetadata): CheckedMetadata {
  return eventMetadataSchema.parse(metadata) as unknown as CheckedMetadata;
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
