/**
 * Pure translations between the event store port and the KurrentDB client's shapes. Kept apart
 * from the adapter so that they can be checked without a server.
 */
import {
  ANY,
  AccessDeniedError,
  NO_STREAM,
  NotLeaderError,
  STREAM_EXISTS,
  WrongExpectedVersionError,
  convertToCommandError,
  jsonEvent,
  type AppendStreamState,
  type CurrentStreamState,
  type EventData,
  type RecordedEvent,
} from '@kurrent/kurrentdb-client';
import v2errors from '@kurrent/kurrentdb-client/generated/kurrentdb/protocols/v2/errors_pb.js';
import status from '@kurrent/kurrentdb-client/generated/kurrentdb/protocols/v1/status_pb.js';
import { chainHash } from './chain.ts';
import {
  START,
  WrongExpectedRevisionError,
  comparePositions,
  type ExpectedRevision,
  type NewEvent,
  type Position,
  type StoredEvent,
  type StreamWrite,
} from './types.ts';

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

/** Errors raised on the append session's socket reach us unconverted. */
export function converted(err: unknown): unknown {
  if (!(err instanceof Error)) return err;
  try {
    return convertToCommandError(err);
  } catch {
    return err;
  }
}

/** The port's conflict for a client error, or undefined when the error is not a conflict. */
export function toConflict(err: unknown, writes: StreamWrite[]): WrongExpectedRevisionError | undefined {
  const e = converted(err);
  if (!(e instanceof WrongExpectedVersionError)) return undefined;
  const name = String(e.streamName ?? '');
  const w =
    writes.find((x) => x.stream === name) ??
    writes.find((x) => x.stream.toLowerCase() === name.toLowerCase()) ??
    writes.find((x) => x.expectedRevision !== 'any') ??
    writes[0];
  if (!w) return undefined;
  return new WrongExpectedRevisionError(w.stream, w.expectedRevision, toActualRevision(e.actualState));
}

const GRPC_FAILED_PRECONDITION = 9;

/** The leader a refusal names: host and gRPC port. */
export interface LeaderAddress {
  host: string;
  port: number;
}

function statusDetail(err: unknown): { typeUrl: string; value: Uint8Array } | undefined {
  const e = converted(err);
  const raw = ((e as { _raw?: unknown })._raw ?? e) as { code?: unknown; metadata?: { get?(key: string): unknown[] } };
  if (typeof raw !== 'object' || raw === null || raw.code !== GRPC_FAILED_PRECONDITION) return undefined;
  const bytes = raw.metadata?.get?.('grpc-status-details-bin')?.[0];
  if (!(bytes instanceof Uint8Array)) return undefined;
  const any = Status.deserializeBinary(new Uint8Array(bytes)).getDetails();
  return any ? { typeUrl: any.getTypeUrl(), value: any.getValue_asU8() } : undefined;
}

/**
 * A node that is not the leader refusing a call, and the leader it names when it knows one.
 * Multi-stream append answers FAILED_PRECONDITION with NotLeaderNodeErrorDetails, which client
 * 1.3.1 does not know: it reports an UnknownError and keeps its channel on that node. Reads
 * refused on a follower come as the client's own NotLeaderError, with the leader's endpoint.
 */
export function notLeader(err: unknown): { leader?: LeaderAddress } | undefined {
  const e = converted(err);
  if (e instanceof NotLeaderError) {
    const { address, port } = e.leader ?? {};
    return address && Number.isInteger(port) && port > 0 ? { leader: { host: address, port } } : {};
  }
  const detail = statusDetail(e);
  if (!detail?.typeUrl.endsWith('NotLeaderNodeErrorDetails')) return undefined;
  const node = NotLeaderNodeErrorDetails.deserializeBinary(detail.value).getCurrentLeader();
  const host = node?.getHost();
  const port = node?.getPort();
  return host && port ? { leader: { host, port } } : {};
}

export function isNotLeader(err: unknown): boolean {
  return notLeader(err) !== undefined;
}

/**
 * The connection string aimed at one node, the leader a refusal named: same scheme (without DNS
 * discovery, which would look the cluster up again), credentials and options, that one host.
 */
export function towardsLeader(connectionString: string, leader: LeaderAddress): string {
  const m = /^([a-z][a-z0-9.-]*?)(\+discover)?:\/\/((?:[^@/?]*@)?)([^/?]+)(.*)$/i.exec(connectionString.trim());
  if (!m) return connectionString;
  return `${m[1]}://${m[3]}${leader.host}:${leader.port}${m[5]}`;
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

/** `kurrentdb://user:pass@host:2113?tls=false` → `host:2113`, never the credentials. */
export function hostOf(connectionString: string): string {
  const m = /^[a-z][a-z0-9+.-]*:\/\/(?:[^@/?]*@)?([^/?]+)/i.exec(connectionString.trim());
  return m ? m[1]! : '<unparsable connection string>';
}

/** The client's deadline for each call when the connection string sets none (its `defaultDeadline`). */
export const DEFAULT_DEADLINE_MS = 10_000;

/** The connection string's `defaultDeadline` (ms), which the client applies to appends: reads get the same. */
export function deadlineOf(connectionString: string): number {
  const m = /[?&]defaultDeadline=(\d+)/i.exec(connectionString);
  const ms = m ? Number(m[1]) : NaN;
  return Number.isSafeInteger(ms) && ms > 0 ? ms : DEFAULT_DEADLINE_MS;
}

const GRPC_PERMISSION_DENIED = 7;

/**
 * Refused for want of a permission: the read bridge's AccessDeniedError, or the server's
 * PERMISSION_DENIED on multi-stream append, which client 1.3.1 leaves an UnknownError.
 */
export function isAccessDenied(err: unknown): boolean {
  const e = converted(err);
  return e instanceof AccessDeniedError || (e as { code?: unknown })?.code === GRPC_PERMISSION_DENIED;
}

/** What a refused user is told, naming what it may not do and where the fix is described. */
export function accessDeniedMessage(host: string, what: 'read $all' | 'append to its streams'): string {
  const how =
    what === 'read $all'
      ? '$all is a system stream: connect as a member of $admins, or grant the user read access in the $acl of $all (stream $$$all) or in $systemStreamAcl'
      : 'its streams are user streams: check $userStreamAcl and the stream ACLs';
  return `the user of KURRENTDB_URL may not ${what} on KurrentDB at ${host}: ${how} (docs/kurrentdb.md, "Permissions")`;
}

const { NotLeaderNodeErrorDetails } = v2errors;
const { Status } = status;

export function unsupportedMessage(host: string): string {
  return `KurrentDB at ${host} does not support multi-stream append: version 25.1 or newer is required`;
}
