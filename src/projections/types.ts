import type { DecodedEvent } from '../events/codec.ts';
import type { Columns } from './sql.ts';

/** A row of a read model table, by column name. */
export type Row = Record<string, unknown>;

/**
 * A read model, written once and run two ways: live, a batch at a time (runtime/units.ts), and
 * by a rebuild, over the whole log in bulk (runtime/bulk.ts). It owns one table, whose rows fall
 * into units: the rows of one key (a record's code, a worker), which only the events of that key
 * change. `evolve` is the whole of what the events do to a unit, pure and without a database, so
 * that both ways give the same rows and tests need no database to hold it to its rules.
 * `suffix` is '' for the live table; a rebuild fills `<table><suffix>` and swaps it in.
 */
/**
 * Who reads a read model while the service runs: the API and the panel (their reads wait until
 * it includes every write acknowledged before them), the panel alone (its reads of it wait), or
 * no request at all (it follows right after).
 */
export type ReadBy = 'api' | 'panel' | 'none';

export interface ProjectorDefinition<U> {
  readonly name: string;
  /** The read model in the words of the people who read the Operación page. */
  readonly label: string;
  readonly readBy: ReadBy;
  /** Event types `evolve` acts on; the rebuild reads no others from the log. */
  readonly handles: ReadonlySet<string>;
  /** The live name of the table the projector owns. */
  readonly table: string;
  readonly columns: Columns;
  /** The column that holds a unit's key; every row of a unit carries it, and the primary key starts with it. */
  readonly keyColumn: string;
  /** Idempotent DDL (IF NOT EXISTS) of the table and its indexes under the given suffix. */
  ddl(suffix: string): string;
  /**
   * The key of the unit an event changes, or undefined for none. A unit's events lie in one
   * stream (a record's in its worker's): a rebuild reads stream by stream and writes a unit out
   * when its stream ends. One met in a second stream goes out twice and fails on the table's key;
   * the rebuild then goes by the log's order.
   */
  unitOf(e: DecodedEvent): string | undefined;
  /**
   * The unit after its events, in the log's order (undefined: no unit, no rows). Answers the very
   * `unit` it was given when the events change nothing, so that a batch applied a second time
   * writes nothing.
   */
  evolve(unit: U | undefined, events: readonly DecodedEvent[]): U | undefined;
  /** The unit's rows, as the table holds them. */
  rowsOf(unit: U): readonly Row[];
  /** A unit from its rows as read back (integer columns as numbers, times as ISO strings). */
  unitFrom(rows: readonly Row[]): U;
  /** Units are written once and never change (one per event): live batches write without reading. */
  readonly appendOnly?: boolean;
}

declare const opaque: unique symbol;
/** A projector's unit, opaque to the runtime: only the projector that made one reads it. */
export type Unit = { readonly [opaque]: true };

export interface Projector extends ProjectorDefinition<Unit> {
  /** Live names of every table the projector owns (its one table). */
  readonly tables: readonly string[];
}

/** The unit of the read models of records: the record's PILA code. */
export const recordCode = (e: DecodedEvent): string => (e.event.data as { codigoPila: string }).codigoPila;

/** A unit that is one row, for read models of one row a unit. */
export const oneRow = {
  rowsOf: (row: Row): readonly Row[] => [row],
  unitFrom: (rows: readonly Row[]): Row => rows[0]!,
};

/** A projector from its definition; the runtime hands each projector back only its own units. */
export function defineProjector<U>(def: ProjectorDefinition<U>): Projector {
  return { ...(def as unknown as ProjectorDefinition<Unit>), tables: [def.table] };
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
