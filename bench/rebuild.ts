/**
 * Rebuild throughput: 200,000 events (20,000 workers, ten events each on average across worker,
 * PILA, unit and audit streams) replayed into every read model. Needs DATABASE_URL (a server);
 * works in a database of its own and drops it at the end.
 *
 *   DATABASE_URL=postgres://postgres@127.0.0.1:5432/postgres node bin/run-ts.mjs bench/rebuild.ts
 */
import { randomBytes } from 'node:crypto';
import pg from 'pg';
import { migrate } from '../src/migrations.ts';
import { PostgresDb } from '../src/db/postgres.ts';
import { allProjectors, rebuild } from '../src/projections/index.ts';
import { PostgresEventStore } from '../src/store/postgres-store.ts';
import { appendWorkers } from './events.ts';

const WORKERS = Number(process.env.BENCH_WORKERS ?? 20_000);
const APPENDERS = 4;

const admin = process.env.DATABASE_URL;
if (!admin) {
  console.error('bench/rebuild.ts needs DATABASE_URL (a PostgreSQL server); PGlite is not what this measures');
  process.exit(2);
}

async function adminQuery(sql: string): Promise<void> {
  const c = new pg.Client({ connectionString: admin });
  await c.connect();
  try {
    await c.query(sql);
  } finally {
    await c.end();
  }
}

const name = `vac_bench_${process.pid}_${randomBytes(3).toString('hex')}`;
const url = new URL(admin);
url.pathname = `/${name}`;
await adminQuery(`CREATE DATABASE ${name}`);
const db = new PostgresDb({ connectionString: url.toString(), max: APPENDERS + 4 });
try {
  await migrate(db);
  const store = new PostgresEventStore(db);

  let t0 = performance.now();
  const appended = await appendWorkers(store, WORKERS, APPENDERS);
  const appendSecs = (performance.now() - t0) / 1000;
  console.log(`appended ${appended} events for ${WORKERS} workers in ${appendSecs.toFixed(1)} s`);

  t0 = performance.now();
  const r = await rebuild(db, store, undefined, {
    onProgress: (p) => {
      if (p.done % 50_000 < 5000) process.stderr.write(`  ${p.phase} ${p.done}/${p.total}\n`);
    },
  });
  const secs = r.durationMs / 1000;
  const rows = await db.query<{ t: string; n: string }>(
    allProjectors.flatMap((p) => p.tables.map((t) => `SELECT '${t}' AS t, count(*)::text AS n FROM ${t}`)).join(' UNION ALL '),
  );
  console.log(`read models: ${rows.rows.map((x) => `${x.t}=${x.n}`).join(' ')}`);
  console.log(
    `rebuild of ${r.projectors.length} projectors: ${r.events} events in ${secs.toFixed(2)} s = ${Math.round(r.events / secs)} events/s; ` +
      `peak RSS ${Math.round(process.resourceUsage().maxRSS / 1024)} MB`,
  );
} finally {
  await db.close();
  await adminQuery(`DROP DATABASE IF EXISTS ${name} WITH (FORCE)`);
}
