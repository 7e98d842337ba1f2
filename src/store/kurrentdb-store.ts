import {
  BACKWARDS,
  END,
  ErrorType,
  FORWARDS,
  KurrentDBClient,
  START as FROM_START,
  STREAM_EXISTS,
  StreamNotFoundError,
  UnsupportedError,
  WrongExpectedVersionError,
  excludeSystemEvents,
  jsonEvent,
  type AppendStreamRequest,
} from '@kurrent/kurrentdb-client';
import {
  PROBE_STREAM,
  converted,
  encodeMetadata,
  expectationHolds,
  hostOf,
  isAfter,
  maxPosition,
  toConflict,
  toPosition,
  toStored,
  toStreamState,
  unsupportedMessage,
} from './kurrentdb-mapping.ts';
import {
  DuplicateEventIdError,
  START,
  WrongExpectedRevisionError,
  type AppendResult,
  type EventStore,
  type Position,
  type ReadAllOptions,
  type StoredEvent,
  type StreamWrite,
} from './types.ts';

const GRPC_UNIMPLEMENTED = 12;

function isNotFound(err: unknown): boolean {
  return err instanceof StreamNotFoundError || (err as { type?: unknown }).type === ErrorType.STREAM_NOT_FOUND;
}

function isUnsupported(err: unknown): boolean {
  return err instanceof UnsupportedError || (err as { code?: unknown }).code === GRPC_UNIMPLEMENTED;
}

/**
 * The event store on KurrentDB 25.1 or newer. Appends go through multi-stream append, the only
 * way KurrentDB writes to several streams atomically; positions are the log's own.
 */
export class KurrentEventStore implements EventStore {
  readonly name = 'kurrentdb';

  private constructor(private readonly client: KurrentDBClient) {}

  static async connect(connectionString: string): Promise<KurrentEventStore> {
    const client = KurrentDBClient.connectionString(connectionString);
    const store = new KurrentEventStore(client);
    try {
      await store.probeMultiStreamAppend(hostOf(connectionString));
    } catch (err) {
      await client.dispose().catch(() => {});
      throw err;
    }
    return store;
  }

  /**
   * The client's server-feature table is not public; it is consulted by multiStreamAppend itself,
   * which refuses before sending anything when the server lacks it. The probe expects a stream
   * that never exists, so on a capable server it ends in a conflict and writes nothing.
   */
  private async probeMultiStreamAppend(host: string): Promise<void> {
    try {
      await this.client.multiStreamAppend([
        {
          streamName: PROBE_STREAM,
          expectedState: STREAM_EXISTS,
          events: [jsonEvent({ type: 'CapabilityProbe', data: { at: new Date().toISOString() } })],
        },
      ]);
    } catch (err) {
      const e = converted(err);
      if (e instanceof WrongExpectedVersionError) return;
      if (isUnsupported(e)) throw new Error(unsupportedMessage(host));
      throw e;
    }
  }

  async append(writes: StreamWrite[]): Promise<AppendResult> {
    const streams = writes.map((w) => w.stream);
    if (new Set(streams).size !== streams.length) {
      // Multi-stream append takes each stream once; callers merge their writes per stream.
      throw new Error('an append names the same stream twice');
    }
    const ids = writes.flatMap((w) => w.events.map((e) => e.id));
    if (new Set(ids).size !== ids.length) throw new DuplicateEventIdError('an append names the same event id twice');

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

    const appends = writes.filter((w) => w.events.length > 0);
    const written = appends.length > 0 ? await this.appendEvents(appends) : new Map<string, number>();
    return {
      revisions: writes.map((w) => ({ stream: w.stream, revision: written.get(w.stream) ?? checked.get(w.stream)! })),
      position: appends.length > 0 ? await this.positionOf(written) : await this.headPosition(),
    };
  }

  private async appendEvents(writes: StreamWrite[]): Promise<Map<string, number>> {
    const requests: AppendStreamRequest[] = writes.map((w) => ({
      streamName: w.stream,
      expectedState: toStreamState(w.expectedRevision),
      events: w.events.map((e) => jsonEvent({ id: e.id, type: e.type, data: e.data, metadata: encodeMetadata(e) })),
    }));
    try {
      const r = await this.client.multiStreamAppend(requests);
      return new Map(
        writes.map((w, i) => {
          const out = r.responses.find((x) => x.streamName === w.stream) ?? r.responses[i];
          if (!out) throw new Error(`KurrentDB did not report the revision of stream ${w.stream}`);
          return [w.stream, Number(out.revision)];
        }),
      );
    } catch (err) {
      const conflict = toConflict(err, writes);
      if (!conflict) throw converted(err);
      const retried = await this.alreadyStored(writes);
      if (retried) return retried;
      throw conflict;
    }
  }

  /**
   * KurrentDB answers a retry of the same events at the same expected revision as a success on
   * its own; this covers the retry it refuses, looking where the events would have landed.
   */
  private async alreadyStored(writes: StreamWrite[]): Promise<Map<string, number> | undefined> {
    const found = new Map<string, number>();
    let seen = 0;
    let total = 0;
    for (const w of writes) {
      total += w.events.length;
      const from =
        w.expectedRevision === 'no_stream' ? 0 : typeof w.expectedRevision === 'number' ? w.expectedRevision + 1 : undefined;
      if (from === undefined) continue;
      const stored = new Set((await this.readForwards(w.stream, BigInt(from), w.events.length)).map((e) => e.id));
      const matching = w.events.filter((e) => stored.has(e.id)).length;
      seen += matching;
      if (matching === w.events.length) found.set(w.stream, from + w.events.length - 1);
    }
    if (total > 0 && seen === total) return found;
    if (seen > 0) throw new DuplicateEventIdError(`${seen} of ${total} event ids are already stored`);
    return undefined;
  }

  /**
   * The append's reply carries one log position for the whole write, and multi-stream append
   * does not order streams in the log as given: the last event of each stream is read back so
   * that the position handed out is exactly that of the newest event written.
   */
  private async positionOf(written: Map<string, number>): Promise<Position> {
    const positions = await Promise.all(
      [...written].map(async ([stream, revision]) => (await this.readForwards(stream, BigInt(revision), 1))[0]?.position),
    );
    return maxPosition(positions.filter((p): p is Position => p !== undefined)) ?? (await this.headPosition());
  }

  /** A stream that does not exist reads as empty; `maxCount` omitted reads to the end. */
  private async readForwards(stream: string, fromRevision: bigint | typeof FROM_START, maxCount?: number): Promise<StoredEvent[]> {
    const out: StoredEvent[] = [];
    try {
      for await (const r of this.client.readStream(stream, { direction: FORWARDS, fromRevision, maxCount })) {
        const e = toStored(r.event);
        if (e) out.push(e);
      }
    } catch (err) {
      if (isNotFound(err)) return [];
      throw err;
    }
    return out;
  }

  private async currentRevision(stream: string): Promise<number | 'no_stream'> {
    try {
      for await (const r of this.client.readStream(stream, { direction: BACKWARDS, fromRevision: END, maxCount: 1 })) {
        if (r.event) return Number(r.event.revision);
      }
      return 'no_stream';
    } catch (err) {
      if (isNotFound(err)) return 'no_stream';
      throw err;
    }
  }

  async readStream(stream: string, opts: { fromRevision?: number } = {}): Promise<StoredEvent[]> {
    return this.readForwards(stream, opts.fromRevision ? BigInt(opts.fromRevision) : FROM_START);
  }

  /** Forwards from `from` (inclusive), or backwards from the end when `from` is omitted. */
  private scanAll(from?: Position, maxCount?: number) {
    const atStart = from !== undefined && from.commit === 0n && from.prepare === 0n;
    return this.client.readAll({
      direction: from ? FORWARDS : BACKWARDS,
      fromPosition: !from ? END : atStart ? FROM_START : from,
      filter: excludeSystemEvents(),
      ...(maxCount !== undefined ? { maxCount } : {}),
    });
  }

  async readAll({ after, limit }: ReadAllOptions): Promise<StoredEvent[]> {
    const out: StoredEvent[] = [];
    let cursor = after;
    // Pages come back short of `limit` when probe or non-JSON events are skipped: read on until
    // the page is full or the log ends.
    while (out.length < limit) {
      const want = limit - out.length + 1;
      let received = 0;
      let last: Position | undefined;
      for await (const r of this.scanAll(cursor, want)) {
        received++;
        if (!r.event) continue;
        const position = toPosition(r.event.position);
        last = position;
        if (!isAfter(position, cursor)) continue;
        const e = toStored(r.event);
        if (e) out.push(e);
        if (out.length === limit) break;
      }
      if (received < want || !last || !isAfter(last, cursor)) break;
      cursor = last;
    }
    return out;
  }

  async headPosition(): Promise<Position> {
    for await (const r of this.scanAll()) {
      const e = toStored(r.event);
      if (e) return e.position;
    }
    return START;
  }

  /** Reads every event after `after`: its cost grows with the lag it measures. */
  async countAfter(after: Position): Promise<number> {
    let n = 0;
    for await (const r of this.scanAll(after)) {
      const e = toStored(r.event);
      if (e && isAfter(e.position, after)) n++;
    }
    return n;
  }

  async ping(): Promise<void> {
    const events = this.client.readAll({ direction: BACKWARDS, fromPosition: END, maxCount: 1 });
    for await (const _ of events) break;
  }

  async close(): Promise<void> {
    await this.client.dispose();
  }
}
