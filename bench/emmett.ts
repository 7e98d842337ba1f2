/**
 * This service's PostgreSQL event store (hash chain computed in every append) beside Emmett's
 * (@event-driven-io/emmett-postgresql, a dev dependency), on the same PostgreSQL server in one run,
 * each in a database of its own: APPENDS single-event appends from WRITERS concurrent writers,
 * each writer on streams of its own with the exact expected revision (both stores check it), then
 * every stream read whole by WRITERS concurrent readers, READ_PASSES times. Prints appends/s and
 * stream reads/s with their p50/p99 latency, and the ratios of this service's figures to Emmett's.
 *
 *   DATABASE_URL=postgres://postgres@127.0.0.1:5432/postgres npm run bench:emmett
 *   npm run bench:emmett -- --appends 20000 --writers 16 --streams 2000 --read-passes 5 --rounds 1
 */
import { randomUUID } from 'node:crypto';
import { STREAM_DOES_NOT_EXIST } from '@event-driven-io/emmett';
import { getPostgreSQLEventStore } from '@event-driven-io/emmett-postgresql';
import pg from 'pg';
import { migrate } from '../src/migrations.ts';
import { PostgresDb } from '../src/db/postgres.ts';
import { PostgresEventStore } from '../src/store/postgres-store.ts';
import { numberOption, withFreshDatabase } from './lib.ts';

const APPENDS = numberOption('appends', 20_000);
const WRITERS = numberOption('writers', 16);
/** Streams written (each writer its own share): APPENDS / STREAMS events a stream. */
const STREAMS = numberOption('streams', 2_000);
const READ_PASSES = numberOption('read-passes', 5);
/** Both stores measured this many times, alternating, each round in fresh databases. */
const ROUNDS = numberOption('rounds', 1);

const admin = process.env.DATABASE_URL;
if (!admin) {
  console.error('npm run bench:emmett needs DATABASE_URL (a PostgreSQL server it may create databases on)');
  process.exit(2);
}

/** What both stores are given to write and read: the same streams, events and order. */
interface Store {
  name: string;
  append(stream: string, expected: number, data: Record<string, unknown>, metadata: Record<string, unknown>): Promise<void>;
  /** The stream's events, read whole. */
  read(stream: string): Promise<number>;
  close(): Promise<void>;
}

async function ours(url: string): Promise<Store> {
  const db = new PostgresDb({ connectionString: url, max: WRITERS });
  await migrate(db);
  const store = new PostgresEventStore(db);
  return {
    name: 'this service (PostgreSQL, hash chain)',
    append: async (stream, expected, data, metadata) => {
      await store.append([
        {
          stream,
          expectedRevision: expected < 0 ? 'no_stream' : expected,
          events: [{ id: randomUUID(), type: 'VacationApproved', data, metadata }],
        },
      ]);
    },
    read: async (stream) => (await store.readStream(stream)).length,
    close: () => db.close(),
  };
}

async function emmett(url: string): Promise<Store> {
  const pool = new pg.Pool({ connectionString: url, max: WRITERS });
  // The database is dropped at the end with its connections: an idle one's end is no failure.
  pool.on('error', () => {});
  const store = getPostgreSQLEventStore(url, { connectionOptions: { pool } });
  await store.schema.migrate();
  return {
    name: "Emmett's PostgreSQL event store",
    append: async (stream, expected, data, metadata) => {
      await store.appendToStream(stream, [{ type: 'VacationApproved', data, metadata }], {
        expectedStreamVersion: expected < 0 ? STREAM_DOES_NOT_EXIST : BigInt(expected + 1),
      });
    },
    read: async (stream) => (await store.readStream(stream)).events.length,
    close: async () => {
      await store.close();
      await pool.end().catch(() => {});
    },
  };
}

/** An event as the service writes them (some 400 bytes of data and metadata). */
function payload(stream: string, n: number) {
  const data = {
    codigoPila: `VAC_${1_800_000_000_000 + n}_${n.toString(16).padStart(8, '0')}_0000beef`,
    workerId: n,
    stream,
    approvedByUserId: 1,
    approvedAt: '2026-11-21T15:00:00.000Z',
  };
  const metadata = {
    userId: 1,
    userEmail: 'admin@empresa.co',
    apiKeyId: 7,
    apiKeyName: 'nomina',
    requestId: randomUUID(),
    correlationId: null,
    idempotencyKey: null,
    occurredAt: '2026-11-21T15:00:00.000Z',
    source: 'http',
  };
  return { data, metadata };
}

const percentile = (sorted: number[], p: number) => sorted[Math.min(sorted.length - 1, Math.floor((sorted.length * p) / 100))] ?? NaN;

interface Timed {
  perSecond: number;
  p50: number;
  p99: number;
  seconds: number;
}

/** `count` operations from `workers` concurrent loops, each taking the next index of its own share. */
async function timed(workers: number, count: number, op: (worker: number, i: number) => Promise<void>): Promise<Timed> {
  const latencies: number[] = [];
  const t0 = performance.now();
  await Promise.all(
    Array.from({ length: workers }, async (_, w) => {
      for (let i = w; i < count; i += workers) {
        const s = performance.now();
        await op(w, i);
        latencies.push(performance.now() - s);
      }
    }),
  );
  const seconds = (performance.now() - t0) / 1000;
  latencies.sort((a, b) => a - b);
  return { perSecond: count / seconds, p50: percentile(latencies, 50), p99: percentile(latencies, 99), seconds };
}

/**
 * The appends, then the reads. Writer w owns the streams whose index is w modulo WRITERS and
 * writes them in turn, so that every append names the revision it expects.
 */
async function measure(store: Store): Promise<{ appends: Timed; reads: Timed; events: number }> {
  const streamName = (i: number) => `trabajador-${i}`;
  // The connections opened and the statements prepared before the clock starts.
  for (let i = 0; i < WRITERS; i++) {
    const { data, metadata } = payload('calentamiento', i);
    await store.append(`calentamiento-${i}`, -1, data, metadata);
  }
  const revisions = new Array<number>(STREAMS).fill(-1);
  const appends = await timed(WRITERS, APPENDS, async (w, i) => {
    // The i-th append of the run goes to the writer's streams in turn: stream index ≡ w (mod WRITERS).
    const mine = Math.ceil((STREAMS - w) / WRITERS);
    const s = w + WRITERS * (Math.floor(i / WRITERS) % mine);
    const { data, metadata } = payload(streamName(s), i);
    await store.append(streamName(s), revisions[s]!, data, metadata);
    revisions[s]!++;
  });
  let events = 0;
  const reads = await timed(WRITERS, STREAMS * READ_PASSES, async (_w, i) => {
    const n = await store.read(streamName(i % STREAMS));
    events += n;
  });
  return { appends, reads, events: events / READ_PASSES };
}

const fmt = (t: Timed) =>
  `${Math.round(t.perSecond)}/s, p50 ${t.p50.toFixed(1)} ms, p99 ${t.p99.toFixed(1)} ms (${t.seconds.toFixed(1)} s)`;

console.log(
  `${APPENDS} single-event appends from ${WRITERS} writers over ${STREAMS} streams, then every stream read ${READ_PASSES} times by ${WRITERS} readers`,
);
for (let round = 1; round <= ROUNDS; round++) {
  const results: { name: string; appends: Timed; reads: Timed; events: number }[] = [];
  for (const open of [ours, emmett]) {
    results.push(
      await withFreshDatabase(admin, 'vac_emmett', async (url) => {
        const store = await open(url);
        try {
          return { name: store.name, ...(await measure(store)) };
        } finally {
          await store.close();
        }
      }),
    );
  }
  console.log(`\nround ${round} of ${ROUNDS}:`);
  for (const r of results) {
    console.log(`  ${r.name}:`);
    console.log(`    appends: ${fmt(r.appends)}`);
    console.log(`    stream reads (${r.events.toFixed(0)} events each pass): ${fmt(r.reads)}`);
  }
  const [a, b] = results as [(typeof results)[0], (typeof results)[0]];
  console.log(
    `  ratio, this service / Emmett: appends ${(a.appends.perSecond / b.appends.perSecond).toFixed(2)}×, stream reads ${(a.reads.perSecond / b.reads.perSecond).toFixed(2)}×`,
  );
}
