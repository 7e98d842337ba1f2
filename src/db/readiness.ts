import type { Db } from './types.ts';
import type { EventStore } from '../store/types.ts';

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

/** /health/ready and the panel's Operación: the database and the event store answer, each within two seconds. */
export async function checkReadiness(db: Db, store: EventStore): Promise<void> {
  await withTimeout(db.query('SELECT 1'), READY_TIMEOUT_MS, 'the database');
  await withTimeout(store.ping(), READY_TIMEOUT_MS, 'the event store');
}
