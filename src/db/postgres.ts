import { hash } from 'node:crypto';
import { Readable } from 'node:stream';
import { pipeline } from 'node:stream/promises';
import pg from 'pg';
import { from as copyStream } from 'pg-copy-streams';
import type { Db, QueryOptions, QueryResult, Queryable } from './types.ts';

const DATE_OID = 1082;
const INT8_OID = 20;
const NUMERIC_OID = 1700;

// Plain calendar dates must never pass through a JavaScript Date: a time zone could shift the day.
const types = {
  getTypeParser(oid: number, format?: 'text' | 'binary') {
    if (oid === DATE_OID) return (v: string) => v;
    if (oid === INT8_OID || oid === NUMERIC_OID) return (v: string) => v;
    return pg.types.getTypeParser(oid, format);
  },
};

/**
 * Session settings of every connection. JIT compilation off: the planner expects thousands of
 * rows from a stream read (the events table's statistics are dominated by long streams), which
 * crosses jit_above_cost, and compiling then costs many times what the query itself does. The service's statements are all short lookups, appends and pages, which JIT never
 * speeds up. Options given in the connection string come after these, so an operator can still
 * turn it on.
 */
const SESSION_OPTIONS = '-c jit=off';

function sessionOptions(connectionString: string, limits: SessionLimits | undefined): string {
  const ours = limits
    ? `${SESSION_OPTIONS} -c statement_timeout=${limits.statementTimeoutMs} -c lock_timeout=${limits.lockTimeoutMs}`
    : SESSION_OPTIONS;
  let given: string | null = null;
  try {
    given = new URL(connectionString).searchParams.get('options');
  } catch {
    // Not a URL (a keyword/value string): its options, if any, are not merged.
  }
  return given ? `${ours} ${given}` : ours;
}

/**
 * Wide values (a worker's folded records, kilobytes of JSON each) compressed by lz4 rather than
 * pglz: in a large rebuild pglz took most of the database's time writing the folded states, and
 * lz4 less than half of that, for a little more room (docs/benchmarks.md). A server built
 * without lz4 (or older than PostgreSQL 14, which has no such setting) keeps its default.
 */
const LZ4_WHERE_OFFERED = `SELECT set_config('default_toast_compression', 'lz4', false)
  WHERE EXISTS (SELECT 1 FROM pg_settings WHERE name = 'default_toast_compression' AND 'lz4' = ANY (enumvals))`;

/** The longest a statement runs and waits for a lock on these connections before PostgreSQL cancels it; 0 is no limit. */
export interface SessionLimits {
  statementTimeoutMs: number;
  lockTimeoutMs: number;
}

export interface PostgresOptions {
  /** For a server's connections: what waits on its own (a lock session, a migration) lifts them with `withoutLimits`. */
  limits?: SessionLimits;
  connectionString: string;
  max?: number;
  /** Fail fast when the server is unreachable instead of waiting for the OS time-out. */
  connectionTimeoutMillis?: number;
  applicationName?: string;
}

export class PostgresDb implements Db {
  readonly kind = 'postgres' as const;
  readonly pool: pg.Pool;
  private readonly limited: boolean;

  constructor(opts: PostgresOptions) {
    this.limited = opts.limits !== undefined;
    this.pool = new pg.Pool({
      connectionString: opts.connectionString,
      max: opts.max ?? 10,
      connectionTimeoutMillis: opts.connectionTimeoutMillis ?? 5000,
      application_name: opts.applicationName ?? 'vacaciones',
      options: sessionOptions(opts.connectionString, opts.limits),
      types,
      // Run on each new connection before it is handed out.
      onConnect: async (client: pg.ClientBase) => {
        await client.query(LZ4_WHERE_OFFERED);
      },
    });
    // An idle client losing its server must not crash the process; the next query reports it.
    this.pool.on('error', () => {});
  }

  async query<R>(sql: string, params?: unknown[], opts?: QueryOptions): Promise<QueryResult<R>> {
    const r = await this.pool.query(statement(sql, params, opts));
    return { rows: r.rows as R[], rowCount: r.rowCount ?? 0 };
  }

  async exec(sql: string): Promise<void> {
    await this.pool.query(sql);
  }

  async transaction<T>(fn: (tx: Queryable) => Promise<T>, opts: { durable?: boolean } = {}): Promise<T> {
    const client = await this.checkout();
    try {
      // One round trip for both statements (simple query protocol).
      await client.query(opts.durable === false ? 'BEGIN; SET LOCAL synchronous_commit = off' : 'BEGIN');
      const result = await fn(wrap(client));
      await client.query('COMMIT');
      return result;
    } catch (err) {
      await client.query('ROLLBACK').catch(() => {});
      throw err;
    } finally {
      client.release();
    }
  }

  async withConnection<T>(fn: (conn: Queryable) => Promise<T>): Promise<T> {
    const client = await this.checkout();
    let broken = false;
    try {
      // A dedicated connection waits on purpose (a lock granted in turn, a migration, an import):
      // the server's limits are lifted on it, and put back before it is handed back.
      if (this.limited) await client.query('SET statement_timeout = 0; SET lock_timeout = 0');
      const result = await fn(wrap(client));
      if (this.limited) await client.query('RESET statement_timeout; RESET lock_timeout');
      return result;
    } catch (err) {
      broken = true;
      throw err;
    } finally {
      // A connection that held session state (advisory locks) is not handed back dirty.
      client.release(broken);
    }
  }

  /**
   * A checked-out client whose server goes away emits 'error'; unheard, that would end the
   * process. The query in flight fails on its own, which is where the failure is handled.
   */
  private async checkout(): Promise<pg.PoolClient> {
    const client = await this.pool.connect();
    const marked = client as pg.PoolClient & { vacErrorListener?: boolean };
    if (!marked.vacErrorListener) {
      client.on('error', () => {});
      marked.vacErrorListener = true;
    }
    return client;
  }

  async close(): Promise<void> {
    await this.pool.end();
  }
}

/** A query as pg takes it: named, it is prepared once per connection and run by name after. */
function statement(sql: string, params: unknown[] | undefined, opts: QueryOptions | undefined): pg.QueryConfig {
  return opts?.prepare ? { name: statementName(sql), text: sql, values: params } : { text: sql, values: params };
}

/** Names of the prepared texts (constants of the code, a handful). */
const names = new Map<string, string>();
const statementName = (sql: string): string => {
  let name = names.get(sql);
  if (name === undefined) names.set(sql, (name = `vac_${hash('sha256', sql, 'hex').slice(0, 24)}`));
  return name;
};

function wrap(client: pg.PoolClient): Queryable {
  return {
    async query<R>(sql: string, params?: unknown[], opts?: QueryOptions): Promise<QueryResult<R>> {
      const r = await client.query(statement(sql, params, opts));
      return { rows: r.rows as R[], rowCount: r.rowCount ?? 0 };
    },
    async exec(sql: string): Promise<void> {
      await client.query(sql);
    },
    async copyFrom(target: string, data: string | Uint8Array): Promise<void> {
      await pipeline(Readable.from([data]), client.query(copyStream(`COPY ${target} FROM STDIN`)));
    },
  };
}
