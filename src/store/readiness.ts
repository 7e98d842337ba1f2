import type { Db } from '../db/types.ts';
import type { EventStore } from './types.ts';

/** Longest the readiness check waits for each store to answer. */
const READY_TIMEOUT_MS = 2000;

async function withTimeout<T>(p: Promise<T>, ms: number, what: string): Promise<T> {
  let timer: NodeJS.Timeout | undefined;
  try {
    return await Promise.race([
      p,
      new Promise<never>((_, reject) => (timer = setTimeout(() => reject(new Error(`${what} did not answer within ${ms} ms`)), ms))),
    ]);
  } finally {
    clearTimeout(timer);
  }
}

/**
 * Whether a request could write now: each of the schema's tables is taken in the mode an insert
 * takes, which only a lock that holds writes back (LOCK TABLE, a non-concurrent index build, a
 * table rewrite) refuses, waiting at most the readiness budget. Tables whose names end in one of
 * `skipSuffixes` (a rebuild's own copies, which requests never touch) are left out. PGlite has
 * one connection and nobody else to hold a lock.
 */
function writableProbe(skipSuffixes: readonly string[]): string {
  const skip = skipSuffixes.map((s) => ` AND right(tablename, ${s.length}) <> '${s.replaceAll("'", "''")}'`).join('');
  return `DO $$
DECLARE t text;
BEGIN
  PERFORM set_config('lock_timeout', '${READY_TIMEOUT_MS}ms', true);
  FOR t IN SELECT format('%I.%I', schemaname, tablename) FROM pg_tables WHERE schemaname = current_schema()${skip} LOOP
    EXECUTE 'LOCK TABLE ' || t || ' IN ROW EXCLUSIVE MODE';
  END LOOP;
END $$`;
}

/**
 * /health/ready and the panel's Operación: the database answers and its tables take writes, and
 * the event store answers, each within two seconds.
 */
export async function checkReadiness(db: Db, store: EventStore, opts: { skipSuffixes?: readonly string[] } = {}): Promise<void> {
  await withTimeout(db.query('SELECT 1'), READY_TIMEOUT_MS, 'the database');
  if (db.kind === 'postgres') {
    const probe = writableProbe(opts.skipSuffixes ?? []);
    await withTimeout(
      db.transaction((tx) => tx.exec(probe)),
      READY_TIMEOUT_MS * 2,
      'the database',
    ).catch((err: { code?: string }) => {
      if (err.code === '55P03') throw new Error(`the database holds writes back: a table stayed locked for ${READY_TIMEOUT_MS} ms`);
      throw err;
    });
  }
  await withTimeout(store.ping(), READY_TIMEOUT_MS, 'the event store');
}
