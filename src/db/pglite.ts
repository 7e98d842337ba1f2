import { PGlite } from '@electric-sql/pglite';
import type { Db, QueryResult, Queryable } from './types.ts';

const DATE_OID = 1082;
const INT8_OID = 20;
const NUMERIC_OID = 1700;

const parsers = {
  [DATE_OID]: (v: string) => v,
  [INT8_OID]: (v: string) => v,
  [NUMERIC_OID]: (v: string) => v,
};

/** PGlite reads COPY's data from a blob it is handed with the statement. */
async function copyInto(q: Pick<PGlite, 'query'>, target: string, data: string | Uint8Array): Promise<void> {
  await q.query(`COPY ${target} FROM '/dev/blob'`, [], { blob: new Blob([data]) });
}

/**
 * PGlite has a single connection, so transactions are naturally serialised. Its own
 * `transaction()` queues other queries behind the open transaction.
 */
export class PgliteDb implements Db {
  readonly kind = 'pglite' as const;

  private constructor(
    private readonly pg: PGlite,
    private readonly onClose: () => void,
  ) {}

  /** `dataDir` undefined means in memory (tests); `onClose` runs once the files are closed. */
  static async open(dataDir?: string, onClose: () => void = () => {}): Promise<PgliteDb> {
    const pg = await PGlite.create(dataDir, { parsers });
    return new PgliteDb(pg, onClose);
  }

  async query<R>(sql: string, params?: unknown[]): Promise<QueryResult<R>> {
    const r = await this.pg.query<R>(sql, params as unknown[]);
    return { rows: r.rows, rowCount: r.affectedRows ?? r.rows.length };
  }

  async exec(sql: string): Promise<void> {
    await this.pg.exec(sql);
  }

  async copyFrom(target: string, data: string | Uint8Array): Promise<void> {
    await copyInto(this.pg, target, data);
  }

  async transaction<T>(fn: (tx: Queryable) => Promise<T>, opts: { durable?: boolean } = {}): Promise<T> {
    return this.pg.transaction(async (tx) => {
      if (opts.durable === false) await tx.exec('SET LOCAL synchronous_commit = off');
      return fn({
        async query<R>(sql: string, params?: unknown[]): Promise<QueryResult<R>> {
          const r = await tx.query<R>(sql, params as unknown[]);
          return { rows: r.rows, rowCount: r.affectedRows ?? r.rows.length };
        },
        async exec(sql: string): Promise<void> {
          await tx.exec(sql);
        },
        copyFrom: (target: string, data: string | Uint8Array) => copyInto(tx, target, data),
      });
    });
  }

  async withConnection<T>(fn: (conn: Queryable) => Promise<T>): Promise<T> {
    return fn(this);
  }

  async close(): Promise<void> {
    await this.pg.close();
    this.onClose();
  }
}
