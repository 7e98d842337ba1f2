/**
 * HTTP benchmarks of the real server on the local PostgreSQL with 5,000 generated workers:
 * calculate, consult and add, the panel's worker and occupancy pages (signed in, PANEL_CONNECTIONS
 * at once: people rather than systems), plus a bare fastify hello-world as the ceiling of this machine.
 * Needs DATABASE_URL (an admin connection: a database of its own is created and dropped).
 *   node bin/run-ts.mjs bench/http.ts [--duration 10] [--connections 32] [--only consult,add]
 * BENCH_SERVER_NODE_ARGS adds options to the server's node, e.g. to profile it:
 *   BENCH_SERVER_NODE_ARGS="--cpu-prof --cpu-prof-dir=bench/results" node bin/run-ts.mjs bench/http.ts --only consult
 */
import { execSync } from 'node:child_process';
import { randomBytes } from 'node:crypto';
import { resolve } from 'node:path';
import pg from 'pg';
import { importReferenceData } from '../src/reference/import.ts';
import { createApiKey } from '../src/security/api-keys.ts';
import { migrate } from '../src/migrations.ts';
import { PostgresDb } from '../src/db/postgres.ts';
import { generateDataset } from '../test/support/dataset.ts';
import { panelSession, printTable, runScenario, startChild, type Figures } from './lib.ts';

const WORKERS = 5000;
/** Concurrent requests for the panel's pages: an office of people, not a payroll system. */
const PANEL_CONNECTIONS = 8;
const FIRST = 100_000;

function arg(name: string, def: number): number {
  const i = process.argv.indexOf(`--${name}`);
  return i > 0 ? Number(process.argv[i + 1]) : def;
}

/** The scenarios named by --only (all when absent): for a quick look at one of them. */
function chosen(scenario: string): boolean {
  const i = process.argv.indexOf('--only');
  return i < 0 || (process.argv[i + 1] ?? '').split(',').includes(scenario);
}

export async function httpBenchmarks(): Promise<{ rows: Figures[]; peakRssMb: number }> {
  const admin = process.env.DATABASE_URL;
  if (!admin) throw new Error('DATABASE_URL is required (a PostgreSQL server)');
  const duration = arg('duration', 10);
  const connections = arg('connections', 32);
  const name = `vac_bench_${randomBytes(3).toString('hex')}`;
  const c = new pg.Client({ connectionString: admin });
  await c.connect();
  await c.query(`CREATE DATABASE ${name}`);
  const u = new URL(admin);
  u.pathname = `/${name}`;
  const url = u.toString();
  const rows: Figures[] = [];
  let peakRssMb: number;
  try {
    const db = new PostgresDb({ connectionString: url });
    await migrate(db);
    const t0 = Date.now();
    await importReferenceData(db, generateDataset({ workers: WORKERS, maxPeople: null, subgerencias: 50, firstWorkerId: FIRST }));
    console.log(`dataset: ${WORKERS} workers imported in ${((Date.now() - t0) / 1000).toFixed(1)} s`);
    const key = (await createApiKey(db, { name: 'bench' })).key;
    await db.close();

    if (chosen('ceiling')) {
      const hello = await startChild(
        process.execPath,
        [
          '-e',
          "const f=require('fastify')();f.get('/',async()=>({hello:'world'}));f.listen({port:0,host:'127.0.0.1'}).then(a=>console.log('listening '+a))",
        ],
        {},
        /listening (http:\/\/\S+)/,
      );
      rows.push(await runScenario({ name: 'ceiling: bare fastify', kind: 'hello', url: hello.url, connections, durationSec: duration }));
      await hello.stop();
    }

    // The compiled build with the heap limit `npm start` gives it, as it runs in production.
    execSync('npm run --silent build', { stdio: 'inherit' });
    const server = await startChild(
      process.execPath,
      [
        '--max-old-space-size=160',
        ...(process.env.BENCH_SERVER_NODE_ARGS ?? '').split(' ').filter(Boolean),
        resolve('dist/cli/run.js'),
        'serve',
      ],
      { DATABASE_URL: url, PORT: '0', HOST: '127.0.0.1', LOG_LEVEL: 'info', VACACIONES_TODAY: '2026-02-01', RATE_LIMIT_PER_MINUTE: '0' },
      /"address":"(http:\/\/[^"]+)"/,
    );
    try {
      const common = { url: server.url, connections, key, first: FIRST, workers: WORKERS };
      // Before each read scenario, a warm-up pass that asks once for every worker, so that the
      // JIT and the caches are in the steady state of a service that has been up a while (the
      // service also warms its caches in bulk when it starts; this pass covers the rest, such as
      // each worker's first audit stream).
      for (const kind of ['calculate', 'consult'] as const) {
        if (!chosen(kind)) continue;
        await runScenario({ ...common, name: 'warm-up', kind, durationSec: 0, amount: WORKERS });
        rows.push(await withServerFigures(server.url, duration, () => runScenario({ ...common, name: kind, kind, durationSec: duration })));
      }
      if (chosen('add')) {
        const add = await withServerFigures(server.url, duration, () =>
          runScenario({ ...common, name: 'add (distinct workers)', kind: 'add', durationSec: duration, okStatus: 201 }),
        );
        add.note = `${(add.ok / duration).toFixed(0)} created/s; ${add.note}`;
        rows.push(add);
      }
      // After add, so that the pages have vacations to show (March and April 2026).
      if (chosen('panel')) {
        const cookie = await panelSession(url, server.url);
        const panel = { ...common, connections: PANEL_CONNECTIONS, kind: 'page' as const, cookie };
        const pages = [
          { name: 'panel: worker page', path: '/panel/trabajador/{doc}' },
          {
            name: 'panel: occupancy page',
            path: '/panel/ocupacion?subgerencia={unit}&mes={month}',
            units: Array.from({ length: 50 }, (_, i) => `SG-${i + 1}`),
            months: ['2026-03', '2026-04'],
          },
        ];
        for (const p of pages) {
          await runScenario({ ...panel, ...p, durationSec: 0, amount: p.units ? 100 : WORKERS });
          const row = await withServerFigures(server.url, duration, () => runScenario({ ...panel, ...p, durationSec: duration }));
          row.note = `${PANEL_CONNECTIONS} connections; ${row.note}`;
          rows.push(row);
        }
      }
      // The accrual periods of a worker at random, and the whole company's vacation register.
      if (chosen('law')) {
        const periods = { ...common, kind: 'page' as const, pick: 'random' as const, name: 'periods (GET /api/vacaciones/periodos)' };
        const path = '/api/vacaciones/periodos?numeroDocumento={doc}&emailResponsable=admin@empresa.co';
        await runScenario({ ...periods, path, durationSec: 0, amount: WORKERS });
        rows.push(await withServerFigures(server.url, duration, () => runScenario({ ...periods, path, durationSec: duration })));
        for (const formato of ['json', 'csv', 'xlsx']) rows.push(await registerDownload(server.url, key, formato));
      }
      peakRssMb = server.peakRssMb();
    } finally {
      await server.stop();
    }
  } finally {
    await c.query(`DROP DATABASE IF EXISTS ${name} WITH (FORCE)`);
    await c.end();
  }
  return { rows, peakRssMb };
}

/** The whole company's vacation register in one format, read to its end: its time and size. */
async function registerDownload(url: string, key: string, formato: string): Promise<Figures> {
  const t0 = performance.now();
  const res = await fetch(`${url}/api/vacaciones/libro?emailResponsable=admin@empresa.co&formato=${formato}`, {
    headers: { 'x-api-key': `Bearer ${key}` },
  });
  let bytes = 0;
  for await (const chunk of res.body as unknown as AsyncIterable<Uint8Array>) bytes += chunk.byteLength;
  const seconds = (performance.now() - t0) / 1000;
  return {
    name: `register of ${WORKERS} workers (GET /api/vacaciones/libro, ${formato})`,
    requestsPerSec: Number((1 / seconds).toFixed(2)),
    p50: Math.round(seconds * 1000),
    p99: Math.round(seconds * 1000),
    ok: res.status === 200 ? 1 : 0,
    non2xx: res.status === 200 ? 0 : 1,
    errors: 0,
    statuses: { [String(res.status)]: 1 },
    note: `${(bytes / 2 ** 20).toFixed(1)} MB in ${seconds.toFixed(1)} s, ${Math.round(WORKERS / seconds)} workers/s`,
  };
}

/** Sum of the samples of one metric in Prometheus text (over all its label sets). */
function metricSum(text: string, name: string): number {
  let sum = 0;
  for (const line of text.split('\n')) {
    if (line.startsWith(`${name}{`) || line.startsWith(`${name} `)) sum += Number(line.slice(line.lastIndexOf(' ') + 1));
  }
  return sum;
}

/**
 * Runs a scenario and notes what the service's own /metrics say of it: the share of its time
 * spent in garbage collection, and its event store appends (count per second and mean latency).
 */
async function withServerFigures(url: string, durationSec: number, run: () => Promise<Figures>): Promise<Figures> {
  const scrape = async () => (await fetch(`${url}/metrics`)).text();
  const before = await scrape();
  const row = await run();
  const after = await scrape();
  const delta = (name: string) => metricSum(after, name) - metricSum(before, name);
  const gc = delta('vacaciones_nodejs_gc_duration_seconds_sum');
  const appends = delta('vacaciones_event_store_append_seconds_count');
  const appendMs = appends > 0 ? (delta('vacaciones_event_store_append_seconds_sum') / appends) * 1000 : 0;
  const majorGcs = delta('vacaciones_nodejs_gc_duration_seconds_count{kind="major"}');
  const heapMb = metricSum(after, 'vacaciones_nodejs_heap_size_used_bytes') / 2 ** 20;
  const appended = appends > 0 ? `${(appends / durationSec).toFixed(0)} appends/s of ${appendMs.toFixed(1)} ms` : 'no appends';
  row.note = `gc ${((gc / durationSec) * 100).toFixed(1)}% (${majorGcs} major), heap ${heapMb.toFixed(0)} MB, ${appended}`;
  return row;
}

if (process.argv[1]?.endsWith('bench/http.ts')) {
  const { rows, peakRssMb } = await httpBenchmarks();
  printTable(rows, { 'peak RSS of the service (MB)': peakRssMb });
}
