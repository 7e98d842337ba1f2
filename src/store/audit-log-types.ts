import type { Queryable } from '../db/types.ts';
import type { Position, StoredEvent } from './types.ts';

/**
 * The reads an audit of the log makes in the log's own database (the port audit-log.ts hands out,
 * postgres-audit.ts implements).
 */

/** Every stream, or the streams named. */
export type StreamScope = { all: true } | { all?: false; streams: string[] };

/** A link of a stream's chain that does not hold, as the database recomputed it. */
export interface FaultyLink {
  stream: string;
  revision: number;
  /** The revision of the event stored before it in its stream (-1: none). */
  previous: number;
  /** Its hash recomputed after that event's hash. */
  expected: string;
  /** The hash it carries. */
  found: string;
}

/** A stream whose row in the store says it reached a revision that no stored event holds. */
export interface ShortStream {
  stream: string;
  /** The revision the store says the stream reached. */
  reached: number;
  /** Its newest stored event's revision (-1: none left) and hash ('' when none). */
  last: number;
  hash: string;
}

/** A stream's newest event at some position of the log. */
export interface HeadLink {
  stream: string;
  revision: number;
  hash: string;
}

export interface AuditLog {
  /** The streams of a scope and the events they hold, as the store's stream rows count them. */
  size(scope: StreamScope): Promise<{ streams: number; events: number }>;
  /**
   * Recomputes every link of a scope and answers the first link that does not hold of each
   * stream (a changed event, or revisions missing before it), in the byte order of the streams'
   * names; `checked` is told how many events were checked as it goes.
   */
  firstFaultyLinks(scope: StreamScope, checked: (events: number) => void): Promise<FaultyLink[]>;
  /** The streams of a scope whose newest events are gone (nothing after them to break a link). */
  shortStreams(scope: StreamScope): Promise<ShortStream[]>;
  /**
   * The head of every stream at `at`: its event of highest revision among those at or before
   * that position, one at a time in the byte order of the streams' names.
   */
  heads(at: Position, each: (h: HeadLink) => void): Promise<void>;
  /** Reads the log as of one moment, whatever is appended meanwhile, for as long as `read` runs. */
  snapshot<T>(read: (s: LogSnapshot) => Promise<T>): Promise<T>;
}

/** What to read of a snapshot's events. */
export interface EventsQuery {
  /** Every stream, or only those selected (LogSnapshot.select). */
  which: 'all' | 'selected';
  /**
   * Epoch milliseconds: each stream up to its last event recorded at or before this time, with
   * every revision before that one whenever it was recorded (a recording time is when the
   * appending transaction began: under contention a later revision may carry an earlier time);
   * streams with none, left out. The rule of src/integrity/as-of.ts's streamAsOf.
   */
  asOf?: number;
}

/** The log as of one moment (a REPEATABLE READ transaction, on PostgreSQL). */
export interface LogSnapshot {
  /** The moment's connection: the reference data kept in the log's database, read as of the same moment. */
  readonly tx: Queryable;
  /** Whole streams in revision order; a stream with no event reads as []. */
  readStreams(streams: string[]): Promise<Map<string, StoredEvent[]>>;
  /** The names of the streams that start with `prefix`. */
  streamsNamed(prefix: string): Promise<string[]>;
  /** Adds streams to the selection, which is kept by the store, not in memory here. */
  select(streams: string[]): Promise<void>;
  /** How many events `events` would give. */
  count(q: EventsQuery): Promise<number>;
  /**
   * The events asked for, streams in the byte order of their names (UTF-8), each stream in
   * revision order, read a page at a time: `each` is awaited before the next.
   */
  events(q: EventsQuery, each: (e: StoredEvent) => Promise<void>): Promise<void>;
}
