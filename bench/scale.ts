/**
 * A large employer: 50,000 workers, one contract, 12 payroll sheets and 5 historic vacations each
 * (250,000). Measures, each in a database of its own on DATABASE_URL's server:
 *   - import: the whole `vacaciones import` command of the generated file (the compiled build, as
 *     in production), its wall time and the process's peak RSS, for the JSON and NDJSON files;
 *   - rebuild: after that import (some 720,000 events) and generated activity appended through
 *     the event store (300,000 more: a vacation created, booked and approved and two audited
 *     queries per worker), the whole `vacaciones projections rebuild` command over the 1,020,000
 *     events: events per second of wall time and peak RSS;
 *   - serve: the compiled server on that database, from its start to ready; consult and calculate
 *     asked at random over 2,000 workers and over all of them, on the same server in the same
 *     run, and the ratio; its peak RSS and every 5xx; beside a bare fastify hello-world.
 * Every run first measures the machine's ceiling (see ceiling()), so runs of different days can be
 * compared. The data files are generated once under bench/results/ (deterministic) and reused.
 *
 *   DATABASE_URL=postgres://postgres@127.0.0.1:5432/postgres npm run bench:scale
 *   npm run bench:scale -- --runs 3 --workers 50000 --formats json,ndjson --only import,rebuild,serve
 *   npm run bench:scale -- --only serve --duration 10 --connections 32 --few 2000 --heap 160
 *   npm run bench:scale -- --only serve --kinds calculate --database vac_scale_1_abc
 *   npm run bench:scale -- --regenerate          (write the data files again)
 *   npm run bench:scale -- --keep                (leave the last database for a closer look)
 *   npm run bench:scale -- --only serve --database vac_scale_1_abc   (serve a kept database again)
 *   npm run bench:scale -- --formats json --only import,rebuild,panel   (the panel's pages over that data)
 *   npm run bench:scale -- --formats json --only law   (periods and the whole register over that data)
 *
 * Sections are named in SECTIONS; another scenario is a function of the same shape added there,
 * with the database its predecessors left behind.
 */
import { spawn } from 'node:child_process';
import { randomBytes, randomUUID } from 'node:crypto';
import { existsSync, mkdirSync, statSync } from 'node:fs';
import os from 'node:os';
import { resolve } from 'node:path';
import { execSync } from 'node:child_process';
import pg from 'pg';
import { migrate } from '../src/db/migrations.ts';
import { PostgresDb } from '../src/db/postgres.ts';
import { encode } from '../src/events/codec.ts';
import { auditStream, pilaStream, unitStream, workerStream } from '../src/events/streams.ts';
import type { DomainEvent, EventMetadata } from '../src/events/types.ts';
import { PostgresEventStore } from '../src/store/postgres-store.ts';
import type { NewEvent, StreamWrite } from '../src/store/types.ts';
import { SCALE_DATA_VERSION, scaleDocument, writeScaleFile } from '../test/support/scale-dataset.ts';
import { ceiling, panelSession, runScenario, startChild, withFreshDatabase, type Child, type Figures } from './lib.ts';

function option(name: string, def: string): string {
  const i = process.argv.indexOf(`--${name}`);
  return i > 0 ? (process.argv[i + 1] ?? def) : def;
}
const WORKERS = Number(option('workers', '50000'));
const RUNS = Number(option('runs', '1'));
const FORMATS = option('formats', 'json,ndjson').split(',') as ('json' | 'ndjson')[];
const ONLY = option('only', 'import,rebuild,serve').split(',');
/** Seconds each load of the serve section runs, the connections it keeps open, the server's heap. */
const DURATION = Number(option('duration', '10'));
const CONNECTIONS = Number(option('connections', '32'));
const HEAP_MB = Number(option('heap', process.env.VACACIONES_HEAP_MB ?? '160'));
/** The queries the serve section measures. */
const KINDS = option('kinds', 'consult,calculate').split(',') as ('consult' | 'calculate')[];
/** The workers of the small working set the serve section compares with all of them. */
const FEW = Number(option('few', '2000'));
/** Measured loads of each kind and working set, alternating between the two sets. */
const ROUNDS = Number(option('rounds', '2'));
/** An existing database of the server to run on instead of a fresh one (kept afterwards). */
const DATABASE = option('database', '');
const admin = process.env.DATABASE_URL;
if (!admin) {
  console.error('bench/scale.ts needs DATABASE_URL (a PostgreSQL server it may create databases on)');
  process.exit(2);
}

/** The generated file of this size and format, written once (or again with --regenerate). */
async function dataFile(format: 'json' | 'ndjson'): Promise<string> {
  const dir = resolve('bench/results');
  mkdirSync(dir, { recursive: true });
  // The generator's version is in the name, so that a file of an older generator is never reused.
  const path = `${dir}/scale-${WORKERS}-${SCALE_DATA_VERSION}.${format}`;
  if (!existsSync(path) || process.argv.includes('--regenerate')) {
    const t0 = performance.now();
    await writeScaleFile(path, format, { workers: WORKERS });
    console.log(`generated ${path} (${mb(statSync(path).size)} MB) in ${secs(t0)} s`);
  }
  return path;
}

const mb = (bytes: number) => Math.round(bytes / 2 ** 20);
const secs = (t0: number) => ((performance.now() - t0) / 1000).toFixed(1);

interface Finished {
  seconds: number;
  peakRssMb: number;
  /** CPU time of the command's own process (not the database's), in seconds. */
  cpuSeconds: number;
  stdout: string;
}

/**
 * Runs a command of the compiled CLI to its end: wall time, and its peak RSS as the process
 * itself reports it on exit (bench/peak-rss.cjs).
 */
function cli(url: string, args: string[]): Promise<Finished> {
  return new Promise((done, fail) => {
    const t0 = performance.now();
    const child = spawn(process.execPath, ['-r', resolve('bench/peak-rss.cjs'), resolve('dist/cli/run.js'), ...args], {
      env: { ...process.env, DATABASE_URL: url, LOG_LEVEL: 'warn' },
      stdio: ['ignore', 'pipe', 'pipe'],
    });
    let out = '';
    let err = '';
    child.stdout.on('data', (d: Buffer) => (out += d.toString()));
    child.stderr.on('data', (d: Buffer) => (err += d.toString()));
    child.once('exit', (code) => {
      const seconds = (performance.now() - t0) / 1000;
      const m = /peak-rss-kb (\d+) cpu-us (\d+)/.exec(err);
      if (code !== 0 || !m) fail(new Error(`${args.join(' ')} failed (${code}):\n${out}\n${err}`));
      else done({ seconds, peakRssMb: Math.round(Number(m[1]) / 1024), cpuSeconds: Number(m[2]) / 1e6, stdout: out });
    });
  });
}

const meta = (): EventMetadata => ({
  userId: 1,
  userEmail: 'admin@empresa.co',
  apiKeyId: null,
  apiKeyName: 'bench',
  requestId: randomUUID(),
  correlationId: null,
  idempotencyKey: null,
  occurredAt: '2026-02-01T15:00:00.000Z',
  source: 'http',
});
const ev = (e: DomainEvent): NewEvent => encode(e, meta(), randomUUID());

/** A worker's activity after the import: a vacation created, booked and approved, and two audited queries. */
function activity(w: number): StreamWrite[] {
  const code = `VAC_1800000000000_${w.toString(16).padStart(8, '0')}_0000beef`;
  const unit = `SG-${String(1 + (w % 100)).padStart(3, '0')}`;
  const record = {
    recordId: 10_000_000 + w,
    codigoPila: code,
    workerId: w,
    documentNumber: scaleDocument(w),
    contractId: w,
    companyContractId: 1,
    subgerenciaId: unit,
    startDate: '2026-03-02',
    endDate: '2026-03-13',
    businessDays: 10,
    calendarDays: 12,
    salary: 2_000_000,
    totalValue: 666_667,
    advance: false,
    worksSaturday: false,
    compensated: false,
    socialSecurityInPayroll: true,
    amortizations: [{ periodo: '2026-03', diasHabiles: 10, diasCalendario: 12, valor: 666_667 }],
    replaces: null,
    createdAt: '2026-02-01T15:00:00.000Z',
  };
  return [
    {
      stream: workerStream(w),
      expectedRevision: 'any',
      events: [
        ev({ type: 'VacationCreated', data: record }),
        ev({ type: 'VacationApproved', data: { codigoPila: code, workerId: w, approvedByUserId: 1, approvedAt: '2026-02-02T10:00:00Z' } }),
      ],
    },
    {
      stream: pilaStream(code),
      expectedRevision: 'no_stream',
      events: [ev({ type: 'PilaCodeAssigned', data: { codigoPila: code, workerId: w } })],
    },
    {
      stream: unitStream(unit, '2026-03'),
      expectedRevision: 'any',
      events: [
        ev({
          type: 'SlotsBooked',
          data: { codigoPila: code, workerId: w, subgerenciaId: unit, startDate: '2026-03-02', endDate: '2026-03-13' },
        }),
      ],
    },
    {
      stream: auditStream(w),
      expectedRevision: 'any',
      events: [
        ev({
          type: 'VacationDataConsulted',
          data: {
            workerId: w,
            documentNumber: scaleDocument(w),
            outcome: { estado: 'ACTIVO' },
            companyContractId: 1,
            consultedAt: '2026-02-01T12:00:00Z',
          },
        }),
        ev({
          type: 'ContractStatusChecked',
          data: {
            workerId: w,
            documentNumber: scaleDocument(w),
            documentType: 'CC',
            estado: 'ACTIVO',
            activo: true,
            checkedAt: '2026-02-01T12:00:00Z',
          },
        }),
      ],
    },
  ];
}

/** Appends every worker's activity through the event store, 500 workers per append. */
async function appendActivity(url: string): Promise<number> {
  const db = new PostgresDb({ connectionString: url, max: 2 });
  const store = new PostgresEventStore(db);
  let appended = 0;
  try {
    for (let first = 1; first <= WORKERS; first += 500) {
      const byStream = new Map<string, StreamWrite>();
      for (let w = first; w < Math.min(first + 500, WORKERS + 1); w++) {
        for (const write of activity(w)) {
          const seen = byStream.get(write.stream);
          if (seen) seen.events.push(...write.events);
          else byStream.set(write.stream, { ...write, events: [...write.events] });
        }
      }
      const writes = [...byStream.values()];
      await store.append(writes);
      appended += writes.reduce((n, w) => n + w.events.length, 0);
    }
  } finally {
    await db.close();
  }
  return appended;
}

/** The database's size on disk, in MB. */
async function databaseMb(url: string): Promise<number> {
  const c = new pg.Client({ connectionString: url });
  await c.connect();
  try {
    return mb(Number((await c.query<{ n: string }>('SELECT pg_database_size(current_database())::text AS n')).rows[0]!.n));
  } finally {
    await c.end();
  }
}

async function withDatabase<T>(fn: (url: string) => Promise<T>): Promise<T> {
  const migrated = async (url: string) => {
    const db = new PostgresDb({ connectionString: url, max: 1 });
    await migrate(db);
    await db.close();
    return fn(url);
  };
  if (DATABASE) {
    const u = new URL(admin!);
    u.pathname = `/${DATABASE}`;
    return migrated(u.toString());
  }
  // --keep leaves the database for a closer look (a profile of a command, say).
  return withFreshDatabase(admin!, 'vac_scale', migrated, process.argv.includes('--keep'));
}

interface Context {
  url: string;
  lines: string[];
}

/** The import of each format into a database of its own; the first format's database goes on to the next sections. */
async function importSection(ctx: Context): Promise<void> {
  for (const [i, format] of FORMATS.entries()) {
    const file = await dataFile(format);
    const run = async (url: string) => {
      const r = await cli(url, ['import', file]);
      const historic = /historic vacations: imported (\d+)/.exec(r.stdout)?.[1];
      ctx.lines.push(
        `import ${format} (${mb(statSync(file).size)} MB, ${WORKERS} workers, ${historic} historic vacations): ${r.seconds.toFixed(1)} s (${r.cpuSeconds.toFixed(1)} s CPU in the command), peak RSS ${r.peakRssMb} MB`,
      );
    };
    if (i === 0) {
      await run(ctx.url);
      ctx.lines.push(`database after the import: ${await databaseMb(ctx.url)} MB`);
    } else await withDatabase(run);
  }
}

async function rebuildSection(ctx: Context): Promise<void> {
  if (!ONLY.includes('import')) await cli(ctx.url, ['import', await dataFile(FORMATS[0]!)]);
  const t0 = performance.now();
  const appended = await appendActivity(ctx.url);
  ctx.lines.push(`activity: ${appended} events appended through the event store in ${secs(t0)} s`);
  const r = await cli(ctx.url, ['projections', 'rebuild']);
  const events = Number(/: (\d+) events in/.exec(r.stdout)?.[1]);
  ctx.lines.push(
    `rebuild: ${events} events in ${r.seconds.toFixed(1)} s (whole command) = ${Math.round(events / r.seconds)} events/s (${r.cpuSeconds.toFixed(1)} s CPU in the command), peak RSS ${r.peakRssMb} MB`,
  );
  ctx.lines.push(`database after the rebuild: ${await databaseMb(ctx.url)} MB`);
}

/**
 * The compiled server as `npm start` runs it once built (`node --max-old-space-size=<heap>
 * dist/cli/run.js serve`), and its time from the spawn to its first ready answer.
 */
async function startServer(url: string): Promise<{ server: Child; readySeconds: number }> {
  const t0 = performance.now();
  const server = await startChild(
    process.execPath,
    [
      `--max-old-space-size=${HEAP_MB}`,
      // e.g. BENCH_SERVER_NODE_ARGS="--cpu-prof --cpu-prof-dir=bench/results" to profile the server
      ...(process.env.BENCH_SERVER_NODE_ARGS ?? '').split(' ').filter(Boolean),
      resolve('dist/cli/run.js'),
      'serve',
    ],
    { DATABASE_URL: url, PORT: '0', HOST: '127.0.0.1', LOG_LEVEL: 'info', VACACIONES_TODAY: '2026-11-21', RATE_LIMIT_PER_MINUTE: '0' },
    /"address":"(http:\/\/[^"]+)"/,
  );
  while (
    !(await fetch(`${server.url}/health/ready`).then(
      (r) => r.ok,
      () => false,
    ))
  )
    await new Promise((r) => setTimeout(r, 50));
  return { server, readySeconds: (performance.now() - t0) / 1000 };
}

const load = () =>
  os
    .loadavg()
    .map((l) => l.toFixed(1))
    .join(' ');
const fives = (f: Figures) => Object.entries(f.statuses ?? {}).reduce((n, [code, count]) => n + (code.startsWith('5') ? count : 0), 0);
const statusMix = (f: Figures) =>
  Object.entries(f.statuses ?? {})
    .map(([code, count]) => `${count}×${code}`)
    .join(' ');
const figures = (f: Figures) =>
  `${f.requestsPerSec} req/s, p50 ${f.p50} ms, p99 ${f.p99} ms (${statusMix(f)}${f.errors ? `, ${f.errors} errors` : ''})`;

/**
 * Consult and calculate on one server, asked at random over FEW workers and over all of them,
 * in the same run, the two sets in turn: throughput, latency, and the ratio of the two. Before
 * them, a pass over each set; the bare fastify hello-world beside them is this machine's ceiling
 * for HTTP at that moment. On a database that already holds the data (--database), nothing is
 * imported. Also the server's time from its start to ready, its peak RSS over the whole section,
 * and every 5xx it answered.
 */
/**
 * The employer's data on this database, imported once (its read models rebuilt, as on a server
 * that has been up), and a new API key for the section.
 */
async function importedWithKey(url: string): Promise<string> {
  const c = new pg.Client({ connectionString: url });
  await c.connect();
  let workers: number;
  try {
    workers = Number((await c.query<{ n: string }>('SELECT count(*)::text AS n FROM ref_workers')).rows[0]!.n);
  } finally {
    await c.end();
  }
  if (workers === 0) {
    await cli(url, ['import', await dataFile(FORMATS[0]!)]);
    // Read models current first (as after a rebuild, or a server that has been up): the start
    // measured is a restart, not the projectors' first pass over the import's events.
    await cli(url, ['projections', 'rebuild']);
  }
  return (await cli(url, ['apikey', 'create', '--name', `scale-${randomBytes(3).toString('hex')}`])).stdout.trim().split('\n').pop()!;
}

async function serveSection(ctx: Context): Promise<void> {
  const key = await importedWithKey(ctx.url);

  const hello = await startChild(
    process.execPath,
    [
      '-e',
      "const f=require('fastify')();f.get('/',async()=>({hello:'world'}));f.listen({port:0,host:'127.0.0.1'}).then(a=>console.log('listening '+a))",
    ],
    {},
    /listening (http:\/\/\S+)/,
  );
  const ceilingHttp = await runScenario({
    name: 'ceiling',
    kind: 'hello',
    url: hello.url,
    connections: CONNECTIONS,
    durationSec: DURATION,
  });
  await hello.stop();
  ctx.lines.push(`serve: ceiling, bare fastify hello-world: ${ceilingHttp.requestsPerSec} req/s (load average ${load()})`);

  const { server, readySeconds } = await startServer(ctx.url);
  let errors5xx = 0;
  try {
    ctx.lines.push(`serve: start to ready (/health/ready): ${readySeconds.toFixed(1)} s, heap limit ${HEAP_MB} MB`);
    for (const kind of KINDS) {
      const base = { url: server.url, connections: CONNECTIONS, key, first: 1, kind, documentPrefix: '8' };
      // A server that has been up: every worker of the set asked once, in turn (the JIT settles,
      // and the caches hold what they would hold after a while).
      for (const workers of [WORKERS, FEW])
        errors5xx += fives(await runScenario({ ...base, name: 'pass', workers, durationSec: 0, amount: workers }));
      const rates: Record<string, number[]> = { few: [], all: [] };
      for (let round = 1; round <= ROUNDS; round++) {
        for (const [set, workers] of [
          ['few', FEW],
          ['all', WORKERS],
        ] as const) {
          const f = await runScenario({ ...base, name: set, workers, pick: 'random', durationSec: DURATION });
          errors5xx += fives(f);
          rates[set]!.push(f.requestsPerSec);
          ctx.lines.push(
            `serve: ${kind} at random over ${set === 'few' ? `${FEW} workers` : `all ${WORKERS}`}: ${figures(f)} (load average ${load()})`,
          );
        }
      }
      const sum = (xs: number[]) => xs.reduce((a, b) => a + b, 0);
      ctx.lines.push(
        `serve: ${kind}, all ${WORKERS} / ${FEW} workers = ${((sum(rates.all!) / sum(rates.few!)) * 100).toFixed(0)}% (${ROUNDS} rounds each, alternating)`,
      );
    }
    ctx.lines.push(`serve: peak RSS of the server ${server.peakRssMb()} MB; answers 5xx: ${errors5xx}`);
  } finally {
    await server.stop();
  }
}

/**
 * The panel's pages over the whole employer: the compiled server on this database (its read
 * models rebuilt), signed in, each page asked for PANEL_SECONDS by PANEL_CONNECTIONS people at
 * once after a warm-up pass, workers and subgerencias spread over the whole data.
 */
const PANEL_CONNECTIONS = Number(option('panel-connections', '8'));
const PANEL_SECONDS = Number(option('panel-seconds', '10'));
async function panelSection(ctx: Context): Promise<void> {
  // The serve section, when it ran, left the read models current.
  if (!ONLY.includes('rebuild') && !ONLY.includes('serve')) {
    if (!ONLY.includes('import')) await cli(ctx.url, ['import', await dataFile(FORMATS[0]!)]);
    await cli(ctx.url, ['projections', 'rebuild']);
  }
  const { server } = await startServer(ctx.url);
  try {
    const cookie = await panelSession(ctx.url, server.url);
    const base = {
      url: server.url,
      connections: PANEL_CONNECTIONS,
      kind: 'page' as const,
      cookie,
      first: 1,
      workers: WORKERS,
      documentPrefix: '8',
      pick: 'random' as const,
    };
    const units = Array.from({ length: 100 }, (_, i) => `SG-${String(i + 1).padStart(3, '0')}`);
    const months = Array.from({ length: 27 }, (_, i) => `${2024 + Math.floor(i / 12)}-${String((i % 12) + 1).padStart(2, '0')}`);
    const pages = [
      { name: 'worker page', path: '/panel/trabajador/{doc}' },
      { name: 'occupancy page', path: '/panel/ocupacion?subgerencia={unit}&mes={month}', units, months },
      {
        name: 'search by name or document',
        path: '/panel/trabajador?q={q}',
        queries: ['nombre 1', 'Generado', 'nombre 4999', '8000012345', 'zz'],
      },
      { name: 'audit page', path: '/panel/auditoria?documento={doc}' },
      { name: 'operations page', path: '/panel/operacion' },
    ];
    for (const p of pages) {
      await runScenario({ ...base, ...p, name: 'warm-up', durationSec: 0, amount: 500 });
      const f = await runScenario({ ...base, ...p, durationSec: PANEL_SECONDS });
      ctx.lines.push(`panel: ${p.name}: ${figures(f)}, ${PANEL_CONNECTIONS} connections (load average ${load()})`);
    }
    ctx.lines.push(`service peak RSS while serving the panel: ${server.peakRssMb()} MB`);
  } finally {
    await server.stop();
  }
}

/**
 * The vacation law's reads over the whole employer: a worker's accrual periods at random, then the
 * whole company's register (GET /api/vacaciones/libro) in each format read to its end: its time,
 * its size, and the server's peak RSS, which must not grow with the company.
 */
async function lawSection(ctx: Context): Promise<void> {
  const key = await importedWithKey(ctx.url);
  const { server } = await startServer(ctx.url);
  try {
    const base = {
      url: server.url,
      connections: CONNECTIONS,
      key,
      kind: 'page' as const,
      first: 1,
      workers: WORKERS,
      documentPrefix: '8',
      pick: 'random' as const,
      path: '/api/vacaciones/periodos?numeroDocumento={doc}&emailResponsable=admin@empresa.co',
    };
    await runScenario({ ...base, name: 'warm-up', durationSec: 0, amount: FEW });
    const f = await runScenario({ ...base, name: 'periods', durationSec: DURATION });
    ctx.lines.push(`law: periods of a worker at random over all ${WORKERS}: ${figures(f)} (load average ${load()})`);
    for (const formato of ['json', 'csv', 'xlsx']) {
      const t0 = performance.now();
      const res = await fetch(`${server.url}/api/vacaciones/libro?emailResponsable=admin@empresa.co&formato=${formato}`, {
        headers: { 'x-api-key': `Bearer ${key}` },
      });
      let bytes = 0;
      for await (const chunk of res.body as unknown as AsyncIterable<Uint8Array>) bytes += chunk.byteLength;
      ctx.lines.push(
        `law: register of all ${WORKERS} workers as ${formato}: ${mb(bytes)} MB in ${secs(t0)} s (status ${res.status}, load average ${load()})`,
      );
    }
    ctx.lines.push(`law: peak RSS of the server ${server.peakRssMb()} MB (heap limit ${HEAP_MB} MB)`);
  } finally {
    await server.stop();
  }
}

const SECTIONS: Record<string, (ctx: Context) => Promise<void>> = {
  import: importSection,
  rebuild: rebuildSection,
  serve: serveSection,
  panel: panelSection,
  law: lawSection,
};

execSync('npm run --silent build', { stdio: 'inherit' });
for (const format of FORMATS) await dataFile(format);
for (let run = 1; run <= RUNS; run++) {
  await withDatabase(async (url) => {
    const ctx: Context = { url, lines: [`ceiling: ${await ceiling(url)}`] };
    for (const [name, section] of Object.entries(SECTIONS)) if (ONLY.includes(name)) await section(ctx);
    console.log(`\nrun ${run} of ${RUNS}:\n${ctx.lines.map((l) => `  ${l}`).join('\n')}`);
  });
}
