/**
 * Events as an event store takes and gives them, whichever store is behind the port
 * (src/store/types.ts): the codec turns domain events into these and back, so they belong with
 * the events, and the store speaks of them.
 *
 * Positions are opaque to callers except for ordering: on PostgreSQL `commit` is the appending
 * transaction id and `prepare` the row's sequence number; on KurrentDB they are the log's commit
 * and prepare positions.
 */
export interface Position {
  commit: bigint;
  prepare: bigint;
}

export interface NewEvent {
  /** UUID; an id already stored is not stored twice where a repeat is recognised (see ExpectedRevision). */
  id: string;
  type: string;
  version?: number;
  data: Record<string, unknown>;
  metadata?: Record<string, unknown>;
}

export interface StoredEvent {
  id: string;
  stream: string;
  revision: number;
  type: string;
  version: number;
  data: Record<string, unknown>;
  metadata: Record<string, unknown>;
  position: Position;
  recordedAt: string;
  /**
   * The event's link in its stream's hash chain, as hex (src/store/chain.ts); absent only on
   * events another tool wrote to a KurrentDB stream.
   */
  hash?: string;
}
