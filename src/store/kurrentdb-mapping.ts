/**
 * Pure translations between the event store port and the KurrentDB client's shapes. Kept apart
 * from the adapter so that they can be checked without a server.
 */
import {
  ANY,
  NO_STREAM,
  STREAM_EXISTS,
  jsonEvent,
  type AppendStreamState,
  type CurrentStreamState,
  type EventData,
  type RecordedEvent,
} from '@kurrent/kurrentdb-client';
import { chainHash } from './chain.ts';
import { START, comparePositions, type ExpectedRevision, type NewEvent, type Position, type StoredEvent } from './types.ts';

/**
 * Written with an expectation it can never meet, so probing never leaves an event behind; its
 * events are skipped on read all the same in case something else ever writes there.
 */
export const PROBE_STREAM = 'vacaciones-capability-probe';

// Multi-stream append accepts only string metadata values, while ours holds numbers and nulls:
// the whole object travels as one JSON string, next to the event's schema version.
export const VERSION_KEY = 'vacaciones.schemaVersion';
export const METADATA_KEY = 'vacaciones.metadata';
/** The event's link in its stream's hash chain (src/store/chain.ts), as hex. */
export const HASH_KEY = 'vacaciones.hash';

export function toStreamState(expected: ExpectedRevision): AppendStreamState {
  switch (expected) {
    case 'any':
      return ANY;
    case 'no_stream':
      return NO_STREAM;
    case 'stream_exists':
      return STREAM_EXISTS;
    default:
      if (!Number.isSafeInteger(expected) || expected < 0) throw new Error(`not a stream revision: ${expected}`);
      return BigInt(expected);
  }
}

/** Negative states (deleted, tombstoned) have no revision to report: they read as absent. */
export function toActualRevision(state: CurrentStreamState): number | 'no_stream' {
  if (state === NO_STREAM || state < 0n) return 'no_stream';
  return Number(state);
}

export function expectationHolds(expected: ExpectedRevision, actual: number | 'no_stream'): boolean {
  switch (expected) {
    case 'any':
      return true;
    case 'no_stream':
      return actual === 'no_stream';
    case 'stream_exists':
      return actual !== 'no_stream';
    default:
      return actual === expected;
  }
}

export function encodeMetadata(event: NewEvent, hash?: string): Record<string, string> {
  const encoded: Record<string, string> = {
    [VERSION_KEY]: String(event.version ?? 1),
    [METADATA_KEY]: JSON.stringify(event.metadata ?? {}),
  };
  if (hash !== undefined) encoded[HASH_KEY] = hash;
  return encoded;
}

/**
 * The event as the client sends it, serialised here first: the client serialises data inside
 * a promise executor, where a failure (a BigInt, a cycle) is an unhandled rejection that ends
 * the process and leaves the append unanswered. What is sent is the JSON round trip of the
 * data, which the client can always serialise again.
 *
 * With `chain`, the event lands at `chain.revision` after an event whose hash is `chain.previous`
 * ('' for the first of a stream), and carries its own hash, computed on what will be read back.
 */
export function toEventData(
  stream: string,
  event: NewEvent,
  chain?: { revision: number; previous: string },
): { eventData: EventData; hash?: string } {
  let data: unknown;
  let metadata: Record<string, string>;
  let hash: string | undefined;
  try {
    data = JSON.parse(JSON.stringify(event.data) ?? 'null');
    metadata = encodeMetadata(event);
    if (chain && isPlainObject(data)) {
      const stored = {
        stream,
        revision: chain.revision,
        type: event.type,
        version: event.version ?? 1,
        data,
        metadata: JSON.parse(metadata[METADATA_KEY]!) as unknown,
      };
      hash = chainHash(chain.previous, stored);
      metadata[HASH_KEY] = hash;
    }
  } catch (err) {
    throw new TypeError(`event ${event.id} of stream ${stream} cannot be serialised as JSON: ${(err as Error).message}`, { cause: err });
  }
  if (!isPlainObject(data)) throw new TypeError(`event ${event.id} of stream ${stream}: its data is not a JSON object`);
  return { eventData: jsonEvent({ id: event.id, type: event.type, data, metadata }), hash };
}

function isPlainObject(v: unknown): v is Record<string, unknown> {
  return typeof v === 'object' && v !== null && !Array.isArray(v) && !(v instanceof Uint8Array);
}

/**
 * The server returns the append's properties as the event's metadata object, with its own
 * `$`-prefixed entries (record timestamp, schema) added; those are not ours and are dropped.
 * Events written by other tools carry plain JSON metadata and no version: version 1.
 */
export function decodeMetadata(raw: unknown): { version: number; metadata: Record<string, unknown>; hash?: string } {
  if (!isPlainObject(raw)) return { version: 1, metadata: {} };
  const v = Number(raw[VERSION_KEY]);
  const version = Number.isSafeInteger(v) && v > 0 ? v : 1;
  const hash = typeof raw[HASH_KEY] === 'string' ? { hash: raw[HASH_KEY] } : {};
  const encoded = raw[METADATA_KEY];
  if (typeof encoded === 'string') {
    try {
      const parsed: unknown = JSON.parse(encoded);
      if (isPlainObject(parsed)) return { version, metadata: parsed, ...hash };
    } catch {
      // falls through to the plain entries
    }
  }
  const metadata: Record<string, unknown> = {};
  for (const [k, value] of Object.entries(raw)) {
    if (!k.startsWith('$') && k !== VERSION_KEY && k !== METADATA_KEY && k !== HASH_KEY) metadata[k] = value;
  }
  return { version, metadata, ...hash };
}

function decodeData(event: RecordedEvent): Record<string, unknown> | undefined {
  if (isPlainObject(event.data)) return event.data;
  // A JSON record whose content-type flag did not survive arrives as bytes; anything else is not ours.
  if (event.data instanceof Uint8Array) {
    try {
      const parsed: unknown = JSON.parse(Buffer.from(event.data).toString('utf8'));
      return isPlainObject(parsed) ? parsed : undefined;
    } catch {
      return undefined;
    }
  }
  return undefined;
}

/** Only servers older than 22.6 omit positions on stream reads, and those are refused at connect. */
export function toPosition(p: { commit: bigint; prepare: bigint } | undefined): Position {
  return p ? { commit: p.commit, prepare: p.prepare } : START;
}

/** Our view of a recorded event; undefined for system, probe and non-JSON-object events. */
export function storedFromRecorded(event: RecordedEvent | undefined): StoredEvent | undefined {
  if (!event) return undefined;
  if (event.streamId.startsWith('$') || event.type.startsWith('$') || event.streamId === PROBE_STREAM) return undefined;
  const data = decodeData(event);
  if (!data) return undefined;
  const { version, metadata, hash } = decodeMetadata(event.metadata);
  return {
    id: event.id,
    stream: event.streamId,
    revision: Number(event.revision),
    type: event.type,
    version,
    data,
    metadata,
    position: toPosition(event.position),
    recordedAt: event.created.toISOString(),
    ...(hash === undefined ? {} : { hash }),
  };
}

/**
 * KurrentDB 25.1 answers a multi-stream append with the log position of its last event; events
 * of an append are read back with that same position as commit and prepare. A negative
 * position (an append answered as an earlier one's repeat) says nothing.
 */
export function replyPosition(position: bigint): Position | undefined {
  return position >= 0n ? { commit: position, prepare: position } : undefined;
}

/** `fromPosition` is inclusive; the port's `after` is not. */
export function isAfter(position: Position, cursor: Position): boolean {
  return comparePositions(position, cursor) > 0;
}

export function maxPosition(positions: Position[]): Position | undefined {
  let max: Position | undefined;
  for (const p of positions) if (!max || comparePositions(p, max) > 0) max = p;
  return max;
}

/**
 * How the server tells streams of one append apart: ordinally, ignoring case (.NET's
 * OrdinalIgnoreCase, one character at a time). Characters whose upper case is longer keep
 * their own form, as there.
 */
export function streamKey(stream: string): string {
  let key = '';
  for (const c of stream) {
    const upper = c.toUpperCase();
    key += upper.length === c.length ? upper : c;
  }
  return key;
}

/** Two streams of one append that the server would take for one, or undefined. */
export function sameStreamTwice(streams: string[]): [string, string] | undefined {
  const seen = new Map<string, string>();
  for (const s of streams) {
    const key = streamKey(s);
    const earlier = seen.get(key);
    if (earlier !== undefined) return [earlier, s];
    seen.set(key, s);
  }
  return undefined;
}
