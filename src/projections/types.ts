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
