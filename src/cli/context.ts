import { loadConfig, type Config } from '../config/config.ts';
import { migrate } from '../migrations.ts';
import { openDb } from '../db/open.ts';
import type { Db } from '../db/types.ts';

/** A failure the operator can act on: printed as one line, exit code 1. */
export class CliError extends Error {
  override name = 'CliError';
}

export interface CliIo {
  out: (line: string) => void;
  err: (line: string) => void;
  /** The width of the terminal `out` writes to; undefined when it is a pipe or a file. */
  readonly columns?: number;
}

/** Width assumed for a terminal that does not say its own. */
const TERMINAL_COLUMNS = 100;

export const processIo: CliIo = {
  out: (line) => process.stdout.write(`${line}\n`),
  err: (line) => process.stderr.write(`${line}\n`),
  get columns() {
    return process.stdout.isTTY ? process.stdout.columns || TERMINAL_COLUMNS : undefined;
  },
};

/** Opens the configured database (migrated), runs `fn`, and always closes it. */
export async function withDb<T>(fn: (db: Db, config: Config) => Promise<T>, opts: { config?: Config; migrate?: boolean } = {}): Promise<T> {
  const config = opts.config ?? loadConfig();
  const db = await openDb(config);
  try {
    if (opts.migrate !== false) await migrate(db);
    return await fn(db, config);
  } finally {
    await db.close();
  }
}
