import type { Db, Queryable } from '../db/types.ts';
import type { NewEvent, Position, StoredEvent } from '../events/recorded.ts';

// The events as a store takes and gives them, and their positions, are the events' own types.
export type { NewEvent, Position, StoredEvent } from '../events/recorded.ts';

/**
 * The event store port. Only src/store knows which store is behind it.
 *
 * Positions are opaque to callers except for ordering: on PostgreSQL `commit` is the appending
 * transaction id and `prepare` the row's sequence number; on KurrentDB they are the log's commit
 * and prepare positions. Both adapters deliver `readAll` in ascending (commit, prepare) order.
 */
export const START: Position = { commit: 0n, prepare: 0n };

/**
 * What a write expects of its stream's revision before the append.
 *
 * A repeat of an append (the same event ids, sent again after a lost reply) is recognised for
 * certain only with an exact expectation, a revision or 'no_stream': the store looks where the
 * events would have landed. With 'any' or 'stream_exists', PostgreSQL still finds the ids (they
 * are unique across its store); the KurrentDB adapter finds them only among the stream's last 32
 * events, or right after the head it last wrote (src/store/kurrentdb-append.ts), and a repeat
 * whose events lie deeper is stored a second time. No caller may count on more: callers draw
 * new event ids for every attempt, and a write that must not happen twice carries an exact
 * expectation on a stream of the same append (appends are atomic, so that expectation guards
 * the whole append).
 */
export type ExpectedRevision = number | 'no_stream' | 'stream_exists' | 'any';

export interface StreamWrite {
  stream: string;
  expectedRevision: ExpectedRevision;
  events: NewEvent[];
}

/** An import's events made ready for writing (prepareImport): appended by `append` inside the import's transaction. */
export interface PreparedImport {
  append(tx: Queryable): Promise<void>;
}

export interface AppendResult {
  /** Revision of each written stream after the append, in the order given. */
  revisions: { stream: string; revision: number }[];
  /** Position of the last event written (for read-your-writes). */
  position: Position;
}

export interface ReadAllOptions {
  /** Exclusive. START reads from the beginning. */
  after: Position;
  limit: number;
  /**
   * Only events of these types (a rebuild reads what its read models handle and nothing else).
   * A page shorter than `limit` still means the readable log ends there.
   */
  types?: readonly string[];
}

export interface ReadByStreamOptions {
  /** Exclusive: the stream and revision of the last event of the previous page. */
  after?: { stream: string; revision: number };
  /** Inclusive: no event past this position. */
  upTo: Position;
  types: readonly string[];
  limit: number;
}

export interface EventStore {
  readonly name: string;
  /** All streams or none; a failed expectation on any stream throws WrongExpectedRevisionError. */
  append(writes: StreamWrite[]): Promise<AppendResult>;
  /**
   * An append whose every write expects no revision ('any'), each stream named once, written by
   * the shortest way the store has: no expectation to check, no retry to recognise (every event
   * id must be new). For the audit records of queries, which come in bursts and wait on it.
   */
  appendAny(writes: StreamWrite[]): Promise<AppendResult>;
  /** Whole stream in revision order; [] when it does not exist. */
  readStream(stream: string, opts?: { fromRevision?: number }): Promise<StoredEvent[]>;
  /**
   * Several streams at once, each from a revision on (one round trip where the store allows);
   * a missing stream, or one with nothing from that revision, is [].
   */
  readStreams(requests: { stream: string; fromRevision: number }[]): Promise<Map<string, StoredEvent[]>>;
  /** Committed events after `after`, never passing an event whose transaction is still open. */
  readAll(opts: ReadAllOptions): Promise<StoredEvent[]>;
  /**
   * Optional (PostgreSQL): the events of these types up to `upTo`, stream by stream in name
   * order, each stream's in revision order, `limit` at a time after `after` (a stream and a
   * revision; none: from the first). For work over the whole log that folds each stream on its
   * own, such as a rebuild: what a stream holds arrives together. The events come without their
   * hash: such work does not check the chain.
   */
  readByStream?(opts: ReadByStreamOptions): Promise<StoredEvent[]>;
  /** Position of the newest event readable now (START when empty). */
  headPosition(): Promise<Position>;
  /**
   * Number of readable events after `after` (projection lag), counted up to `upTo` when given
   * (a larger number answers `upTo`). A store that has to read events to count them stops at a
   * bound of its own too and answers the bound (KurrentDB: 10,000, a lower bound of the lag),
   * and may answer from a count made up to a second before.
   */
  countAfter(after: Position, opts?: { upTo?: number; types?: readonly string[] }): Promise<number>;
  /**
   * The PostgreSQL database the log is kept in, or undefined (KurrentDB): work over the whole
   * log (a rebuild, a verification, an anchor) may then run where the events lie instead of
   * reading every event out.
   */
  logDatabase(): Db | undefined;
  /**
   * The reference-data import writes its historic events inside its own database transaction
   * `tx`: where the log is kept in that database, they commit with the import's rows, all or
   * nothing; elsewhere (KurrentDB) `tx` is not used, and these are plain reads and appends.
   * claimAppend marks `tx` as appending before its first write of any kind.
   */
  claimAppend(tx: Queryable): Promise<void>;
  /** Which of these streams hold at least one event, as `tx` sees them. */
  existingStreams(tx: Queryable, streams: string[]): Promise<Set<string>>;
  /**
   * The import's writes, each expecting 'any' or 'no_stream' (a stream that exists fails the whole
   * import), made ready for writing (on PostgreSQL, their COPY data) and appended by the answer's
   * `append(tx)`. The import makes a chunk ready while the database writes the one before: the
   * making yields to the event loop now and then, so that the write's statements go out on time.
   */
  prepareImport(writes: StreamWrite[]): Promise<PreparedImport>;
  /** Checks the store is reachable and usable (on KurrentDB: $all reads, and appends reach a leader). */
  ping(): Promise<void>;
  close(): Promise<void>;
}

export class WrongExpectedRevisionError extends Error {
  override name = 'WrongExpectedRevisionError';
  constructor(
    readonly stream: string,
    readonly expected: ExpectedRevision,
    readonly actual: number | 'no_stream',
  ) {
    super(`stream ${stream}: expected revision ${String(expected)}, actual ${String(actual)}`);
  }
}

/**
 * An append that expected no revision lost the race for one of its streams to other appends
 * again and again (a store that chains its streams on the client, KurrentDB): the store is too
 * busy on that stream for now; the same append may succeed later.
 */
export class ContendedStreamError extends Error {
  override name = 'ContendedStreamError';
  constructor(
    readonly stream: string,
    readonly attempts: number,
  ) {
    super(`stream ${stream}: ${attempts} appends in a row were overtaken by others; try again later`);
  }
}

/** Some but not all of an append's event ids are already stored: a client bug, never retried. */
export class DuplicateEventIdError extends Error {
  override name = 'DuplicateEventIdError';
}

export function comparePositions(a: Position, b: Position): number {
  if (a.commit !== b.commit) return a.commit < b.commit ? -1 : 1;
  if (a.prepare !== b.prepare) return a.prepare < b.prepare ? -1 : 1;
  return 0;
}

export function positionToString(p: Position): string {
  return `${p.commit}/${p.prepare}`;
}
