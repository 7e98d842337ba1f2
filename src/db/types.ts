/**
 * The one database interface the rest of the code talks to. Two implementations: a `pg` pool
 * against a PostgreSQL server, and PGlite (PostgreSQL compiled to WASM, in process).
 *
 * Row values are normalised the same way by both: `date` columns come back as `YYYY-MM-DD`
 * strings, `int8`/`numeric` as strings (cast in SQL where a number is wanted), `jsonb` as objects.
 */
export interface QueryResult<R> {
  rows: R[];
  rowCount: number;
}

export interface QueryOptions {
  /**
   * For a statement whose text never changes and that runs often (a stream's read, an append):
   * PostgreSQL parses and plans it once per connection rather than on every call, under a name
   * made from its text, so that two texts never share one. PGlite ignores it.
   */
  prepare?: boolean;
}

export interface Queryable {
  query<R = Record<string, unknown>>(sql: string, params?: unknown[], opts?: QueryOptions): Promise<QueryResult<R>>;
  /** Runs a script of several statements without parameters (migrations, DDL). */
  exec(sql: string): Promise<void>;
  /**
   * Runs `COPY <table> (<columns>) FROM STDIN` with `data` as its data, in PostgreSQL's text
   * format (a string, or its UTF-8 bytes as CopyLines gathers them): the fastest way to load many
   * rows, on the server and on PGlite alike. Both databases have it; wrappers made for tests may
   * leave it out.
   */
  copyFrom?(target: string, data: string | Uint8Array): Promise<void>;
}

export interface Db extends Queryable {
  readonly kind: 'postgres' | 'pglite';
  /**
   * Runs `fn` inside BEGIN/COMMIT on one connection; rolls back when it throws. With
   * `durable: false` the commit does not wait for the disk (for data that can be rebuilt).
   */
  transaction<T>(fn: (tx: Queryable) => Promise<T>, opts?: { durable?: boolean }): Promise<T>;
  /** Runs `fn` on one dedicated connection (session-level advisory locks, LISTEN). */
  withConnection<T>(fn: (conn: Queryable) => Promise<T>): Promise<T>;
  close(): Promise<void>;
}

/**
 * One versioned, forward-only change of the schema. Each owner of tables keeps its own list
 * (src/migrations.ts names them); each runs once, in its own transaction, and is recorded in
 * schema_migrations. The text of an applied migration never changes: a change is a new one.
 */
export interface Migration {
  version: number;
  name: string;
  sql: string;
}
