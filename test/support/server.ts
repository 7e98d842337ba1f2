import { spawn, type ChildProcess } from 'node:child_process';
import { createHash } from 'node:crypto';
import {
  cpSync,
  existsSync,
  mkdirSync,
  mkdtempSync,
  readFileSync,
  readdirSync,
  renameSync,
  rmSync,
  statSync,
  writeFileSync,
} from 'node:fs';
import { tmpdir } from 'node:os';
import { dirname, join, relative, resolve } from 'node:path';
import { fileURLToPath } from 'node:url';
import { freshDb } from './db.ts';

export const ROOT = resolve(dirname(fileURLToPath(import.meta.url)), '../..');
/** Preloaded into every server a test starts, so that none outlives the test process. */
export const EXIT_WITH_PARENT = join(ROOT, 'test/support/exit-with-parent.mjs');
export const FIXTURE = 'test/fixtures/reference-data.json';
/**
 * The command line and the server as the tests run them: the compiled build, which the global
 * setup makes from the sources before any test (as `npm start` does). The sources through tsx's
 * loader (bin/vacaciones.mjs, `npm run cli`) took some 0.6 s more to start, on hundreds of runs.
 */
export const CLI = 'dist/cli/run.js';

/** The fixture as data, a fresh copy each time, so a test may change it freely. */
export function loadFixture(): any {
  return JSON.parse(readFileSync(join(ROOT, FIXTURE), 'utf8'));
}

/** The service's "today" in every acceptance run, so accruals and contract states are fixed. */
export const TODAY = '2026-11-21';

export interface CliResult {
  code: number | null;
  stdout: string;
  stderr: string;
}

export interface KeySpec {
  name: string;
  /** Scopes given to `apikey create --scope`; none means the CLI default (vacaciones and contratos:verificar). */
  scopes?: string[];
  /** The administrator the key is bound to (`apikey create --usuario`); none for a system's key. */
  user?: string;
}

export interface StartOptions {
  /** Extra environment for the server process (and the CLI runs). */
  env?: Record<string, string>;
  /** Keys to create before the server starts; by default one key named "acceptance" with the default scopes. */
  keys?: KeySpec[];
  /** Runs after the import and key creation, before the server opens the database. */
  beforeStart?: (cliEnv: NodeJS.ProcessEnv) => Promise<void>;
}

export interface TestServer {
  /** Base address, e.g. http://127.0.0.1:41234 (no trailing slash). */
  url: string;
  /** The server process's id, for measuring it from outside. */
  pid: number;
  /** Environment the CLI and server share (database location included). */
  env: NodeJS.ProcessEnv;
  /** Key secrets by name. */
  keys: Record<string, string>;
  /** True on a PostgreSQL server; false on PGlite, where the CLI cannot run while the server holds the database. */
  postgres: boolean;
  /** Output of the fixture import. */
  importResult: CliResult;
  cli(args: string[]): Promise<CliResult>;
  stop(): Promise<void>;
  /** Everything the server wrote to stdout so far. */
  logs(): string;
  /** Everything the server wrote to stderr so far. */
  stderr(): string;
}

/** The JSON lines the server has logged so far, parsed (pino writes one object per line). */
export function logLines<T = Record<string, unknown>>(srv: Pick<TestServer, 'logs'>): T[] {
  return srv
    .logs()
    .split('\n')
    .filter((l) => l.startsWith('{'))
    .map((l) => JSON.parse(l) as T);
}

/**
 * Whether the import brought the fixture's two historic vacations in. It does only where a
 * historic importer is configured, so tests that rely on those records check this first.
 */
export function importedHistoric(srv: TestServer): boolean {
  return /historic vacations: imported 2\b/.test(srv.importResult.stdout);
}
/** Days of worker 1001 that the fixture's historic vacations take, once imported. */
export const HISTORIC_DAYS_1001 = 10;

export function runCli(env: NodeJS.ProcessEnv, args: string[]): Promise<CliResult> {
  return new Promise((resolvePromise, reject) => {
    const child = spawn(process.execPath, [CLI, ...args], { cwd: ROOT, env });
    let stdout = '';
    let stderr = '';
    child.stdout.on('data', (d) => (stdout += d));
    child.stderr.on('data', (d) => (stderr += d));
    child.on('error', reject);
    child.on('close', (code) => resolvePromise({ code, stdout, stderr }));
  });
}

function lastLine(s: string): string {
  return (
    s
      .split('\n')
      .filter((l) => l.trim() !== '')
      .at(-1)
      ?.trim() ?? ''
  );
}

async function createKey(env: NodeJS.ProcessEnv, spec: KeySpec): Promise<string> {
  const args = ['apikey', 'create', '--name', spec.name];
  for (const s of spec.scopes ?? []) args.push('--scope', s);
  if (spec.user) args.push('--usuario', spec.user);
  const r = await runCli(env, args);
  if (r.code !== 0) throw new Error(`apikey create ${spec.name} failed (${r.code}): ${r.stderr}`);
  return lastLine(r.stdout);
}

/** Resolves with the server's address once it logs that it listens. */
export function waitForListening(child: ChildProcess, out: () => string, err: () => string, timeoutMs: number): Promise<string> {
  return new Promise((resolvePromise, reject) => {
    const timer = setTimeout(() => {
      cleanup();
      reject(new Error(`server did not start within ${timeoutMs} ms\nstdout:\n${out()}\nstderr:\n${err()}`));
    }, timeoutMs);
    const check = () => {
      for (const line of out().split('\n')) {
        if (!line.includes('vacaciones service listening')) continue;
        try {
          const address = (JSON.parse(line) as { address?: string }).address;
          if (address) {
            cleanup();
            resolvePromise(address.replace(/\/$/, ''));
            return;
          }
        } catch {
          // A partial line: the rest arrives with the next chunk.
        }
      }
    };
    const onExit = (code: number | null, signal: string | null) => {
      cleanup();
      reject(new Error(`server exited before listening (code ${code}, signal ${signal})\nstdout:\n${out()}\nstderr:\n${err()}`));
    };
    const cleanup = () => {
      clearTimeout(timer);
      child.stdout?.off('data', check);
      child.off('exit', onExit);
    };
    child.stdout?.on('data', check);
    child.on('exit', onExit);
    check();
  });
}

/** Keys every PGlite template carries, so most files need no CLI run of their own. */
const TEMPLATE_KEYS: KeySpec[] = [
  { name: 'acceptance' },
  { name: 'solo-contratos', scopes: ['contratos:verificar'] },
  { name: 'solo-vacaciones', scopes: ['vacaciones'] },
  { name: 'revocable' },
];

interface TemplateMeta {
  importResult: CliResult;
  keys: Record<string, string>;
}

function filesUnder(dir: string): string[] {
  return readdirSync(dir, { withFileTypes: true }).flatMap((e) => {
    const p = join(dir, e.name);
    return e.isDirectory() ? filesUnder(p) : [p];
  });
}

/** Changes whenever the fixture or any source file changes, so a template never outlives its code. */
function sourceHash(): string {
  const h = createHash('sha256');
  for (const f of [join(ROOT, FIXTURE), join(ROOT, 'bin/vacaciones.mjs'), ...filesUnder(join(ROOT, 'src')).sort()]) {
    h.update(relative(ROOT, f)).update('\0').update(readFileSync(f)).update('\0');
  }
  return h.digest('hex').slice(0, 16);
}

const sleep = (ms: number) => new Promise((r) => setTimeout(r, ms));

/**
 * A PGlite data directory with the fixture imported and TEMPLATE_KEYS created, built once per
 * source version and copied by every file: a PGlite import is the slowest step of a start, and
 * it costs several times more while the other files' servers share the CPU.
 */
async function pgliteTemplate(): Promise<{ dir: string; meta: TemplateMeta }> {
  const root = join(tmpdir(), 'vac-acc-templates');
  mkdirSync(root, { recursive: true });
  const hash = sourceHash();
  const dir = join(root, hash);
  const lock = `${dir}.lock`;
  const deadline = Date.now() + 180_000;
  for (;;) {
    if (existsSync(join(dir, 'meta.json'))) {
      return { dir, meta: JSON.parse(readFileSync(join(dir, 'meta.json'), 'utf8')) as TemplateMeta };
    }
    let builder = false;
    try {
      mkdirSync(lock);
      builder = true;
    } catch {
      // Another process builds it; a lock left by a killed run is taken over after a while.
      try {
        if (Date.now() - statSync(lock).mtimeMs > 120_000) rmSync(lock, { recursive: true, force: true });
      } catch {
        // Gone meanwhile.
      }
    }
    if (builder) {
      const building = mkdtempSync(join(root, `${hash}.building-`));
      try {
        const env = { ...process.env, DATABASE_URL: '', DATA_DIR: building, LOG_LEVEL: 'silent' };
        const importResult = await runCli(env, ['import', FIXTURE]);
        if (importResult.code !== 0) throw new Error(`import failed (${importResult.code}): ${importResult.stderr}`);
        const keys: Record<string, string> = {};
        for (const k of TEMPLATE_KEYS) keys[k.name] = await createKey(env, k);
        writeFileSync(join(building, 'meta.json'), JSON.stringify({ importResult, keys } satisfies TemplateMeta));
        renameSync(building, dir);
        for (const old of readdirSync(root)) {
          const p = join(root, old);
          // Templates of other source versions, unless a run may still be copying them.
          if (!old.startsWith(hash) && Date.now() - statSync(p).mtimeMs > 600_000) rmSync(p, { recursive: true, force: true });
        }
      } finally {
        rmSync(building, { recursive: true, force: true });
        rmSync(lock, { recursive: true, force: true });
      }
      continue;
    }
    if (Date.now() > deadline) throw new Error(`the PGlite template ${dir} was not built within 180 s`);
    await sleep(200);
  }
}

/**
 * A real server process over a database of its own: the fixture is imported and the keys created
 * through the CLI first (on PGlite, which admits one process at a time, into the template this
 * database is copied from), then `vacaciones serve` starts.
 */
export async function startTestServer(opts: StartOptions = {}): Promise<TestServer> {
  const t = await freshDb();
  const postgres = t.url !== undefined;
  let dataDir: string | undefined;
  if (!postgres) {
    // The in-memory PGlite of freshDb is of no use to another process.
    await t.drop();
    dataDir = mkdtempSync(join(tmpdir(), 'vac-acc-run-'));
  }
  const env: NodeJS.ProcessEnv = {
    ...process.env,
    DATABASE_URL: postgres ? t.url : '',
    DATA_DIR: dataDir ?? '',
    VACACIONES_TODAY: TODAY,
    HOST: '127.0.0.1',
    PORT: '0',
    LOG_LEVEL: 'info',
    ...opts.env,
  };
  const cliEnv: NodeJS.ProcessEnv = { ...env, LOG_LEVEL: 'silent' };
  const cleanupDb = async () => {
    if (postgres) await t.drop().catch(() => {});
    else if (dataDir) rmSync(dataDir, { recursive: true, force: true });
  };

  let child: ChildProcess | undefined;
  try {
    const specs = opts.keys ?? [{ name: 'acceptance' }];
    const keys: Record<string, string> = {};
    let importResult: CliResult;
    if (postgres) {
      importResult = await runCli(cliEnv, ['import', FIXTURE]);
      if (importResult.code !== 0) throw new Error(`import failed (${importResult.code}): ${importResult.stderr}`);
      const made = await Promise.all(specs.map((s) => createKey(cliEnv, s)));
      specs.forEach((s, i) => (keys[s.name] = made[i]!));
    } else {
      const template = await pgliteTemplate();
      cpSync(template.dir, dataDir!, { recursive: true });
      rmSync(join(dataDir!, 'meta.json'), { force: true });
      importResult = template.meta.importResult;
      const same = (a: KeySpec, b: KeySpec) =>
        a.name === b.name && a.user === b.user && [...(a.scopes ?? [])].sort().join() === [...(b.scopes ?? [])].sort().join();
      for (const s of specs) {
        keys[s.name] = TEMPLATE_KEYS.some((t) => same(t, s)) ? template.meta.keys[s.name]! : await createKey(cliEnv, s);
      }
    }
    await opts.beforeStart?.(cliEnv);

    let out = '';
    let err = '';
    const proc = spawn(process.execPath, ['--import', EXIT_WITH_PARENT, CLI, 'serve'], {
      cwd: ROOT,
      env,
      stdio: ['pipe', 'pipe', 'pipe'],
    });
    child = proc;
    proc.stdout.setEncoding('utf8');
    proc.stderr.setEncoding('utf8');
    proc.stdout.on('data', (d: string) => (out += d));
    proc.stderr.on('data', (d: string) => (err += d));
    const exited = new Promise<void>((r) => proc.once('exit', () => r()));
    const url = await waitForListening(
      proc,
      () => out,
      () => err,
      45_000,
    );

    let stopped = false;
    return {
      url,
      pid: proc.pid!,
      env: cliEnv,
      keys,
      postgres,
      importResult,
      cli: (args) => runCli(cliEnv, args),
      logs: () => out,
      stderr: () => err,
      async stop() {
        if (stopped) return;
        stopped = true;
        if (proc.exitCode === null && proc.signalCode === null) {
          proc.kill('SIGTERM');
          const timer = setTimeout(() => proc.kill('SIGKILL'), 20_000);
          await exited;
          clearTimeout(timer);
        }
        await cleanupDb();
      },
    };
  } catch (e) {
    if (child && child.exitCode === null) child.kill('SIGKILL');
    await cleanupDb();
    throw e;
  }
}
