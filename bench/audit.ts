/**
 * The auditor's tools on a generated employer's log: verifying every hash chain in the database
 * and by reading the log, anchoring the stream heads. Needs DATABASE_URL (a server).
 *
 *   DATABASE_URL=postgres://postgres@127.0.0.1:5432/postgres node bin/run-ts.mjs bench/audit.ts [--workers 20000] [--regenerate] [--drop]
 *
 * The events (ten per worker on average, bench/events.ts) are appended once into a database named
 * after the number of workers, which is kept for the next run (`--regenerate` appends them again,
 * `--drop` removes it afterwards). Every run first measures the machine's ceiling: one core's
 * SHA-256, and the database server hashing 200,000 rows of 600 bytes with its own sha256().
 */
import { loadavg } from 'node:os';
import { parseArgs } from 'node:util';
import pg from 'pg';
import { recordAnchor } from '../src/audit/anchor.ts';
import { verifyChains } from '../src/audit/verify.ts';
import { migrate } from '../src/db/migrations.ts';
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

console.log(`ceiling: ${await ceiling(admin)}`);
const serverSha = await (async () => {
  const t0 = performance.now();
  await adminQuery(`SELECT count(sha256(convert_to(repeat('x', 600) || g::text, 'UTF8'))) FROM generate_series(1, 200000) g`);
  return rate(200_000, performance.now() - t0);
})();
console.log(`ceiling: PostgreSQL sha256() of 600-byte rows: ${serverSha} rows/s; load average ${load()}`);

if (args.regenerate) await adminQuery(`DROP DATABASE IF EXISTS ${name} WITH (FORCE)`);
const exists = (await adminQuery('SELECT 1 FROM pg_database WHERE datname = $1', [name])).length > 0;
if (!exists) await adminQuery(`CREATE DATABASE ${name}`);
const db = new PostgresDb({ connectionString: url.toString(), max: 8 });
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
  console.log(
    `verify, every stream, in the database: ${inDb.events} events in ${(inDb.ms / 1000).toFixed(2)} s = ${rate(inDb.events, inDb.ms)} events/s; load ${load()}`,
  );

  // The same log read through the port and checked in this process, as on KurrentDB.
  const plain = { readAll: store.readAll.bind(store), logDatabase: () => undefined } as unknown as EventStore;
  const read = await verifyChains(plain, { all: true });
  console.log(
    `verify, every stream, reading the log: ${read.events} events in ${(read.ms / 1000).toFixed(2)} s = ${rate(read.events, read.ms)} events/s; load ${load()}`,
  );

  const t0 = performance.now();
  const anchor = await recordAnchor(store);
  console.log(
    `anchor of ${anchor.streams} stream heads (${anchor.events} events) in ${((performance.now() - t0) / 1000).toFixed(2)} s; load ${load()}`,
  );
  console.log(`peak RSS ${Math.round(process.resourceUsage().maxRSS / 1024)} MB`);
} finally {
  await db.close();
  if (args.drop) await adminQuery(`DROP DATABASE IF EXISTS ${name} WITH (FORCE)`);
}
