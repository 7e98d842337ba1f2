/**
 * Every benchmark, one table: the HTTP scenarios (bench/http.ts) and the full rebuild
 * (bench/rebuild.ts, in a process of its own). Needs DATABASE_URL: `npm run bench`.
 */
import { spawnSync } from 'node:child_process';
import { httpBenchmarks } from './http.ts';
import { printTable } from './lib.ts';

if (!process.env.DATABASE_URL) {
  console.error('npm run bench needs DATABASE_URL (a PostgreSQL server it may create databases on)');
  process.exit(2);
}

const { rows, peakRssMb } = await httpBenchmarks();

console.log('running the rebuild benchmark (200,000 events)...');
const r = spawnSync(process.execPath, ['bin/run-ts.mjs', 'bench/rebuild.ts'], { encoding: 'utf8', env: process.env });
const line = r.stdout.split('\n').find((l) => l.startsWith('rebuild of')) ?? '';
const m = /: (\d+) events in ([\d.]+) s = (\d+) events\/s; peak RSS (\d+) MB/.exec(line);
if (r.status !== 0 || !m) {
  console.error(`rebuild benchmark failed:\n${r.stdout}\n${r.stderr}`);
  process.exitCode = 1;
}

console.log('\nResults (targets: calculate >= 1500 req/s p99 <= 30 ms; consult >= 2000 req/s p99 <= 25 ms;');
console.log('add >= 400 created/s p99 <= 80 ms, no errors; panel pages p99 <= 200 ms; service peak RSS <= 250 MB;');
console.log('rebuild >= 20,000 events/s)\n');
printTable(rows, {
  'peak RSS of the service under load (MB)': peakRssMb,
  'rebuild (events/s)': m ? `${m[3]} (${m[1]} events in ${m[2]} s, peak RSS ${m[4]} MB)` : 'failed',
});
