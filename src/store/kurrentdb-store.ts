import {
  BACKWARDS,
  DeadlineExceededError,
  END,
  ErrorType,
  FORWARDS,
  START as FROM_START,
  StreamNotFoundError,
  StreamTombstonedError,
  UnsupportedError,
  WrongExpectedVersionError,
  eventTypeFilter,
  excludeSystemEvents,
  jsonEvent,
  type AllStreamResolvedEvent,
  type ReadAllOptions as ClientReadAllOptions,
  type ReadStreamOptions,
  type RecordedEvent,
} from '@kurrent/kurrentdb-client';
import type { Queryable } from '../db/types.ts';
import { ChainHeads, appendChained, isUnknownOutcome, type AppendPath } from './kurrentdb-append.ts';
import { connectClient, type KurrentClient } from './kurrentdb-client.ts';
import { TailCount } from './kurrentdb-count.ts';
import { DEFAULT_DEADLINE_MS, deadlineOf, hostOf, towardsLeader } from './kurrentdb-connection.ts';
import { accessDeniedMessage, converted, isAccessDenied, notLeader, type LeaderAddress, unsupportedMessage } from './kurrentdb-errors.ts';
import {
  PROBE_STREAM,
  expectationHolds,
  isAfter,
  maxPosition,
  sameStreamTwice,
  toEventData,
  toPosition,
  storedFromRecorded,
} from './kurrentdb-mapping.ts';
import {
  DuplicateEventIdError,
  START,
  WrongExpectedRevisionError,
  positionToString,
  type AppendResult,
  type EventStore,
  type Position,
  type ReadAllOptions,
  type StoredEvent,
  type PreparedImport,
  type StreamWrite,
} from './types.ts';

const GRPC_UNIMPLEMENTED = 12;

/** countAfter stops counting here: beyond it, the lag reads as this many events. */
export const COUNT_CAP = 10_000;
/** How long a count is reused: every projector of one /metrics scrape asks at once. */
const COUNT_REUSE_MS = 1_000;
/** The probe's expected revision: past any stream's, so the probe never writes. */
const PROBE_REVISION = BigInt(Number.MAX_SAFE_INTEGER);

/** No node took a call as leader, however often tried: an election that lasts, or no quorum. */
export class NoLeaderError extends Error {
  override name = 'NoLeaderError';
}

/** Tries of a call that nodes refuse as not the leader (an election takes a few seconds). */
export const LEADER_ATTEMPTS = 6;
/** Pause before the n-th retry of a refused call: n - 1 times this. */
const LEADER_PAUSE_MS = 200;
/** Events read per page when looking backwards for the newest event of ours. */
const HEAD_PAGE = 32;

function isNotFound(err: unknown): boolean {
  return err instanceof StreamNotFoundError || (err as { type?: unknown }).type === ErrorType.STREAM_NOT_FOUND;
}

function isUnsupported(err: unknown): boolean {
  return err instanceof UnsupportedError || (err as { code?: unknown }).code === GRPC_UNIMPLEMENTED;
}

/**
 * Every item of a read, or DeadlineExceededError after `deadlineMs`: the read bridge passes no
 * deadline to the server, so a stalled node would hold the read (start-up, a projector,
 * /metrics) for ever. The bridge's iterator has no return(): a read given up on, or left half
 * way, stays open on the server until it ends. So every read here is bounded (maxCount, or a
 * stream's end) and consumed to its end.
 */
async function collect<T>(items: AsyncIterable<T>, deadlineMs: number, what: string): Promise<T[]> {
  const out: T[] = [];
  const read = (async () => {
    for await (const item of items) out.push(item);
    return out;
  })();
  let timer: NodeJS.Timeout | undefined;
  const expired = new Promise<never>((_, reject) => {
    timer = setTimeout(
      () => reject(new DeadlineExceededError(undefined, `KurrentDB did not answer ${what} within ${deadlineMs} ms`)),
      deadlineMs,
    );
  });
  try {
    return await Promise.race([read, expired]);
  } finally {
    clearTimeout(timer);
    read.catch(() => {});
  }
}

/**
 * The event store on KurrentDB 25.1 or newer. Appends go through multi-stream append, the only
 * way KurrentDB writes to several streams atomically; positions are the log's own.
 */
export class KurrentEventStore implements EventStore {
  readonly name = 'kurrentdb';
  private client: KurrentClient;
  private closed = false;
  private readonly counts = new Map<string, { at: number; count: Promise<number> }>();
  private readonly heads = new ChainHeads();
  private readonly tail = new TailCount(
    async (from, max) =>
      (await this.readAllPage(FORWARDS, from, max)).flatMap((r) =>
        r.event ? [{ position: toPosition(r.event.position), ours: storedFromRecorded(r.event) !== undefined }] : [],
      ),
    COUNT_CAP,
  );
  private readonly path: AppendPath = {
    send: (requests) => this.onLeader((c) => c.multiStreamAppend(requests)),
    readRaw: (stream, options) => this.readRaw(stream, options),
  };

  /** The client is aimed at the leader a refusal named, not made from the connection string. */
  private aimed = false;

  /**
   * `newClient` is called again whenever the client has to be replaced (a leader change): with
   * the leader a refusal named, a client for that node alone.
   */
  constructor(
    private readonly newClient: (leader?: LeaderAddress) => KurrentClient,
    private readonly host = 'KurrentDB',
    /** How long a read may take, whole: the client's deadline for its calls, which reads lack. */
    private readonly deadlineMs = DEFAULT_DEADLINE_MS,
  ) {
    this.client = newClient();
  }

  static connect(connectionString: string): Promise<KurrentEventStore> {
    return KurrentEventStore.open(
      (leader) => connectClient(leader ? towardsLeader(connectionString, leader) : connectionString),
      hostOf(connectionString),
      deadlineOf(connectionString),
    );
  }

  /**
   * A store whose client reaches a leader with multi-stream append, as a user that may append
   * and read $all: the service cannot start without both (it reads the head of the log first).
   */
  static async open(
    newClient: (leader?: LeaderAddress) => KurrentClient,
    host: string,
    deadlineMs = DEFAULT_DEADLINE_MS,
  ): Promise<KurrentEventStore> {
    const store = new KurrentEventStore(newClient, host, deadlineMs);
    try {
      await store.probeAppendPath();
      await store.readAllOf({ direction: BACKWARDS, fromPosition: END, maxCount: 1 });
    } catch (err) {
      await store.close().catch(() => {});
      throw err;
    }
    return store;
  }

  /**
   * Runs `op` on the leader. A node that is not the leader refuses before anything is written,
   * so trying again cannot write twice. The client keeps its channel on the node that refused
   * (it does not know the refusal of multi-stream append): a new client is made, aimed at the
   * leader the refusal names, or, when it names none (an election under way), from the
   * connection string again, and `op` tried on it, up to LEADER_ATTEMPTS times with a growing
   * pause. Then NoLeaderError (a 503; nothing was written). A client aimed at a named leader that stops answering
   * is replaced from the connection string, for the next call. A replaced client is closed:
   * calls still under way on it finish first.
   */
  private async onLeader<T>(op: (client: KurrentClient) => Promise<T>): Promise<T> {
    for (let attempt = 1; ; attempt++) {
      const client = this.client;
      try {
        return await op(client);
      } catch (err) {
        const refusal = notLeader(err);
        if (!refusal) {
          if (this.aimed && this.client === client && isUnknownOutcome(converted(err))) this.replaceClient(client, undefined);
          throw err;
        }
        if (this.closed) throw err;
        if (attempt >= LEADER_ATTEMPTS) {
          throw new NoLeaderError(`no node of KurrentDB at ${this.host} took the call as leader in ${attempt} attempts`, { cause: err });
        }
        if (this.client === client) this.replaceClient(client, refusal.leader);
        await new Promise((r) => setTimeout(r, LEADER_PAUSE_MS * (attempt - 1)));
      }
    }
  }

  private replaceClient(old: KurrentClient, leader: LeaderAddress | undefined): void {
    this.client = this.newClient(leader);
    this.aimed = leader !== undefined;
    void old.close().catch(() => {});
  }

  /**
   * One multi-stream append that can never be met: the probe stream expected at a revision no
   * stream reaches (the server refuses an expectation past the stream's revision, whether the
   * stream exists or not; expecting an existing stream would write once the stream or its
   * metadata exists). A conflict, or a deleted stream's refusal, means the append path reaches a
   * leader that has multi-stream append.
   * Before sending one, client 1.3.1 looks AppendSession up in the server's feature table
   * (fetched once per channel) and throws UnsupportedError when it is not there, or when the
   * server has no table; UNIMPLEMENTED from the server is taken the same way.
   */
  private async probeAppendPath(): Promise<void> {
    try {
      await this.onLeader((c) =>
        c.multiStreamAppend([
          { streamName: PROBE_STREAM, expectedState: PROBE_REVISION, events: [jsonEvent({ type: 'CapabilityProbe', data: {} })] },
        ]),
      );
    } catch (err) {
      const e = converted(err);
      if (e instanceof WrongExpectedVersionError || e instanceof StreamTombstonedError) return;
      if (isUnsupported(e)) throw new Error(unsupportedMessage(this.host), { cause: err });
      if (isAccessDenied(e)) throw new Error(accessDeniedMessage(this.host, 'append to its streams'), { cause: err });
      throw e;
    }
  }

  async append(writes: StreamWrite[]): Promise<AppendResult> {
    const twice = sameStreamTwice(writes.map((w) => w.stream));
    if (twice) {
      // Multi-stream append takes each stream once, comparing names without case; callers merge
      // their writes per stream.
      const [a, b] = twice;
      throw new Error(`an append names the same stream twice${a === b ? '' : ` (${a} and ${b} differ only in case)`}`);
    }
    const ids = writes.flatMap((w) => w.events.map((e) => e.id));
    if (new Set(ids).size !== ids.length) throw new DuplicateEventIdError('an append names the same event id twice');
    // Serialised before anything is read or sent: an event that cannot be leaves the append unsent.
    const appends = writes.filter((w) => w.events.length > 0);
    for (const w of appends) for (const e of w.events) toEventData(w.stream, e);

    // KurrentDB 25.1 cannot append nothing to a stream, so an expectation without events is checked
    // here, before the append: a write landing on that stream in between goes unnoticed.
    const checked = new Map<string, number>();
    for (const w of writes.filter((x) => x.events.length === 0)) {
      const actual = await this.currentRevision(w.stream);
      if (!expectationHolds(w.expectedRevision, actual)) {
        throw new WrongExpectedRevisionError(w.stream, w.expectedRevision, actual);
      }
      checked.set(w.stream, actual === 'no_stream' ? -1 : actual);
    }

    const written = appends.length > 0 ? await appendChained(this.path, this.heads, appends) : undefined;
    return {
      revisions: writes.map((w) => ({ stream: w.stream, revision: written?.revisions.get(w.stream) ?? checked.get(w.stream)! })),
      position: written ? (written.position ?? (await this.positionOf(written.revisions))) : await this.headPosition(),
    };
  }

  /** The short form of the port: here the same append, after checking every write expects nothing. */
  async appendAny(writes: StreamWrite[]): Promise<AppendResult> {
    for (const w of writes) {
      if (w.expectedRevision !== 'any') throw new Error(`appendAny takes no expected revision (stream ${w.stream})`);
    }
    return this.append(writes);
  }

  /**
   * For an append whose reply carried no position (a repeat answered from the log): the
   * position of the newest of its events, read back from the leader.
   */
  private async positionOf(written: Map<string, number>): Promise<Position> {
    const positions = await Promise.all(
      [...written].map(
        async ([stream, revision]) =>
          (await this.readStreamEvents(stream, { direction: FORWARDS, fromRevision: BigInt(revision), maxCount: 1 }))[0]?.position,
      ),
    );
    return maxPosition(positions.filter((p): p is Position => p !== undefined)) ?? (await this.headPosition());
  }

  /**
   * A stream's events as stored, whoever wrote them; [] when it does not exist. Read from the
   * leader: these reads decide commands and check appends, and a follower that lags would hide
   * a write just made.
   */
  private async readRaw(stream: string, options: ReadStreamOptions): Promise<RecordedEvent[]> {
    try {
      const read = await this.onLeader((c) =>
        collect(c.readStream(stream, { ...options, requiresLeader: true }), this.deadlineMs, `a read of stream ${stream}`),
      );
      return read.flatMap((r) => (r.event ? [r.event] : []));
    } catch (err) {
      if (isNotFound(err)) return [];
      throw err;
    }
  }

  /** A stream's events as ours (see readRaw). */
  private async readStreamEvents(stream: string, options: ReadStreamOptions): Promise<StoredEvent[]> {
    return (await this.readRaw(stream, options)).map(storedFromRecorded).filter((e): e is StoredEvent => e !== undefined);
  }

  private async currentRevision(stream: string): Promise<number | 'no_stream'> {
    const [last] = await this.readRaw(stream, { direction: BACKWARDS, fromRevision: END, maxCount: 1 });
    return last ? Number(last.revision) : 'no_stream';
  }

  async readStream(stream: string, opts: { fromRevision?: number } = {}): Promise<StoredEvent[]> {
    const events = await this.readStreamEvents(stream, {
      direction: FORWARDS,
      fromRevision: opts.fromRevision ? BigInt(opts.fromRevision) : FROM_START,
    });
    const last = events.at(-1);
    // Commands read a stream and then append after its last event: its hash is the next link.
    if (last) this.heads.remember(stream, last.revision, last.hash);
    return events;
  }

  /** KurrentDB reads one stream per call: the streams are read side by side. */
  async readStreams(requests: { stream: string; fromRevision: number }[]): Promise<Map<string, StoredEvent[]>> {
    return new Map(
      await Promise.all(requests.map(async (r) => [r.stream, await this.readStream(r.stream, { fromRevision: r.fromRevision })] as const)),
    );
  }

  /** One bounded page of $all: forwards from `from` (inclusive), or backwards from before `from` (END: the end). */
  private readAllPage(
    direction: typeof FORWARDS | typeof BACKWARDS,
    from: Position | typeof END,
    maxCount: number,
    types?: readonly string[],
  ): Promise<AllStreamResolvedEvent[]> {
    const atStart = from !== END && from.commit === 0n && from.prepare === 0n;
    const options: ClientReadAllOptions = {
      direction,
      fromPosition: atStart ? FROM_START : from,
      // Filtered on the server: the events of other types never travel.
      filter: types ? eventTypeFilter({ regex: `^(${types.map(escapeRegex).join('|')})$` }) : excludeSystemEvents(),
      maxCount,
    };
    return this.readAllOf(options);
  }

  /** A read of $all; refused for want of the permission, an error that says so. */
  private async readAllOf(options: ClientReadAllOptions): Promise<AllStreamResolvedEvent[]> {
    try {
      return await collect(this.client.readAll(options), this.deadlineMs, 'a read of $all');
    } catch (err) {
      if (isAccessDenied(err)) throw new Error(accessDeniedMessage(this.host, 'read $all'), { cause: err });
      throw err;
    }
  }

  async readAll({ after, limit, types }: ReadAllOptions): Promise<StoredEvent[]> {
    const out: StoredEvent[] = [];
    let cursor = after;
    // Pages come back short of `limit` when probe or non-JSON events are skipped: read on until
    // the page is full or the log ends. One more than needed is asked, as the event at the
    // cursor itself comes back.
    while (out.length < limit) {
      const want = limit - out.length + 1;
      const page = await this.readAllPage(FORWARDS, cursor, want, types);
      let last: Position | undefined;
      for (const r of page) {
        if (!r.event) continue;
        const position = toPosition(r.event.position);
        last = position;
        if (!isAfter(position, cursor) || out.length === limit) continue;
        const e = storedFromRecorded(r.event);
        if (e) out.push(e);
      }
      if (page.length < want || !last || !isAfter(last, cursor)) break;
      cursor = last;
    }
    return out;
  }

  /** Backwards a page at a time: reading backwards from an event's position starts before it. */
  async headPosition(): Promise<Position> {
    let from: Position | typeof END = END;
    for (;;) {
      const page = await this.readAllPage(BACKWARDS, from, HEAD_PAGE);
      for (const r of page) {
        const e = storedFromRecorded(r.event);
        if (e) return e.position;
      }
      const last = page.at(-1)?.event;
      if (page.length < HEAD_PAGE || !last) return START;
      from = toPosition(last.position);
    }
  }

  /**
   * Counts by reading (TailCount: each event of the log about once, not on every scrape), so
   * the count stops at COUNT_CAP (a lag that large reads as COUNT_CAP), and a count is reused
   * for COUNT_REUSE_MS: every projector asks on each /metrics scrape, most of them from the
   * same checkpoint.
   */
  async countAfter(after: Position, opts: { upTo?: number; types?: readonly string[] } = {}): Promise<number> {
    const now = Date.now();
    for (const [key, c] of this.counts) if (now - c.at >= COUNT_REUSE_MS) this.counts.delete(key);
    const key = positionToString(after);
    const reused = this.counts.get(key);
    const upTo = Math.min(COUNT_CAP, opts.upTo ?? COUNT_CAP);
    if (reused) return Math.min(upTo, await reused.count);
    const count = this.tail.count(after);
    this.counts.set(key, { at: now, count });
    count.catch(() => this.counts.delete(key));
    return Math.min(upTo, await count);
  }

  /**
   * Ready when $all can be read (the reads go over the bridge's own connection) and the append
   * path reaches a leader (over the gRPC channel, which a leader change can leave on a follower).
   */
  logDatabase(): undefined {
    return undefined;
  }

  /** The log is not in the import's database: nothing to mark. */
  async claimAppend(): Promise<void> {}

  async existingStreams(_tx: Queryable, streams: string[]): Promise<Set<string>> {
    const found = await Promise.all(streams.map(async (s) => ((await this.readStream(s)).length > 0 ? s : null)));
    return new Set(found.filter((s): s is string => s !== null));
  }

  /** Plain appends: the log cannot join the import's transaction. */
  async prepareImport(writes: StreamWrite[]): Promise<PreparedImport> {
    return {
      append: async () => {
        await this.append(writes);
      },
    };
  }

  async ping(): Promise<void> {
    await this.readAllOf({ direction: BACKWARDS, fromPosition: END, maxCount: 1 });
    await this.probeAppendPath();
  }

  async close(): Promise<void> {
    this.closed = true;
    this.counts.clear();
    await this.client.close();
  }
}

const escapeRegex = (s: string): string => s.replace(/[.*+?^${}()|[\]\\]/g, '\\$&');
