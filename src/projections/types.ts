import type { Queryable } from '../db/types.ts';
import type { DecodedEvent } from '../events/codec.ts';

/**
 * A read model: the tables it owns (nothing else writes them) and how a batch of events changes
 * them. `suffix` is '' for the live tables; a rebuild fills `<table><suffix>` and swaps them in.
 */
export interface Projector {
  readonly name: string;
  /**
   * Event types `apply` acts on. A batch with none of them changes no table, so the runner only
   * moves the checkpoint (kept in memory, written now and then) instead of a transaction.
   */
  readonly handles: ReadonlySet<string>;
  /** Live names of every table the projector owns. */
  readonly tables: readonly string[];
  /** Idempotent DDL (IF NOT EXISTS) of the tables and their indexes under the given suffix. */
  ddl(suffix: string): string;
  /**
   * Applies a batch in order. Must be idempotent: applying the same batch twice in a row leaves
   * the tables as applying it once.
   */
  apply(q: Queryable, events: readonly DecodedEvent[], suffix: string): Promise<void>;
  /**
   * Optional, for rebuilds from the PostgreSQL event log (src/projections/runtime/bulk.ts): statements
   * that fill the empty tables under `suffix` with what `apply` makes of every event of the log
   * up to a position (`$1` its commit as text, `$2` its prepare), read where the events lie
   * instead of passing each through this process. Their rows must equal those of `apply` on the
   * same events (the rebuild tests compare both). They read payloads as stored, so they serve only
   * while no event type they handle has an upcaster. A value they cannot read exactly as `apply`
   * does must stop them with an invalid_datetime_format or datetime_field_overflow error (see
   * timestampSql): the rebuild then replays that read model's events through `apply` instead.
   */
  replaySql?(suffix: string): readonly string[];
}

/** The subset of pino the projections use, so that tests can pass a silent one. */
export interface ProjectionLogger {
  info(obj: object, msg?: string): void;
  warn(obj: object, msg?: string): void;
  error(obj: object, msg?: string): void;
}

export const consoleLogger: ProjectionLogger = {
  info: () => {},
  warn: (obj, msg) => console.warn(msg ?? '', obj),
  error: (obj, msg) => console.error(msg ?? '', obj),
};

export const silentLogger: ProjectionLogger = { info: () => {}, warn: () => {}, error: () => {} };

/** Test seams: a hook that throws makes the batch fail as a crash mid-batch would. */
export interface ProjectionHooks {
  /** Runs inside the batch transaction after the projector applied it, before the commit. */
  beforeCommit?(projector: string, events: readonly DecodedEvent[]): void | Promise<void>;
}
