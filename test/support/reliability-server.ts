import { spawn, type ChildProcess } from 'node:child_process';
import { mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import pg from 'pg';
import { allProjectors } from '../../src/projections/registry.ts';
import { CLI, EXIT_WITH_PARENT, ROOT, TODAY, runCli, waitForListening, type CliResult } from './server.ts';

/**
 * A `vacaciones serve` process whose child is reachable, so that a test can kill it without
 * warning and start another one over the same database.
 */
export interface ServeProcess {
  url: string;
  pid: number;
  child: ChildProcess;
  exited: Promise<void>;
  logs(): string;
  stderr(): string;
  /** SIGKILL: no drain, no shutdown hook, connections cut mid-transaction. */
  kill(): Promise<void>;
  /** SIGTERM, then SIGKILL if it does not end. */
  stop(): Promise<void>;
}

/** The environment a server and the CLI share over `databaseUrl`. */
export function serveEnv(databaseUrl: string, extra: Record<string, string> = {}): NodeJS.ProcessEnv {
  return {
    ...process.env,
    DATABASE_URL: databaseUrl,
    DATA_DIR: '',
    VACACIONES_TODAY: TODAY,
    HOST: '127.0.0.1',
    PORT: '0',
    LOG_LEVEL: 'info',
    ...extra,
  };
}

export async function spawnServe(env: NodeJS.ProcessEnv, timeoutMs = 45_000): Promise<ServeProcess> {
  let out = '';
  let err = '';
  const child = spawn(process.execPath, ['--import', EXIT_WITH_PARENT, CLI, 'serve'], {
    cwd: ROOT,
    env,
    stdio: ['pipe', 'pipe', 'pipe'],
  });
  child.stdout.setEncoding('utf8');
  child.stderr.setEncoding('utf8');
  child.stdout.on('data', (d: string) => (out += d));
  child.stderr.on('data', (d: string) => (err += d));
  const exited = new Promise<void>((r) => child.once('exit', () => r()));
  const alive = () => child.exitCode === null && child.signalCode === null;
  let url: string;
  try {
    url = await waitForListening(
      child,
      () => out,
      () => err,
      timeoutMs,
    );
  } catch (e) {
    if (alive()) child.kill('SIGKILL');
    throw e;
  }
  return {
    url,
    pid: child.pid!,
    child,
    exited,
    logs: () => out,
    stderr: () => err,
    async kill() {
      if (alive()) child.kill('SIGKILL');
      await exited;
    },
    async stop() {
      if (!alive()) return;
      child.kill('SIGTERM');
      const timer = setTimeout(() => child.kill('SIGKILL'), 20_000);
      await exited;
      clearTimeout(timer);
    },
  };
}

/** Writes reference data to a temporary file for `vacaciones import`; the returned cleanup removes it. */
export function writeTempJson(data: unknown): { file: string; remove: () => void } {
  const dir = mkdtempSync(join(tmpdir(), 'vac-rel-'));
  const file = join(dir, 'data.json');
  writeFileSync(file, JSON.stringify(data));
  return { file, remove: () => rmSync(dir, { recursive: true, force: true }) };
}

/** Imports `data` through the real CLI, failing loudly. */
export async function importThroughCli(env: NodeJS.ProcessEnv, data: unknown): Promise<CliResult> {
  const tmp = writeTempJson(data);
  try {
    const r = await runCli({ ...env, LOG_LEVEL: 'silent' }, ['import', tmp.file]);
    if (r.code !== 0) throw new Error(`import failed (${r.code}): ${r.stderr}`);
    return r;
  } finally {
    tmp.remove();
  }
}

/** Creates an API key through the CLI and returns its secret (printed alone on the last line). */
export async function createKeyThroughCli(env: NodeJS.ProcessEnv, name: string, scopes: string[] = []): Promise<string> {
  const args = ['apikey', 'create', '--name', name];
  for (const s of scopes) args.push('--scope', s);
  const r = await runCli({ ...env, LOG_LEVEL: 'silent' }, args);
  if (r.code !== 0) throw new Error(`apikey create ${name} failed (${r.code}): ${r.stderr}`);
  return r.stdout
    .split('\n')
    .filter((l) => l.trim() !== '')
    .at(-1)!
    .trim();
}

/** Runs `fn` with a plain pg client on `databaseUrl`, closed afterwards. */
export async function withPg<T>(databaseUrl: string, fn: (c: pg.Client) => Promise<T>): Promise<T> {
  const c = new pg.Client({ connectionString: databaseUrl });
  await c.connect();
  try {
    return await fn(c);
  } finally {
    await c.end().catch(() => {});
  }
}

/** Every live read-model table, as ordered JSON rows: equal snapshots mean equal read models. */
export async function snapshotReadModels(c: pg.Client): Promise<Record<string, string[]>> {
  const out: Record<string, string[]> = {};
  for (const p of allProjectors) {
    for (const t of p.tables) {
      const r = await c.query<{ j: string }>(`SELECT to_jsonb(t)::text AS j FROM ${t} t ORDER BY 1`);
      out[t] = r.rows.map((row) => row.j);
    }
  }
  return out;
}

/** Per projector lag from `vacaciones projections status` (NAME CHECKPOINT HEAD LAG STATE). */
export async function projectionLags(env: NodeJS.ProcessEnv): Promise<Record<string, number>> {
  const r = await runCli({ ...env, LOG_LEVEL: 'silent' }, ['projections', 'status']);
  if (r.code !== 0) throw new Error(`projections status failed (${r.code}): ${r.stderr}`);
  const lags: Record<string, number> = {};
  for (const line of r.stdout.split('\n').slice(1)) {
    const cells = line.trim().split(/\s+/);
    if (cells.length < 5) continue;
    lags[cells[0]!] = Number(cells[3]);
  }
  return lags;
}

/** Polls until every projector's lag is 0 (bounded); returns the last lags seen. */
export async function waitForProjections(env: NodeJS.ProcessEnv, timeoutMs = 30_000): Promise<Record<string, number>> {
  const deadline = Date.now() + timeoutMs;
  for (;;) {
    const lags = await projectionLags(env);
    const values = Object.values(lags);
    if (values.length > 0 && values.every((l) => l === 0)) return lags;
    if (Date.now() > deadline) return lags;
    await new Promise((r) => setTimeout(r, 250));
  }
}
