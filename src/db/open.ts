import { mkdirSync } from 'node:fs';
import { resolve } from 'node:path';
import type { Config } from '../config/config.ts';
import { lockDataDir } from './dir-lock.ts';
import { PostgresDb, type SessionLimits } from './postgres.ts';
import type { Db } from './types.ts';

/** The server when DATABASE_URL is set, else the embedded PGlite under DATA_DIR. */
export async function openDb(config: Pick<Config, 'databaseUrl' | 'dataDir'>, poolSize?: number, limits?: SessionLimits): Promise<Db> {
  if (config.databaseUrl) {
    return new PostgresDb({ connectionString: config.databaseUrl, max: poolSize, limits });
  }
  const dir = resolve(config.dataDir, 'pglite');
  mkdirSync(dir, { recursive: true });
  const release = lockDataDir(resolve(config.dataDir), config.dataDir);
  try {
    // Loaded only when used: the WASM build holds memory a server on PostgreSQL never needs.
    const { PgliteDb } = await import('./pglite.ts');
    return await PgliteDb.open(dir, release);
  } catch (err) {
    release();
    throw err;
  }
}
