/**
 * Every benchmark, one table: the HTTP scenarios (bench/http.ts) and the full rebuild
 * (bench/rebuild.ts, in a process of its own; BENCH_WORKERS sizes it). Needs DATABASE_URL: `npm run bench`.
 */
import { spawnSync } from 'node:child_process';
import { httpBenchmarks } from './http.ts';
import { printTable } from './lib.ts';

if (!process.env.DATABASE_URL) {
  console.error('npm run bench needs DATABASE_URL (a PostgreSQL server it may create databases on)');
  process.exit(2);
}

const { rows, peakRssMb } = await httpBenchmarks();

console.log(`running the rebuild benchmark (${Number(process.env.BENCH_WORKERS ?? 20_000) * 10} events)...`);
const r = spawnSync(process.execPath, ['bin/run-ts.mjs', 'bench/rebuild.ts'], { encoding: 'utf8', env: process.env });
const line = r.stdout.split('\n').find((l) => l.startsWith('rebuild of')) ?? '';
const m = /: (\d+) events in ([\d.]+) s = (\d+) events\/s; peak RSS (\d+) MB/.exec(line);
if (r.status !== 0 || !m) {
  console.error(`rebuild benchmark failed:\n${r.stdout}\n${r.stderr}`);
  process.exitCode = 1;
}

console.log('\nResults (targets, each against the bare hello-world of this run: calculate with the limit in force and');
console.log('bookings ahead >= 25% of its req/s, consult >= 15%, add >= 5% in valid creations; p99 of each <= 5x the');
console.log("hello-world's, at least 15 ms; no answer but the expected one, no errors; service peak RSS <= 250 MB;");
console.log('rebuild >= 20,000 events/s)\n');
printTable(rows, {
  'peak RSS of the service under load (MB)': peakRssMb,
  'rebuild (events/s)': m ? `${m[3]} (${m[1]} events in ${m[2]} s, peak RSS ${m[4]} MB)` : 'failed',
});
