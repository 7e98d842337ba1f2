import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { PgliteDb } from '../../../src/db/pglite.ts';
import type { Db } from '../../../src/db/types.ts';
import { freshDb, hasServer } from '../../support/db.ts';
import { runCli as runCliText } from '../../support/server.ts';

export { FIXTURE, ROOT, loadFixture } from '../../support/server.ts';

export type Json = any;

const REF_TABLES = [
  'ref_subgerencias',
  'ref_company_contracts',
  'ref_workers',
  'ref_contracts',
  'ref_payroll_sheets',
  'ref_users',
] as const;
export type TableCounts = Record<(typeof REF_TABLES)[number] | 'version', number>;

export async function tableCounts(db: Db): Promise<TableCounts> {
  const out = {} as TableCounts;
  for (const t of REF_TABLES) out[t] = Number((await db.query<{ n: string }>(`SELECT count(*) AS n FROM ${t}`)).rows[0]!.n);
  out.version = Number((await db.query<{ v: string }>('SELECT version AS v FROM ref_version')).rows[0]!.v);
  return out;
}

export interface CliRun {
  code: number | null;
  stdout: string[];
  stderr: string[];
}

/**
 * A database the real CLI can reach from a child process: a fresh server database when the run
 * has one, else an on-disk PGlite directory (opened here only between CLI runs: one process at a time).
 */
export interface CliTarget {
  run(...args: string[]): Promise<CliRun>;
  inspect<T>(fn: (db: Db) => Promise<T>): Promise<T>;
  dispose(): Promise<void>;
}

/** The command line's run, its output as lines without the empty ones. */
export async function runCli(env: NodeJS.ProcessEnv, args: string[]): Promise<CliRun> {
  const r = await runCliText(env, args);
  const lines = (s: string) => s.split('\n').filter((l) => l !== '');
  return { code: r.code, stdout: lines(r.stdout), stderr: lines(r.stderr) };
}

export async function cliTarget(): Promise<CliTarget> {
  const base = { ...process.env, LOG_LEVEL: 'silent' };
  if (hasServer()) {
    const t = await freshDb();
    const env = { ...base, DATABASE_URL: t.url! };
    return { run: (...args) => runCli(env, args), inspect: (fn) => fn(t.db), dispose: () => t.drop() };
  }
  const dir = mkdtempSync(join(tmpdir(), 'vac-cli-'));
  const env = { ...base, DATABASE_URL: '', DATA_DIR: dir };
  return {
    run: (...args) => runCli(env, args),
    async inspect(fn) {
      const db = await PgliteDb.open(join(dir, 'pglite'));
      try {
        return await fn(db);
      } finally {
        await db.close();
      }
    },
    async dispose() {
      rmSync(dir, { recursive: true, force: true });
    },
  };
}
