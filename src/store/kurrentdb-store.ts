import {
  BACKWARDS,
  END,
  ErrorType,
  FORWARDS,
  NO_STREAM,
  START as FROM_START,
  STREAM_EXISTS,
  StreamNotFoundError,
  UnavailableError,
  UnsupportedError,
  WrongExpectedVersionError,
  excludeSystemEvents,
  jsonEvent,
  type AllStreamResolvedEvent,
  type AppendStreamRequest,
  type ReadAllOptions as ClientReadAllOptions,
  type ReadStreamOptions,
} from '@kurrent/kurrentdb-client';
import type { Queryable } from '../db/types.ts';
import { connectClient, type KurrentClient } from './kurrentdb-client.ts';
import {
  PROBE_STREAM,
  converted,
  expectationHolds,
  hostOf,
  isAfter,
  isNotLeader,
  maxPosition,
  replyPosition,
  sameStreamTwice,
  toConflict,
  toEventData,
  toPosition,
  storedFromRecorded,
  toStreamState,
  unsupportedMessage,
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
  type StreamWrite,
} from './types.ts';

const GRPC_UNIMPLEMENTED = 12;

/** countAfter stops counting here: beyond it, the lag reads as this many events. */
export const COUNT_CAP = 10_000;
/** How long a count is reused: every projector of one /metrics scrape asks at once. */
const COUNT_REUSE_MS = 1_000;
/** Events read per page when looking backwards for the newest event of ours. */
const HEAD_PAGE = 32;
/** How far back a stream written with no expected revision is searched for a repeat's events. */
export const REPEAT_LOOKBACK = 256;
/** Stream heads remembered for chaining appends (see ChainHeads). */
const CHAIN_HEADS = 10_000;
/** Attempts of an append whose expectation was tightened for its hash chain, before giving up. */
const CHAIN_ATTEMPTS = 20;

/**
 * Known links of hash chains: the hash of the event at a stream's revision, for the streams
 * written or read last. An event never changes, so an entry is never wrong; it may only no longer
 * be the head, which an append that assumed so learns from its conflict.
 */
class ChainHeads {
  private readonly known = new Map<string, { revision: number; hash: string }>();

  get(stream: string): { revision: number; hash: string } | undefined {
    return this.known.get(stream);
  }

  remember(stream: string, revision: number, hash: string | undefined): void {
    if (hash === undefined) return;
    const held = this.known.get(stream);
    if (held && held.revision > revision) return;
    this.known.delete(stream);
    this.known.set(stream, { revision, hash });
    if (this.known.size > CHAIN_HEADS) this.known.delete(this.known.keys().next().value!);
  }

  forget(stream: string): void {
    this.known.delete(stream);
  }
}

/** Where a write's events join their stream's chain, and whether its expectation was made exact for it. */
interface ChainStart {
  revision: number;
  hash: string;
  tightened: boolean;
  /** The stream's newest event is one of this write's: an earlier attempt stored it. */
  repeat: boolean;
}

function isNotFound(err: unknown): boolean {
  return err instanceof StreamNotFoundError || (err as { type?: unknown }).type === ErrorType.STREAM_NOT_FOUND;
}

function isUnsupported(err: unknown): boolean {
  return err instanceof UnsupportedError || (err as { code?: unknown }).code === GRPC_UNIMPLEMENTED;
}

/**
 * Every item of a read. The read bridge's iterator has no return(): a loop left half way
 * leaves the read open on the server. So every read here is bounded (maxCount, or a stream's
 * end) and consumed to its end.
 */
async function collect<T>(items: AsyncIterable<T>): Promise<T[]> {
  const out: T[] = [];
  for await (const item of items) out.push(item);
  return out;
}

/** Where an append's events land in a stream with that expectation, when it says. */
function firstRevisionOf(w: StreamWrite): number | undefined {
  if (w.expectedRevision === 'no_stream') return 0;
  return typeof w.expectedRevision === 'number' ? w.expectedRevision + 1 : undefined;
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

  /** `newClient` is called again whenever the client has to be replaced (a leader change). */
  constructor(
    private readonly newClient: () => KurrentClient,
    private readonly host = 'KurrentDB',
  ) {
    this.client = newClient();
  }

  static async connect(connectionString: string): Promise<KurrentEventStore> {
    const store = new KurrentEventStore(() => connectClient(connectionString), hostOf(connectionString));
    try {
      await store.probeAppendPath();
    } catch (err) {
      await store.close().catch(() => {});
      throw err;
    }
    return store;
  }

  /**
   * Runs `op`, and once more on a fresh client when a node that is not the leader refused it.
   * Such a refusal comes before anything is written, so the second try cannot write twice.
   * The client keeps its channel on the node that refused (it does not know the refusal of
   * multi-stream append), and only a new client finds the leader again. The old one is closed:
   * calls still under way on it finish first.
   */
  private async onLeader<T>(op: (client: KurrentClient) => Promise<T>): Promise<T> {
    const client = this.client;
    try {
      return await op(client);
    } catch (err) {
      if (!isNotLeader(err) || this.closed) throw err;
      if (this.client === client) {
        this.client = this.newClient();
        void client.close().catch(() => {});
      }
      return op(this.client);
    }
  }

  /**
   * One multi-stream append that can never be met (a stream that never exists expected to
   * exist): a conflict means the append path reaches a leader that has multi-stream append.
   * Before sending one, client 1.3.1 looks AppendSession up in the server's feature table
   * (fetched once per channel) and throws UnsupportedError when it is not there, or when the
   * server has no table; UNIMPLEMENTED from the server is taken the same way.
   */
  private async probeAppendPath(): Promise<void> {
    try {
      await this.onLeader((c) =>
        c.multiStreamAppend([
          { streamName: PROBE_STREAM, expectedState: STREAM_EXISTS, events: [jsonEvent({ type: 'CapabilityProbe', data: {} })] },
        ]),
      );
    } catch (err) {
      const e = converted(err);
      if (e instanceof WrongExpectedVersionError) return;
      if (isUnsupported(e)) throw new Error(unsupportedMessage(this.host), { cause: err });
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

    const written = appends.length > 0 ? await this.appendChained(appends) : undefined;
    return {
      revisions: writes.map((w) => ({ stream: w.stream, revision: written?.revisions.get(w.stream) ?? checked.get(w.stream)! })),
      position: written ? (written.position ?? (await this.positionOf(written.revisions))) : await this.headPosition(),
    };
  }

  /**
   * Appends events chained to their streams (each carries its hash in its metadata). The hash
   * of an event needs the one before it, so every write must land where it was computed for: a
   * write that expects a revision or no stream lands there or conflicts; one that expects any
   * revision, or an existing stream, is sent expecting the head it was chained to, and the whole
   * append is chained and sent again when another append got there first.
   */
  private async appendChained(writes: StreamWrite[]): Promise<{ revisions: Map<string, number>; position?: Position }> {
    for (let attempt = 1; ; attempt++) {
      const starts = await Promise.all(writes.map((w) => this.chainStart(w)));
      if (starts.some((c) => c.repeat)) {
        const earlier = await this.alreadyStored(writes);
        if (earlier) return { revisions: earlier };
      }
      const lastHashes: string[] = [];
      const requests: AppendStreamRequest[] = writes.map((w, i) => {
        const start = starts[i]!;
        let previous = start.hash;
        const events = w.events.map((e, k) => {
          const { eventData, hash } = toEventData(w.stream, e, { revision: start.revision + 1 + k, previous });
          previous = hash ?? '';
          return eventData;
        });
        lastHashes.push(previous);
        const expectedState = start.tightened
          ? start.revision < 0
            ? NO_STREAM
            : BigInt(start.revision)
          : toStreamState(w.expectedRevision);
        return { streamName: w.stream, expectedState, events };
      });
      try {
        const written = await this.appendEvents(writes, requests);
        // Only a fresh write carries a position; a repeat's events were chained by its first attempt.
        if (written.position) writes.forEach((w, i) => this.heads.remember(w.stream, written.revisions.get(w.stream)!, lastHashes[i]));
        return written;
      } catch (err) {
        if (!(err instanceof WrongExpectedRevisionError)) throw err;
        this.heads.forget(err.stream);
        const i = writes.findIndex((w) => w.stream === err.stream);
        if (!starts[i]?.tightened || attempt >= CHAIN_ATTEMPTS) throw err;
      }
    }
  }

  /** Where a write's events join their stream's chain. */
  private async chainStart(w: StreamWrite): Promise<ChainStart> {
    const expected = w.expectedRevision;
    if (expected === 'no_stream') return { revision: -1, hash: '', tightened: false, repeat: false };
    const known = this.heads.get(w.stream);
    if (typeof expected === 'number') {
      if (known?.revision === expected) return { revision: expected, hash: known.hash, tightened: false, repeat: false };
      const [at] = await this.readStreamEvents(w.stream, { direction: FORWARDS, fromRevision: BigInt(expected), maxCount: 1 });
      // No event there: the append conflicts, and its hashes are never stored.
      return { revision: expected, hash: at?.revision === expected ? (at.hash ?? '') : '', tightened: false, repeat: false };
    }
    if (known && expected === 'any') return { revision: known.revision, hash: known.hash, tightened: true, repeat: false };
    const [head] = await this.readStreamEvents(w.stream, { direction: BACKWARDS, fromRevision: END, maxCount: 1 });
    if (!head) {
      if (expected === 'stream_exists') throw new WrongExpectedRevisionError(w.stream, expected, 'no_stream');
      return { revision: -1, hash: '', tightened: true, repeat: false };
    }
    return { revision: head.revision, hash: head.hash ?? '', tightened: true, repeat: w.events.some((e) => e.id === head.id) };
  }

  /** The short form of the port: here the same append, after checking every write expects nothing. */
  async appendAny(writes: StreamWrite[]): Promise<AppendResult> {
    for (const w of writes) {
      if (w.expectedRevision !== 'any') throw new Error(`appendAny takes no expected revision (stream ${w.stream})`);
    }
    return this.append(writes);
  }

  private async appendEvents(
    writes: StreamWrite[],
    requests: AppendStreamRequest[],
  ): Promise<{ revisions: Map<string, number>; position?: Position }> {
    try {
      const r = await this.onLeader((c) => c.multiStreamAppend(requests));
      const revisions = new Map(
        writes.map((w, i) => {
          const out = r.responses.find((x) => x.streamName === w.stream) ?? r.responses[i];
          if (!out) throw new Error(`KurrentDB did not report the revision of stream ${w.stream}`);
          return [w.stream, Number(out.revision)];
        }),
      );
      return { revisions, position: replyPosition(r.position) };
    } catch (err) {
      const e = converted(err);
      const conflict = toConflict(e, writes);
      if (conflict) {
        const earlier = await this.alreadyStored(writes);
        if (earlier) return { revisions: earlier };
        throw conflict;
      }
      if (e instanceof UnavailableError) {
        // The server answers INTERNAL, which the client reports as UnavailableError (dropping its
        // channel), when a repeated multi-stream append is recognised on some streams and not on
        // others; a reply lost on the way looks the same. Either way the events may be stored.
        const earlier = await this.alreadyStored(writes).catch((checkErr: unknown) => {
          if (checkErr instanceof DuplicateEventIdError) throw checkErr;
          throw e;
        });
        if (earlier) return { revisions: earlier };
      }
      throw e;
    }
  }

  /**
   * Looks for an append's events in its streams, in case an earlier attempt stored them: where
   * they would have landed (from the expected revision on), or, for a write that expected
   * nothing, among the stream's last REPEAT_LOOKBACK events. KurrentDB answers most repeats
   * as successes itself; this covers those it refuses or fails. All found: the revisions each
   * stream reached then. Some: DuplicateEventIdError. None: undefined.
   */
  private async alreadyStored(writes: StreamWrite[]): Promise<Map<string, number> | undefined> {
    const found = new Map<string, number>();
    let seen = 0;
    let total = 0;
    for (const w of writes) {
      total += w.events.length;
      const ids = new Set(w.events.map((e) => e.id));
      const from = firstRevisionOf(w);
      const candidates =
        from !== undefined
          ? await this.readStreamEvents(w.stream, { direction: FORWARDS, fromRevision: BigInt(from), maxCount: w.events.length })
          : await this.readStreamEvents(w.stream, { direction: BACKWARDS, fromRevision: END, maxCount: REPEAT_LOOKBACK });
      const matching = new Map(candidates.filter((e) => ids.has(e.id)).map((e) => [e.id, e.revision]));
      seen += matching.size;
      if (matching.size === w.events.length) found.set(w.stream, Math.max(...matching.values()));
    }
    if (total > 0 && seen === total) return found;
    if (seen > 0) throw new DuplicateEventIdError(`${seen} of ${total} event ids are already stored`);
    return undefined;
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
   * A stream's events as ours; [] when it does not exist. Read from the leader: these reads
   * decide commands and check appends, and a follower that lags would hide a write just made.
   */
  private async readStreamEvents(stream: string, options: ReadStreamOptions): Promise<StoredEvent[]> {
    try {
      const read = await this.onLeader((c) => collect(c.readStream(stream, { ...options, requiresLeader: true })));
      return read.map((r) => storedFromRecorded(r.event)).filter((e): e is StoredEvent => e !== undefined);
    } catch (err) {
      if (isNotFound(err)) return [];
      throw err;
    }
  }

  private async currentRevision(stream: string): Promise<number | 'no_stream'> {
    try {
      const [last] = await this.onLeader((c) =>
        collect(c.readStream(stream, { direction: BACKWARDS, fromRevision: END, maxCount: 1, requiresLeader: true })),
      );
      return last?.event ? Number(last.event.revision) : 'no_stream';
    } catch (err) {
      if (isNotFound(err)) return 'no_stream';
      throw err;
    }
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
  ): Promise<AllStreamResolvedEvent[]> {
    const atStart = from !== END && from.commit === 0n && from.prepare === 0n;
    const options: ClientReadAllOptions = {
      direction,
      fromPosition: atStart ? FROM_START : from,
      filter: excludeSystemEvents(),
      maxCount,
    };
    return collect(this.client.readAll(options));
  }

  async readAll({ after, limit }: ReadAllOptions): Promise<StoredEvent[]> {
    const out: StoredEvent[] = [];
    let cursor = after;
    // Pages come back short of `limit` when probe or non-JSON events are skipped: read on until
    // the page is full or the log ends. One more than needed is asked, as the event at the
    // cursor itself comes back.
    while (out.length < limit) {
      const want = limit - out.length + 1;
      const page = await this.readAllPage(FORWARDS, cursor, want);
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
   * Counts by reading, so the count stops at COUNT_CAP (a lag that large reads as COUNT_CAP),
   * and a count is reused for COUNT_REUSE_MS: every projector asks on each /metrics scrape,
   * most of them from the same checkpoint.
   */
  async countAfter(after: Position, opts: { upTo?: number } = {}): Promise<number> {
    const now = Date.now();
    for (const [key, c] of this.counts) if (now - c.at >= COUNT_REUSE_MS) this.counts.delete(key);
    const key = positionToString(after);
    const reused = this.counts.get(key);
    const upTo = Math.min(COUNT_CAP, opts.upTo ?? COUNT_CAP);
    if (reused) return Math.min(upTo, await reused.count);
    const count = this.readAllPage(FORWARDS, after, COUNT_CAP + 1).then((page) =>
      Math.min(COUNT_CAP, page.filter((r) => storedFromRecorded(r.event) && isAfter(toPosition(r.event!.position), after)).length),
    );
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
  async appendImported(_tx: Queryable, writes: StreamWrite[]): Promise<void> {
    await this.append(writes);
  }

  async ping(): Promise<void> {
    await collect(this.client.readAll({ direction: BACKWARDS, fromPosition: END, maxCount: 1 }));
    await this.probeAppendPath();
  }

  async close(): Promise<void> {
    this.closed = true;
    this.counts.clear();
    await this.client.close();
  }
}
