import { spawn, type ChildProcess } from 'node:child_process';
import { createHash, randomBytes } from 'node:crypto';
import { resolve } from 'node:path';
import { createWriteStream, readFileSync } from 'node:fs';
import pg from 'pg';

export interface Figures {
  name: string;
  requestsPerSec: number;
  p50: number;
  p99: number;
  ok: number;
  non2xx: number;
  /** The status the scenario expects, when not any 2xx. */
  expected?: number;
  /** Of the non-2xx answers, the refusals (422): answers of the service, not failures. */
  refused?: number;
  errors: number;
  /** Answers by HTTP status. */
  statuses?: Record<string, number>;
  note?: string;
}

export interface Scenario {
  name: string;
  kind: 'hello' | 'calculate' | 'consult' | 'add' | 'page';
  url: string;
  connections: number;
  durationSec: number;
  /** Requests to send instead of running for durationSec. */
  amount?: number;
  key?: string;
  first?: number;
  workers?: number;
  /** Status counted as success (default 2xx). */
  okStatus?: number;
  /** Workers asked in turn (default) or at random, each with the same chance. */
  pick?: 'turn' | 'random';
  /** kinds 'calculate' and 'add': a JSON file of the requests bench/data.ts planned; `first` and `workers` choose a window of it. */
  plan?: string;
  /** First digit of the generated document numbers (default 9, bench/http.ts's dataset). */
  documentPrefix?: string;
  /** kind 'page': the path, with {doc}, {unit}, {month} and {q} filled in per request (see load-generator.mjs). */
  path?: string;
  units?: string[];
  months?: string[];
  queries?: string[];
  /** kind 'page': the signed-in session's cookie. */
  cookie?: string;
}

/**
 * A panel account for the benchmarks (created in the database) and a session signed in with it
 * through the sign-in form, as a browser would: the cookie to send with every page.
 */
export async function panelSession(dbUrl: string, baseUrl: string): Promise<string> {
  const { PostgresDb } = await import('../src/db/postgres.ts');
  const { acceptInvite, createInvite } = await import('../src/panel/accounts.ts');
  const db = new PostgresDb({ connectionString: dbUrl, max: 1 });
  const password = 'contraseña-de-las-pruebas';
  try {
    const invite = await createInvite(db, 'admin@empresa.co');
    await acceptInvite(db, invite.token, password);
  } finally {
    await db.close();
  }
  const cookieOf = (r: Response) =>
    r.headers
      .getSetCookie()
      .map((c) => c.split(';')[0]!)
      .join('; ');
  const form = await fetch(`${baseUrl}/panel/ingresar`);
  const csrf = /name="_csrf" value="([^"]+)"/.exec(await form.text())![1]!;
  const signed = await fetch(`${baseUrl}/panel/ingresar`, {
    method: 'POST',
    redirect: 'manual',
    headers: { cookie: cookieOf(form), 'content-type': 'application/x-www-form-urlencoded' },
    body: new URLSearchParams({ _csrf: csrf, email: 'admin@empresa.co', password }).toString(),
  });
  if (signed.status !== 303) throw new Error(`panel sign-in for the benchmark failed: ${signed.status}`);
  return cookieOf(signed);
}

/** Runs one scenario from a load generator process of its own (bench/load-generator.mjs). */
export async function runScenario(s: Scenario): Promise<Figures> {
  // Asynchronous, so that this process keeps draining the server's output meanwhile.
  const child = spawn(process.execPath, [resolve('bench/load-generator.mjs'), JSON.stringify({ first: 0, workers: 1, ...s })]);
  let out = '';
  let err = '';
  child.stdout.on('data', (d: Buffer) => (out += d.toString()));
  child.stderr.on('data', (d: Buffer) => (err += d.toString()));
  const code = await new Promise<number | null>((r) => child.once('exit', r));
  if (code !== 0) throw new Error(`load generator failed for ${s.name}:\n${err}`);
  const f = JSON.parse(out.trim().split('\n').pop()!) as Omit<Figures, 'name'>;
  return { name: s.name, expected: s.okStatus, ...f };
}

export interface Child {
  proc: ChildProcess;
  url: string;
  output: () => string;
  /** Peak resident set size so far, from /proc (VmHWM), in MB. */
  peakRssMb: () => number;
  stop: () => Promise<void>;
}

/** Starts a process that prints its listening address, and waits for it. */
export async function startChild(cmd: string, args: string[], env: Record<string, string>, addressRe: RegExp): Promise<Child> {
  const proc = spawn(cmd, args, { env: { ...process.env, ...env }, stdio: ['ignore', 'pipe', 'pipe'] });
  let out = '';
  const url = await new Promise<string>((resolve, reject) => {
    const timer = setTimeout(() => reject(new Error(`did not start:\n${out}`)), 60_000);
    const onData = (d: Buffer) => {
      // Keep the tail only: a server logging every request would otherwise grow this without end.
      out = (out + d.toString()).slice(-20_000);
      const m = addressRe.exec(out);
      if (m) {
        clearTimeout(timer);
        // From here on the output is drained unread: copying a busy server's log in this process
        // would take CPU from the load generator running beside it and distort the figures.
        // BENCH_SERVER_LOG keeps it in a file instead (every request's line and time), to study.
        proc.stdout!.off('data', onData);
        if (process.env.BENCH_SERVER_LOG) proc.stdout!.pipe(createWriteStream(process.env.BENCH_SERVER_LOG));
        else proc.stdout!.resume();
        resolve(m[1]!);
      }
    };
    proc.stdout!.on('data', onData);
    proc.stderr!.on('data', (d: Buffer) => (out = (out + d.toString()).slice(-20_000)));
    proc.once('exit', (code) => reject(new Error(`exited with ${code}:\n${out}`)));
  });
  return {
    proc,
    url,
    output: () => out,
    peakRssMb: () => {
      if (proc.exitCode !== null || proc.signalCode !== null)
        throw new Error(`the process stopped while measured (${proc.exitCode ?? proc.signalCode}):\n${out.slice(-3000)}`);
      const m = /VmHWM:\s+(\d+) kB/.exec(readFileSync(`/proc/${proc.pid}/status`, 'utf8'));
      return m ? Math.round(Number(m[1]) / 1024) : NaN;
    },
    stop: () =>
      new Promise<void>((resolve) => {
        // A process killed by a signal (an abort when its heap ran out) has a signal and no code.
        if (proc.exitCode !== null || proc.signalCode !== null) return resolve();
        proc.once('exit', () => resolve());
        proc.kill('SIGTERM');
      }),
  };
}

/**
 * The compiled server as `npm start` runs it once built (`node --max-old-space-size=<heapMb>
 * dist/cli/run.js serve [serveArgs]`, BENCH_SERVER_NODE_ARGS added to its node: e.g.
 * "--cpu-prof --cpu-prof-dir=bench/results" to profile it), on a port of its own, once it answers
 * ready.
 */
export async function startService(databaseUrl: string, today: string, heapMb: number, serveArgs: readonly string[] = []): Promise<Child> {
  const server = await startChild(
    process.execPath,
    [`--max-old-space-size=${heapMb}`, ...envWords('BENCH_SERVER_NODE_ARGS'), resolve('dist/cli/run.js'), 'serve', ...serveArgs],
    { DATABASE_URL: databaseUrl, PORT: '0', HOST: '127.0.0.1', LOG_LEVEL: 'info', VACACIONES_TODAY: today, RATE_LIMIT_PER_MINUTE: '0' },
    /"address":"(http:\/\/[^"]+)"/,
  );
  while (
    !(await fetch(`${server.url}/health/ready`).then(
      (r) => r.ok,
      () => false,
    ))
  )
    await new Promise((r) => setTimeout(r, 50));
  return server;
}

/**
 * The bare fastify hello-world in a process of its own, loaded as a scenario is: this machine's
 * ceiling for HTTP at that moment.
 */
export async function bareFastify(name: string, connections: number, durationSec: number): Promise<Figures> {
  const hello = await startChild(
    process.execPath,
    [
      '-e',
      "const f=require('fastify')();f.get('/',async()=>({hello:'world'}));f.listen({port:0,host:'127.0.0.1'}).then(a=>console.log('listening '+a))",
    ],
    {},
    /listening (http:\/\/\S+)/,
  );
  try {
    return await runScenario({ name, kind: 'hello', url: hello.url, connections, durationSec });
  } finally {
    await hello.stop();
  }
}

/** The hello-world's figures a scenario is set beside. */
export interface Ceiling {
  requestsPerSec: number;
  p99: number;
}

/**
 * The ceiling the scenarios are set beside, of the hello-world measured once or more in a run: the
 * faster of the measures (the higher rate, the lower p99), so that a slow moment of the machine
 * during one does not flatter the shares; and a line saying how far apart they were.
 */
export function fasterCeiling(measures: readonly Figures[]): Ceiling & { spread: string } {
  const rates = measures.map((r) => r.requestsPerSec);
  const apart = (Math.max(...rates) / Math.min(...rates) - 1) * 100;
  return {
    requestsPerSec: Math.max(...rates),
    p99: Math.min(...measures.map((r) => r.p99)),
    spread:
      measures.length < 2
        ? ''
        : `ceiling measured ${measures.length} times: ${rates.join(', ')} req/s (${apart.toFixed(0)}% apart); shares are of the faster` +
          (apart > 15 ? ': the machine changed speed during the run, so compare its figures with care' : ''),
  };
}

/** A scenario's share of the ceiling's requests per second, and its p99 over the ceiling's. */
export function besideCeiling(f: Pick<Figures, 'requestsPerSec' | 'p99'>, c: Ceiling) {
  return { share: `${((f.requestsPerSec / c.requestsPerSec) * 100).toFixed(1)}%`, ratio: `${(f.p99 / Math.max(c.p99, 1)).toFixed(1)}×` };
}

/**
 * The figures as a table. Beside each scenario, its share of the bare hello-world's requests per
 * second and its p99 over the hello-world's, when the first row is that hello-world of the same
 * run. Where it was measured again after the scenarios (a row named `ceiling` too), each scenario
 * is set beside the faster of the two (the higher rate, the lower p99), so that a slow moment of
 * the machine during one measure does not flatter the shares; a line says how far the two apart.
 * Answers are split into those the scenario expects (ok: 2xx, or the status it names), refusals
 * (422) when it expects something else, any other answer, and errors (sockets, timeouts).
 */
export function printTable(rows: Figures[], extra: Record<string, string | number> = {}): void {
  const ceilings = rows[0]?.name.startsWith('ceiling') ? rows.filter((r) => r.name.startsWith('ceiling')) : [];
  const ceilingRow = ceilings.length ? fasterCeiling(ceilings) : undefined;
  const header = ['scenario', 'req/s', 'share', 'p50 ms', 'p99 ms', 'p99 ratio', 'ok', '422', 'other', 'errors', 'note'];
  const lines = rows.map((r) => {
    const refused = r.refused ?? 0;
    const expects422 = r.expected === 422;
    // A load, not a single download (the register's), is what compares with the hello-world.
    const beside = ceilingRow && !ceilings.includes(r) && r.ok + r.non2xx + r.errors > 1;
    const { share, ratio } = beside ? besideCeiling(r, ceilingRow) : { share: '', ratio: '' };
    // Whatever is neither the expected answer nor a refusal: other non-2xx, or a 2xx where a 422 was expected.
    const answers = Object.values(r.statuses ?? {}).reduce((a, b) => a + b, 0);
    const other = answers - r.ok - (expects422 ? 0 : refused);
    return [r.name, r.requestsPerSec, share, r.p50, r.p99, ratio, r.ok, expects422 ? '(ok)' : refused, other, r.errors, r.note ?? ''].map(
      String,
    );
  });
  const widths = header.map((h, i) => Math.max(h.length, ...lines.map((l) => l[i]!.length)));
  const last = header.length - 1;
  const fmt = (cells: string[]) => cells.map((c, i) => (i === 0 || i === last ? c.padEnd(widths[i]!) : c.padStart(widths[i]!))).join('  ');
  console.log(fmt(header));
  for (const l of lines) console.log(fmt(l));
  if (ceilingRow?.spread) console.log(ceilingRow.spread);
  for (const [k, v] of Object.entries(extra)) console.log(`${k}: ${v}`);
}

/**
 * The machine's ceiling, measured in the same run: one core hashing (SHA-256 of a 1 MB buffer)
 * and turning a 1 KB row to JSON and back; and the database server inserting 300,000 narrow
 * rows with one index in one statement (a fixed amount of work in the same server).
 */
export async function ceiling(url: string): Promise<string> {
  const buffer = randomBytes(1 << 20);
  let t0 = performance.now();
  let n = 0;
  while (performance.now() - t0 < 1000) {
    createHash('sha256').update(buffer).digest();
    n++;
  }
  const sha = Math.round(n / ((performance.now() - t0) / 1000));
  const row = { id: 1, data: 'x'.repeat(900), list: [1, 2, 3], nested: { a: true, b: null, c: 'texto' } };
  t0 = performance.now();
  n = 0;
  while (performance.now() - t0 < 1000) {
    JSON.parse(JSON.stringify(row));
    n++;
  }
  const json = Math.round(n / ((performance.now() - t0) / 1000));
  const c = new pg.Client({ connectionString: url });
  await c.connect();
  await c.query('CREATE TABLE ceiling (id bigint PRIMARY KEY, note text)');
  t0 = performance.now();
  await c.query(`INSERT INTO ceiling SELECT g, md5(g::text) FROM generate_series(1, 300000) g`);
  const inserts = Math.round(300_000 / ((performance.now() - t0) / 1000));
  await c.query('DROP TABLE ceiling');
  await c.end();
  return `${sha} MB/s SHA-256, ${json} JSON round trips of a 1 KB row/s (one core); PostgreSQL ${inserts} indexed rows/s`;
}

/**
 * Runs `fn` on a database of its own, created on the admin connection's server and dropped
 * afterwards with its connections (left for a closer look when `keep`, and its address printed).
 */
export async function withFreshDatabase<T>(admin: string, prefix: string, fn: (url: string) => Promise<T>, keep = false): Promise<T> {
  const name = `${prefix}_${process.pid}_${randomBytes(3).toString('hex')}`;
  const c = new pg.Client({ connectionString: admin });
  await c.connect();
  await c.query(`CREATE DATABASE ${name}`);
  const u = new URL(admin);
  u.pathname = `/${name}`;
  try {
    return await fn(u.toString());
  } finally {
    if (keep) console.log(`kept database ${u.toString()}`);
    else await c.query(`DROP DATABASE IF EXISTS ${name} WITH (FORCE)`);
    await c.end();
  }
}

/** The text given on the command line as `--name <text>`, or `def`. */
export function textOption(name: string, def: string): string {
  const i = process.argv.indexOf(`--${name}`);
  return i > 0 ? (process.argv[i + 1] ?? def) : def;
}

/** The number given on the command line as `--name <n>`, or `def`. */
export const numberOption = (name: string, def: number): number => Number(textOption(name, String(def)));

/** The words of an environment variable (extra options passed through to a process), none when unset. */
export const envWords = (name: string): string[] => (process.env[name] ?? '').split(' ').filter(Boolean);
