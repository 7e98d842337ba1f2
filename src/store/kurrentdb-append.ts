/**
 * How the KurrentDB adapter appends: each event carries its link in its stream's hash chain, so
 * each write must land exactly where its hashes were computed for. Every write is therefore
 * sent with an exact expectation (a revision, or no stream), which also lets the server judge a
 * repeat for certain: it looks for the events where that expectation puts them.
 */
import {
  BACKWARDS,
  DeadlineExceededError,
  END,
  FORWARDS,
  NO_STREAM,
  UnavailableError,
  WrongExpectedVersionError,
  type AppendStreamRequest,
  type MultiAppendResult,
  type ReadStreamOptions,
  type RecordedEvent,
} from '@kurrent/kurrentdb-client';
import { converted, toConflict } from './kurrentdb-errors.ts';
import { decodeMetadata, replyPosition, toEventData, toStreamState } from './kurrentdb-mapping.ts';
import { ContendedStreamError, DuplicateEventIdError, WrongExpectedRevisionError, type Position, type StreamWrite } from './types.ts';

/** Stream heads remembered for chaining appends (see ChainHeads). */
const CHAIN_HEADS = 10_000;
/** Events read back from a stream's head when chaining a write that expects no revision. */
export const HEAD_WINDOW = 32;
/** Appends lost to others on streams whose head this one assumed, before giving up. */
export const CHAIN_ATTEMPTS = 20;
/** Sends after an answer that leaves the outcome unknown (a deadline, INTERNAL, a lost reply). */
export const UNKNOWN_RESENDS = 2;

/**
 * Known links of hash chains: the hash of the event at a stream's revision, and the ids of the
 * events written there last, for the streams written or read last. An event never changes, so
 * an entry is never wrong; it may only no longer be the head, which an append that assumed so
 * learns from its conflict.
 */
export class ChainHeads {
  private readonly known = new Map<string, { revision: number; hash: string; ids: readonly string[] }>();

  get(stream: string): { revision: number; hash: string; ids: readonly string[] } | undefined {
    return this.known.get(stream);
  }

  remember(stream: string, revision: number, hash: string | undefined, ids: readonly string[] = []): void {
    if (hash === undefined) return;
    const held = this.known.get(stream);
    if (held && held.revision > revision) return;
    this.known.delete(stream);
    this.known.set(stream, { revision, hash, ids });
    if (this.known.size > CHAIN_HEADS) this.known.delete(this.known.keys().next().value!);
  }

  forget(stream: string): void {
    this.known.delete(stream);
  }
}

/** What the append needs of the client: both calls on the leader, their errors converted. */
export interface AppendPath {
  send(requests: AppendStreamRequest[]): Promise<MultiAppendResult>;
  /** A stream's events as stored, whoever wrote them; [] when the stream does not exist. */
  readRaw(stream: string, options: ReadStreamOptions): Promise<RecordedEvent[]>;
}

/** Where a write's events join their stream's chain. */
interface ChainStart {
  revision: number;
  hash: string;
  /** Sent expecting `revision` although the write expected any revision or an existing stream. */
  tightened: boolean;
  /** Taken from ChainHeads, not read. */
  remembered: boolean;
  /** The write's events are already stored after `revision`: the send is a repeat. */
  repeat: boolean;
  /**
   * The stream is soft-deleted: the server writes after its last event, which no read shows.
   * The append is sent first expecting a revision no stream reaches, and the conflict names it.
   */
  deleted?: boolean;
}

/** Expected where the revision is unknown: past any stream's, so the server names the actual one. */
export const UNREACHABLE_REVISION = BigInt(Number.MAX_SAFE_INTEGER);

/**
 * Whether a stream that reads as absent is soft-deleted: its metadata's truncate-before is the
 * server's long.MaxValue (read back as a double, so anything past 2^62 is taken for it).
 */
async function softDeleted(path: AppendPath, stream: string): Promise<boolean> {
  const [meta] = await path.readRaw(`$$${stream}`, { direction: BACKWARDS, fromRevision: END, maxCount: 1 });
  const tb = (meta?.data as { $tb?: unknown } | undefined)?.$tb;
  return typeof tb === 'number' && tb >= 2 ** 62;
}

/** An event's link; '' for one written by another tool (the chain restarts after it). */
function hashOf(e: RecordedEvent | undefined): string {
  return (e && decodeMetadata(e.metadata).hash) ?? '';
}

/** The outcome of an append answered so is unknown: it may have been stored. */
export function isUnknownOutcome(err: unknown): boolean {
  return err instanceof DeadlineExceededError || err instanceof UnavailableError;
}

async function chainStart(path: AppendPath, heads: ChainHeads, w: StreamWrite): Promise<ChainStart> {
  const plain = { tightened: false, remembered: false, repeat: false };
  const expected = w.expectedRevision;
  const gone = { ...plain, revision: -1, hash: '', tightened: true, deleted: true };
  if (expected === 'no_stream') return (await softDeleted(path, w.stream)) ? gone : { ...plain, revision: -1, hash: '' };
  const known = heads.get(w.stream);
  if (typeof expected === 'number') {
    if (known?.revision === expected) return { ...plain, revision: expected, hash: known.hash, remembered: true };
    const [at] = await path.readRaw(w.stream, { direction: FORWARDS, fromRevision: BigInt(expected), maxCount: 1 });
    // No event there: the append conflicts, and its hashes are never stored.
    return { ...plain, revision: expected, hash: at && Number(at.revision) === expected ? hashOf(at) : '' };
  }
  const ids = new Set(w.events.map((e) => e.id));
  if (known && !known.ids.some((id) => ids.has(id))) return { ...plain, ...known, tightened: true, remembered: true };

  // The head as stored, whoever wrote it: an event of another tool is a head like any other.
  let window = await path.readRaw(w.stream, { direction: BACKWARDS, fromRevision: END, maxCount: HEAD_WINDOW });
  const head = window[0];
  if (!head) {
    if (expected === 'stream_exists') throw new WrongExpectedRevisionError(w.stream, expected, 'no_stream');
    return (await softDeleted(path, w.stream)) ? gone : { ...plain, revision: -1, hash: '', tightened: true };
  }
  let ours = window.filter((e) => ids.has(e.id));
  if (ours.length > 0 && ours.length < ids.size && ids.has(window.at(-1)!.id)) {
    // The write's events may reach below the window: read as far back as they can.
    window = await path.readRaw(w.stream, { direction: BACKWARDS, fromRevision: END, maxCount: HEAD_WINDOW + ids.size });
    ours = window.filter((e) => ids.has(e.id));
  }
  if (ours.length === 0) return { ...plain, revision: Number(head.revision), hash: hashOf(head), tightened: true };
  if (ours.length < ids.size) {
    throw new DuplicateEventIdError(`${ours.length} of the ${ids.size} event ids for stream ${w.stream} are already stored there`);
  }
  // A repeat: sent expecting the revision before its events, the server finds them there and
  // answers as it answered the first attempt, whatever was appended after them since.
  const first = Number(ours.at(-1)!.revision);
  let before = first === 0 ? undefined : window.find((e) => Number(e.revision) === first - 1);
  if (first > 0 && !before) {
    [before] = await path.readRaw(w.stream, { direction: FORWARDS, fromRevision: BigInt(first - 1), maxCount: 1 });
  }
  return { ...plain, revision: first - 1, hash: hashOf(before), tightened: true, repeat: true };
}

function chained(writes: StreamWrite[], starts: ChainStart[]): { requests: AppendStreamRequest[]; lastHashes: string[] } {
  const lastHashes: string[] = [];
  const requests = writes.map((w, i) => {
    const start = starts[i]!;
    let previous = start.hash;
    const events = w.events.map((e, k) => {
      const { eventData, hash } = toEventData(w.stream, e, { revision: start.revision + 1 + k, previous });
      previous = hash ?? '';
      return eventData;
    });
    lastHashes.push(previous);
    const expectedState = start.deleted
      ? UNREACHABLE_REVISION
      : start.tightened
        ? start.revision < 0
          ? NO_STREAM
          : BigInt(start.revision)
        : toStreamState(w.expectedRevision);
    return { streamName: w.stream, expectedState, events };
  });
  return { requests, lastHashes };
}

/**
 * Appends writes (each with events) chained to their streams.
 *
 * - A conflict on a stream whose expectation was tightened here costs one read of that stream
 *   alone, and the append is sent again; after CHAIN_ATTEMPTS such conflicts, ContendedStreamError.
 *   A conflict on an expectation the caller set is the caller's.
 * - An unknown outcome is reconciled by sending the very same append again: its expectations are
 *   exact, so the server either finds its events where they were to land and answers with their
 *   revisions and position, or stores them now. The second resend first reads again the heads
 *   taken from memory, in case one of them put the events somewhere they are not.
 */
export async function appendChained(
  path: AppendPath,
  heads: ChainHeads,
  writes: StreamWrite[],
): Promise<{ revisions: Map<string, number>; position?: Position }> {
  const starts = await Promise.all(writes.map((w) => chainStart(path, heads, w)));
  let conflicts = 0;
  let unknown = 0;
  for (;;) {
    const { requests, lastHashes } = chained(writes, starts);
    try {
      const r = await path.send(requests);
      const revisions = new Map(
        writes.map((w, i) => {
          const out = r.responses.find((x) => x.streamName === w.stream) ?? r.responses[i];
          if (!out) throw new Error(`KurrentDB did not report the revision of stream ${w.stream}`);
          return [w.stream, Number(out.revision)];
        }),
      );
      writes.forEach((w, i) => {
        if (!starts[i]!.repeat)
          heads.remember(
            w.stream,
            revisions.get(w.stream)!,
            lastHashes[i],
            w.events.map((e) => e.id),
          );
      });
      return { revisions, position: replyPosition(r.position) };
    } catch (err) {
      const e = converted(err);
      if (e instanceof WrongExpectedVersionError) {
        const conflict = toConflict(e, writes)!;
        heads.forget(conflict.stream);
        const i = writes.findIndex((w) => w.stream === conflict.stream);
        if (i < 0 || !starts[i]!.tightened) throw conflict;
        if (++conflicts >= CHAIN_ATTEMPTS) throw new ContendedStreamError(conflict.stream, conflicts);
        // A soft-deleted stream's last revision, as the conflict names it: the chain starts
        // again after it, as after an event without a hash.
        const last = conflict.actual === 'no_stream' ? -1 : conflict.actual;
        starts[i] = starts[i]!.deleted
          ? { revision: last, hash: '', tightened: true, remembered: false, repeat: false }
          : await chainStart(path, heads, writes[i]!);
        continue;
      }
      if (!isUnknownOutcome(e) || ++unknown > UNKNOWN_RESENDS) throw e;
      if (unknown > 1) {
        const remembered = writes.flatMap((w, i) => (starts[i]!.tightened && starts[i]!.remembered ? [i] : []));
        for (const i of remembered) heads.forget(writes[i]!.stream);
        await Promise.all(remembered.map(async (i) => (starts[i] = await chainStart(path, heads, writes[i]!))));
      }
    }
  }
}
