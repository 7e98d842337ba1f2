/**
 * The auditor's tools on a generated employer's log, each through the function its command runs:
 * `audit verify --all` (in the database, and by reading the log as on KurrentDB), `audit anchor`,
 * `audit export --all` to a file, and `audit verify --bundle` of that file with no database.
 * Needs DATABASE_URL (a server): `npm run bench:audit`.
 *
 *   DATABASE_URL=postgres://postgres@127.0.0.1:5432/postgres npm run bench:audit -- [--workers 20000] [--regenerate] [--drop]
 *
 * The events (ten per worker on average, bench/events.ts) are appended once into a database named
 * after the number of workers, which is kept for the next run (`--regenerate` appends them again,
 * `--drop` removes it afterwards). Every run measures the machine's ceiling (bench/lib.ts: one
 * core's SHA-256 and JSON, the server's indexed inserts) and the database server hashing 200,000
 * rows of 600 bytes with its own sha256(), and prints them beside the figures.
 */
import { createReadStream, createWriteStream, mkdtempSync, rmSync, statSync } from 'node:fs';
import { loadavg, tmpdir } from 'node:os';
import { join } from 'node:path';
import { parseArgs } from 'node:util';
import pg from 'pg';
import { recordAnchor } from '../src/integrity/anchor.ts';
import { verifyBundle } from '../src/integrity/bundle-verify.ts';
import { exportBundle } from '../src/integrity/export.ts';
import { verifyChains } from '../src/integrity/verify.ts';
import { migrate } from '../src/migrations.ts';
import { PostgresDb } from '../src/db/postgres.ts';
import { PostgresEventStore } from '../src/store/postgres-store.ts';
import type { EventStore } from '../src/store/types.ts';
import { appendWorkers } from './events.ts';
import { ceiling } from './lib.ts';

const { values: args } = parseArgs({
  options: { workers: { type: 'string', default: '20000' }, regenerate: { type: 'boolean' }, drop: { type: 'boolean' } },
});
const WORKERS = Number(args.workers);

const admin = process.env.DATABASE_URL;
if (!admin) {
  console.error('bench/audit.ts needs DATABASE_URL (a PostgreSQL server)');
  process.exit(2);
}

async function adminQuery<R extends pg.QueryResultRow>(sql: string, params: unknown[] = []): Promise<R[]> {
  const c = new pg.Client({ connectionString: admin });
  await c.connect();
  try {
    return (await c.query<R>(sql, params)).rows;
  } finally {
    await c.end();
  }
}

const load = () =>
  loadavg()
    .map((l) => l.toFixed(1))
    .join(' ');
const rate = (n: number, ms: number) => Math.round(n / (ms / 1000));

const name = `vac_bench_audit_${WORKERS}`;
const url = new URL(admin);
url.pathname = `/${name}`;

const machine = await ceiling(admin);
const serverSha = await (async () => {
  const t0 = performance.now();
  await adminQuery(`SELECT count(sha256(convert_to(repeat('x', 600) || g::text, 'UTF8'))) FROM generate_series(1, 200000) g`);
  return rate(200_000, performance.now() - t0);
})();

if (args.regenerate) await adminQuery(`DROP DATABASE IF EXISTS ${name} WITH (FORCE)`);
const exists = (await adminQuery('SELECT 1 FROM pg_database WHERE datname = $1', [name])).length > 0;
if (!exists) await adminQuery(`CREATE DATABASE ${name}`);
const db = new PostgresDb({ connectionString: url.toString(), max: 8 });
const dir = mkdtempSync(join(tmpdir(), 'vac-bench-audit-'));
const figures: string[] = [];
const secs = (ms: number) => `${(ms / 1000).toFixed(2)} s`;
try {
  await migrate(db);
  const store = new PostgresEventStore(db);
  const present = Number((await db.query<{ n: string }>('SELECT count(*)::text AS n FROM events')).rows[0]!.n);
  if (present === 0) {
    const t0 = performance.now();
    const n = await appendWorkers(store, WORKERS, 4);
    console.log(`appended ${n} events for ${WORKERS} workers in ${((performance.now() - t0) / 1000).toFixed(1)} s (4 appenders)`);
  } else {
    console.log(`reusing ${present} events of ${name}`);
  }
  await db.query('VACUUM ANALYZE events');

  const inDb = await verifyChains(store, { all: true });
  if (inDb.breaks.length) throw new Error(`the generated log does not verify: ${JSON.stringify(inDb.breaks[0])}`);
  figures.push(`audit verify --all, in the database: ${inDb.events} events in ${secs(inDb.ms)} = ${rate(inDb.events, inDb.ms)} events/s`);

  // The same log read through the port and checked in this process, as on KurrentDB.
  const plain = { readAll: store.readAll.bind(store), logDatabase: () => undefined } as unknown as EventStore;
  const read = await verifyChains(plain, { all: true });
  figures.push(`audit verify --all, reading the log: ${read.events} events in ${secs(read.ms)} = ${rate(read.events, read.ms)} events/s`);

  let t0 = performance.now();
  const anchor = await recordAnchor(store);
  figures.push(`audit anchor: ${anchor.streams} stream heads (${anchor.events} events) in ${secs(performance.now() - t0)}`);

  const file = join(dir, 'all.ndjson.gz');
  t0 = performance.now();
  const end = await exportBundle(store, createWriteStream(file), { selection: { kind: 'all' } });
  const exportMs = performance.now() - t0;
  const mb = (statSync(file).size / 1e6).toFixed(1);
  figures.push(`audit export --all: ${end.events} events (${mb} MB of gzip) in ${secs(exportMs)} = ${rate(end.events, exportMs)} events/s`);

  const offline = await verifyBundle(createReadStream(file));
  if (offline.breaks.length || offline.problems.length) throw new Error(`the bundle does not verify: ${offline.problems[0] ?? ''}`);
  figures.push(
    `audit verify --bundle, no database: ${offline.events} events in ${secs(offline.ms)} = ${rate(offline.events, offline.ms)} events/s`,
  );
} finally {
  await db.close();
  rmSync(dir, { recursive: true, force: true });
  if (args.drop) await adminQuery(`DROP DATABASE IF EXISTS ${name} WITH (FORCE)`);
}

console.log('\nResults (target: audit verify >= 100,000 events/s)\n');
for (const f of figures) console.log(f);
console.log(`peak RSS ${Math.round(process.resourceUsage().maxRSS / 1024)} MB; load average ${load()}`);
console.log(`ceiling: ${machine}; PostgreSQL sha256() of 600-byte rows: ${serverSha} rows/s`);
