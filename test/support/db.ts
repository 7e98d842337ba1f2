import { randomBytes } from 'node:crypto';
import pg from 'pg';
import { inject } from 'vitest';
import { migrate } from '../../src/migrations.ts';
import { PgliteDb } from '../../src/db/pglite.ts';
import { PostgresDb } from '../../src/db/postgres.ts';
import type { Db } from '../../src/db/types.ts';

export interface TestDb {
  db: Db;
  /** Connection string of the fresh database (real server only). */
  url: string | undefined;
  drop(): Promise<void>;
}

/** True when the suite runs against a real PostgreSQL server (not PGlite). */
export const hasServer = (): boolean => inject('pgAdminUrl') !== '';

/** Reason printed by tests skipped for lack of a server. */
export const NEEDS_SERVER = 'needs a real PostgreSQL server (set DATABASE_URL or run Docker): PGlite has one connection';

function withDatabase(url: string, name: string): string {
  const u = new URL(url);
  u.pathname = `/${name}`;
  return u.toString();
}

/** Creates an empty database of its own (or an in-memory PGlite), migrated, for one test file. */
export async function freshDb(opts: { migrate?: boolean; poolSize?: number } = {}): Promise<TestDb> {
  const admin = inject('pgAdminUrl');
  if (!admin) {
    const db = await PgliteDb.open();
    if (opts.migrate !== false) await migrate(db);
    return { db, url: undefined, drop: () => db.close() };
  }
  const name = `vac_test_${process.pid}_${randomBytes(4).toString('hex')}`;
  const c = new pg.Client({ connectionString: admin });
  await c.connect();
  await c.query(`CREATE DATABASE ${name}`);
  await c.end();
  const url = withDatabase(admin, name);
  const db = new PostgresDb({ connectionString: url, max: opts.poolSize ?? 10 });
  if (opts.migrate !== false) await migrate(db);
  return {
    db,
    url,
    async drop() {
      await db.close().catch(() => {});
      const a = new pg.Client({ connectionString: admin });
      await a.connect();
      await a.query(`DROP DATABASE IF EXISTS ${name} WITH (FORCE)`);
      await a.end();
    },
  };
}
