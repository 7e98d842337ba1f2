/**
 * An in-memory stand-in for the KurrentDB client, behind the adapter's seam (KurrentClient). It
 * keeps a log the way a 25.1 node answers multi-stream append and reads, and fails the way the
 * installed client fails: every error it raises is one of the client's own classes, most of
 * them made by the client's own converter from the gRPC error the server sends. It is a model
 * of the server, not the server: what it cannot show is said where each test uses it.
 */
import {
  AccessDeniedError,
  BACKWARDS,
  END,
  NO_STREAM,
  NotLeaderError,
  START,
  StreamNotFoundError,
  WrongExpectedVersionError,
  convertToCommandError,
  type AllStreamResolvedEvent,
  type AppendStreamRequest,
  type MultiAppendResult,
  type ReadAllOptions,
  type ReadStreamOptions,
  type ResolvedEvent,
} from '@kurrent/kurrentdb-client';
import { randomUUID } from 'node:crypto';
import errors from '@kurrent/kurrentdb-client/generated/kurrentdb/protocols/v2/streams/errors_pb.js';
import type { KurrentClient } from '../../src/store/kurrentdb-client.ts';
import { expect } from 'vitest';
import { chainHash } from '../../src/store/chain.ts';
import { streamKey } from '../../src/store/kurrentdb-mapping.ts';
import { KurrentEventStore } from '../../src/store/kurrentdb-store.ts';
import type { NewEvent } from '../../src/store/types.ts';

// --- gRPC errors as the server sends them -------------------------------------------------

function varint(n: number): Buffer {
  const out: number[] = [];
  while (n > 0x7f) {
    out.push((n & 0x7f) | 0x80);
    n >>>= 7;
  }
  out.push(n);
  return Buffer.from(out);
}

/** A length-delimited protobuf field. */
function field(number: number, bytes: Buffer): Buffer {
  return Buffer.concat([varint((number << 3) | 2), varint(bytes.length), bytes]);
}

/** A serialised google.rpc.Status carrying one detail message, as in `grpc-status-details-bin`. */
export function statusDetails(code: number, message: string, typeName: string, detail: Buffer): Buffer {
  const any = Buffer.concat([field(1, Buffer.from(`type.googleapis.com/${typeName}`)), field(2, detail)]);
  return Buffer.concat([varint((1 << 3) | 0), varint(code), field(2, Buffer.from(message)), field(3, any)]);
}

/** The error grpc-js hands the client for a status (what convertToCommandError receives). */
export function serviceError(code: number, message: string, details?: Buffer): Error {
  const names: Record<number, string> = {
    4: 'DEADLINE_EXCEEDED',
    7: 'PERMISSION_DENIED',
    9: 'FAILED_PRECONDITION',
    10: 'ABORTED',
    13: 'INTERNAL',
    14: 'UNAVAILABLE',
  };
  return Object.assign(new Error(`${code} ${names[code] ?? code}: ${message}`), {
    code,
    details: message,
    metadata: {
      get: (key: string) => (key === 'grpc-status-details-bin' && details ? [details] : []),
      getMap: () => ({}),
    },
  });
}

export const NOT_LEADER_MESSAGE =
  'The server is not the leader node and cannot handle the request. Please retry your request against the leader node directly.';

/** What a follower answers a multi-stream append with (FAILED_PRECONDITION, NotLeaderNodeErrorDetails). */
export function notLeaderDetails(leaderHost = 'node-2', leaderPort = 2113): Buffer {
  const nodeInfo = Buffer.concat([field(1, Buffer.from(leaderHost)), varint((2 << 3) | 0), varint(leaderPort)]);
  return statusDetails(9, NOT_LEADER_MESSAGE, 'kurrent.rpc.NotLeaderNodeErrorDetails', field(1, nodeInfo));
}

/** The client's error for a follower's refusal of an append: the client makes an UnknownError of it. */
export function notLeaderAppendError(): Error {
  return convertToCommandError(serviceError(9, NOT_LEADER_MESSAGE, notLeaderDetails())) as Error;
}

/** A read refused on a follower, as the client reports it. */
export function notLeaderReadError(): NotLeaderError {
  return new NotLeaderError({ metadata: { 'leader-endpoint-host': 'node-2', 'leader-endpoint-port': '2113' } } as never);
}

/** The read bridge's refusal, as the client converts it (convertBridgeError: by the error's name). */
export function readDeniedError(): AccessDeniedError {
  return new AccessDeniedError(Object.assign(new Error('Access denied'), { name: 'AccessDeniedError' }) as never);
}

/** PERMISSION_DENIED on multi-stream append (ApiErrors.AccessDenied), which client 1.3.1 leaves an UnknownError. */
export function appendDeniedError(): Error {
  return convertToCommandError(serviceError(7, 'Access denied. Insufficient permissions to perform AppendSession')) as Error;
}

/** INTERNAL, which the client reports as UnavailableError. */
export function internalError(): Error {
  return convertToCommandError(serviceError(13, 'Exception was thrown by handler.')) as Error;
}

/**
 * A conflict as the server sends it (FAILED_PRECONDITION, StreamRevisionConflictErrorDetails:
 * the first failing stream, its expectation as sent, its actual revision or -1), converted by
 * the client into its WrongExpectedVersionError.
 */
export function conflictError(stream: string, expected: bigint, actual: bigint): WrongExpectedVersionError {
  const detail = new errors.StreamRevisionConflictErrorDetails();
  detail.setStream(stream);
  detail.setExpectedRevision(expected.toString());
  detail.setActualRevision(actual.toString());
  const message = `Append failed due to a revision conflict on stream '${stream}'.`;
  const details = statusDetails(
    9,
    message,
    'kurrentdb.protocol.v2.streams.errors.StreamRevisionConflictErrorDetails',
    Buffer.from(detail.serializeBinary()),
  );
  return convertToCommandError(serviceError(9, message, details)) as WrongExpectedVersionError;
}

/**
 * The server's commit timeout (SERVER_ERROR_OPERATION_TIMEOUT is DEADLINE_EXCEEDED) as the
 * client reports it: a DeadlineExceededError. The client's own deadline (10 s by default) ends
 * a call the same way, with grpc-js's "Deadline exceeded".
 */
export function commitTimeoutError(): Error {
  return convertToCommandError(
    serviceError(4, 'Operation timed out: AppendSession timed out while waiting for commit Please try again after 200 milliseconds.'),
  ) as Error;
}

export function clientDeadlineError(): Error {
  return convertToCommandError(serviceError(4, 'Deadline exceeded')) as Error;
}

/** ABORTED with StreamAlreadyInAppendSessionErrorDetails, which the client reports as a TimeoutError. */
export function streamTwiceError(stream: string): Error {
  const message = `Stream '${stream}' is already part of this append session. Appending to the same stream multiple times is currently not supported.`;
  const details = statusDetails(
    10,
    message,
    'kurrentdb.protocol.v2.streams.errors.StreamAlreadyInAppendSessionErrorDetails',
    field(1, Buffer.from(stream)),
  );
  return convertToCommandError(serviceError(10, message, details)) as Error;
}

// --- the log ------------------------------------------------------------------------------

interface Recorded {
  streamId: string;
  id: string;
  revision: bigint;
  type: string;
  isJson: boolean;
  /** Typed as our events' for the tests that reach in; another tool's binary event holds bytes. */
  data: Record<string, unknown>;
  metadata: Record<string, string>;
  created: Date;
  position: { commit: bigint; prepare: bigint };
}

type Expected = AppendStreamRequest['expectedState'];

/** The expectation as the client puts it on the wire. */
function wire(expected: Expected): bigint {
  if (expected === 'any') return -2n;
  if (expected === 'no_stream') return -1n;
  if (expected === 'stream_exists') return -4n;
  return expected;
}

function holds(expected: Expected, actual: bigint | typeof NO_STREAM): boolean {
  if (expected === 'any') return true;
  if (expected === 'no_stream') return actual === NO_STREAM;
  if (expected === 'stream_exists') return actual !== NO_STREAM;
  return actual === expected;
}

/** The node's state: streams, the log, and the memory cache of recent event ids. */
export class FakeKurrentLog {
  readonly streams = new Map<string, Recorded[]>();
  readonly all: Recorded[] = [];
  /** Ids of recent appends: the only way a repeat with `any` or `stream_exists` is recognised. */
  readonly recentIds = new Set<string>();
  private next = 1_000n;

  /**
   * Streams' truncate-before ($tb of their metadata): Number.MAX_SAFE_INTEGER stands for the
   * server's long.MaxValue, a soft delete. Reads leave out the events before it.
   */
  readonly truncateBefore = new Map<string, number>();

  /** Soft-deletes a stream, as the server does (metadata $tb: long.MaxValue); its events stay in $all. */
  softDelete(stream: string): void {
    this.truncateBefore.set(stream, Number.MAX_SAFE_INTEGER);
  }

  private softDeleted(stream: string): boolean {
    return this.truncateBefore.get(stream) === Number.MAX_SAFE_INTEGER;
  }

  private actual(stream: string): bigint | typeof NO_STREAM {
    const events = this.streams.get(stream);
    return events && events.length > 0 ? BigInt(events.length - 1) : NO_STREAM;
  }

  /**
   * Whether this request repeats one already stored, as the server judges it (IndexWriter's
   * CheckCommit): with an exact expectation, its events where that expectation puts them; with
   * `any` or `stream_exists`, its ids in the memory cache. Answered with the revision and the
   * log position of the last of them.
   */
  private repeats(r: AppendStreamRequest): { revision: bigint; position: bigint } | undefined {
    const stored = this.streams.get(r.streamName) ?? [];
    const ids = r.events.map((e) => e.id);
    let last: Recorded | undefined;
    if (typeof r.expectedState === 'bigint' || r.expectedState === 'no_stream') {
      const from = r.expectedState === 'no_stream' ? 0 : Number(r.expectedState) + 1;
      const at = stored.slice(from, from + ids.length);
      if (at.length === ids.length && at.every((e, i) => e.id === ids[i])) last = at.at(-1);
    } else if (ids.every((id) => this.recentIds.has(id))) {
      last = stored.filter((e) => ids.includes(e.id)).at(-1);
    }
    return last ? { revision: last.revision, position: last.position.commit } : undefined;
  }

  append(requests: AppendStreamRequest[]): MultiAppendResult {
    const keys = new Set<string>();
    for (const r of requests) {
      if (keys.has(streamKey(r.streamName))) throw streamTwiceError(r.streamName);
      keys.add(streamKey(r.streamName));
    }
    const repeated = requests.map((r) => this.repeats(r));
    if (repeated.every((x) => x !== undefined)) {
      // A repeat of an append already stored: its revisions, and the position of its last event
      // (StorageWriterService answers AlreadyCommitted with the greatest of them).
      const position = repeated.reduce((max, x) => (x.position > max ? x.position : max), -1n);
      return { position, responses: requests.map((r, i) => ({ streamName: r.streamName, revision: repeated[i]!.revision })) };
    }
    // Recognised on some streams and not on others: the server answers a conflict naming no
    // stream, which its append service fails to map (INTERNAL).
    if (repeated.some((x) => x !== undefined)) throw internalError();
    for (const r of requests) {
      const actual = this.actual(r.streamName);
      // On a soft-deleted stream, `no_stream` holds as `any` does (IndexWriter.CheckCommit).
      const absent = this.softDeleted(r.streamName) && r.expectedState === 'no_stream';
      if (!absent && !holds(r.expectedState, actual)) {
        throw conflictError(r.streamName, wire(r.expectedState), actual === NO_STREAM ? -1n : actual);
      }
    }
    // Written to, a soft-deleted stream comes back from its next revision on (SoftUndeleteStream).
    for (const r of requests) {
      if (this.softDeleted(r.streamName)) this.truncateBefore.set(r.streamName, this.streams.get(r.streamName)!.length);
    }
    const responses = requests.map((r) => {
      const events = this.streams.get(r.streamName) ?? [];
      this.streams.set(r.streamName, events);
      for (const e of r.events) {
        const position = { commit: this.next, prepare: this.next };
        this.next += 100n;
        const recorded: Recorded = {
          streamId: r.streamName,
          id: e.id,
          revision: BigInt(events.length),
          type: e.type,
          // Another tool's binary event comes back as bytes, with its metadata as bytes.
          isJson: e.contentType === 'application/json',
          data: (e.contentType === 'application/json' ? JSON.parse(JSON.stringify(e.data)) : e.data) as Record<string, unknown>,
          metadata: (e.contentType === 'application/json'
            ? { ...(e.metadata as Record<string, string>), '$schema.format': 'Json' }
            : new Uint8Array()) as Record<string, string>,
          created: new Date(),
          position,
        };
        events.push(recorded);
        this.all.push(recorded);
        this.recentIds.add(e.id);
      }
      return { streamName: r.streamName, revision: BigInt(events.length - 1) };
    });
    return { position: this.all.at(-1)!.position.commit, responses };
  }

  readStream(stream: string, o: ReadStreamOptions): Recorded[] {
    if (stream.startsWith('$$')) return this.readMetadata(stream.slice(2));
    const tb = this.truncateBefore.get(stream) ?? 0;
    const events = this.streams.get(stream)?.filter((e) => Number(e.revision) >= tb);
    if (!events || events.length === 0) throw new StreamNotFoundError(undefined, stream);
    const first = Number(events[0]!.revision);
    const max = Number(o.maxCount ?? Number.MAX_SAFE_INTEGER);
    if (o.direction === BACKWARDS) {
      const from = o.fromRevision === END || o.fromRevision === undefined ? Infinity : Number(o.fromRevision);
      return events
        .filter((e) => Number(e.revision) <= from)
        .reverse()
        .slice(0, max);
    }
    const from = o.fromRevision === START || o.fromRevision === undefined ? first : Number(o.fromRevision as bigint);
    return events.filter((e) => Number(e.revision) >= from).slice(0, max);
  }

  /** A stream's metadata stream: one event holding its $tb, when it has one. */
  private readMetadata(stream: string): Recorded[] {
    const tb = this.truncateBefore.get(stream);
    if (tb === undefined) throw new StreamNotFoundError(undefined, `$$${stream}`);
    // long.MaxValue as JSON is read back as a double: 2^63.
    const data = { $tb: tb === Number.MAX_SAFE_INTEGER ? 2 ** 63 : tb };
    return [
      {
        streamId: `$$${stream}`,
        id: randomUUID(),
        revision: 0n,
        type: '$metadata',
        isJson: true,
        data,
        metadata: {},
        created: new Date(),
        position: { commit: 0n, prepare: 0n },
      },
    ];
  }

  readAll(o: ReadAllOptions): Recorded[] {
    const regex = o.filter && 'regex' in o.filter && o.filter.filterOn === 'eventType' ? new RegExp(o.filter.regex) : undefined;
    const visible = this.all.filter((e) => !regex || regex.test(e.type));
    const max = Number(o.maxCount ?? Number.MAX_SAFE_INTEGER);
    const from = o.fromPosition;
    if (o.direction === BACKWARDS) {
      // Backwards from a position starts before the event there.
      const before =
        from === END || from === undefined ? visible : visible.filter((e) => typeof from === 'object' && e.position.commit < from.commit);
      return before.reverse().slice(0, max);
    }
    const after =
      from === START || from === undefined ? visible : visible.filter((e) => typeof from === 'object' && e.position.commit >= from.commit);
    return after.slice(0, max);
  }
}

// --- a connection -------------------------------------------------------------------------

/**
 * One client's connection to the log. Its reads behave like the read bridge's: an iterator
 * with next() and nothing else, so a read left half way stays open (`openReads`).
 */
export class FakeKurrentClient implements KurrentClient {
  readonly appendCalls: AppendStreamRequest[][] = [];
  readonly streamReads: { stream: string; options: ReadStreamOptions }[] = [];
  readonly allReads: ReadAllOptions[] = [];
  openReads = 0;
  closed = false;
  /** A node that has stopped answering reads: each read's first item never comes. */
  stallReads = false;
  /** A secure node refusing this client's user: reads of $all, or appends. */
  denied: { readAll?: boolean; append?: boolean } = {};
  /** Runs before each append reaches the log; it may throw, or store first (`store()`) and then throw. */
  onAppend?: (requests: AppendStreamRequest[], store: () => MultiAppendResult) => MultiAppendResult;

  constructor(
    readonly log: FakeKurrentLog,
    /** A follower refuses appends and reads that require the leader. */
    readonly follower = false,
  ) {}

  async multiStreamAppend(requests: AppendStreamRequest[]): Promise<MultiAppendResult> {
    if (this.closed) throw new Error('the client is closed');
    this.appendCalls.push(requests);
    if (this.follower) throw notLeaderAppendError();
    if (this.denied.append) throw appendDeniedError();
    // The client serialises each event's data as it sends it.
    for (const r of requests) for (const e of r.events) JSON.stringify(e.data);
    const store = () => this.log.append(requests);
    return this.onAppend ? this.onAppend(requests, store) : store();
  }

  readStream(stream: string, options: ReadStreamOptions): AsyncIterable<ResolvedEvent> {
    this.streamReads.push({ stream, options });
    return this.read(() => {
      if (this.follower && options.requiresLeader) throw notLeaderReadError();
      return this.log.readStream(stream, options).map((event) => ({ event }) as unknown as ResolvedEvent);
    });
  }

  readAll(options: ReadAllOptions): AsyncIterable<AllStreamResolvedEvent> {
    this.allReads.push(options);
    return this.read(() => {
      if (this.denied.readAll) throw readDeniedError();
      return this.log.readAll(options).map((event) => ({ event }) as unknown as AllStreamResolvedEvent);
    });
  }

  private read<T>(produce: () => T[]): AsyncIterable<T> {
    let items: T[] | undefined;
    let i = 0;
    const iterator = {
      next: async (): Promise<IteratorResult<T>> => {
        if (this.closed) throw new Error('the client is closed');
        if (this.stallReads) return new Promise<never>(() => {});
        if (!items) {
          items = produce();
          this.openReads++;
        }
        if (i < items.length) return { value: items[i++]!, done: false };
        if (i++ === items.length) this.openReads--;
        return { value: undefined, done: true };
      },
    };
    return { [Symbol.asyncIterator]: () => iterator };
  }

  async close(): Promise<void> {
    this.closed = true;
  }
}

// --- for the adapter's tests ---------------------------------------------------------------

/** A store on one log; `followers` clients are followers, counted from the first one made. */
export function fakeStore(followers = 0, deadlineMs?: number) {
  const log = new FakeKurrentLog();
  const clients: FakeKurrentClient[] = [];
  /** The leader each client was aimed at (undefined: made from the connection string). */
  const aimedAt: unknown[] = [];
  const store = new KurrentEventStore(
    (leader) => {
      const c = new FakeKurrentClient(log, clients.length < followers);
      clients.push(c);
      aimedAt.push(leader);
      return c;
    },
    'node-1:2113',
    deadlineMs,
  );
  return { log, clients, aimedAt, store, client: () => clients.at(-1)! };
}

export const newEvent = (type = 'Tick', data: Record<string, unknown> = {}): NewEvent => ({
  id: randomUUID(),
  type,
  data,
  metadata: { requestId: 'r' },
});

/** Appends straight to the log, as another tool or another process would. */
export function appendRaw(log: FakeKurrentLog, stream: string, expectedState: Expected, events: AppendStreamRequest['events']) {
  return log.append([{ streamName: stream, expectedState, events }]);
}

/** An event of another tool: binary, no metadata of ours. */
export const binaryEvent = (): AppendStreamRequest['events'][number] => ({
  id: randomUUID(),
  type: 'OtherToolNote',
  contentType: 'application/octet-stream',
  data: new Uint8Array([1, 2, 3]),
  metadata: new Uint8Array(),
});

/** Every event of the streams links to the one before it (an event of another tool restarts the chain). */
export async function expectChained(store: KurrentEventStore, streams: string[]): Promise<void> {
  for (const stream of streams) {
    let previous = '';
    for (const e of await store.readStream(stream)) {
      expect(e.hash, `${stream}@${e.revision}`).toBe(chainHash(previous, e));
      previous = e.hash!;
    }
  }
}
