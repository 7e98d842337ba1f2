/**
 * The top frames of a V8 CPU profile (`node --cpu-prof`): where a server's time went, by self
 * time and by the time of its own code beneath each frame, grouped by function and file.
 *
 *   BENCH_SERVER_NODE_ARGS="--cpu-prof --cpu-prof-dir=bench/results/prof" node bin/run-ts.mjs bench/http.ts --only consult
 *   node bin/run-ts.mjs bench/profile-top.ts bench/results/prof/*.cpuprofile [--top 20]
 */
import { readFileSync } from 'node:fs';
import { relative } from 'node:path';

interface ProfileNode {
  id: number;
  callFrame: { functionName: string; url: string; lineNumber: number };
  hitCount?: number;
  children?: number[];
}
interface Profile {
  nodes: ProfileNode[];
  samples: number[];
  startTime: number;
  endTime: number;
}

const topArg = process.argv.indexOf('--top');
const TOP = topArg > 0 ? Number(process.argv[topArg + 1]) : 20;
const files = process.argv.slice(2).filter((a, i, all) => a.endsWith('.cpuprofile') && all[i - 1] !== '--top');
if (files.length === 0) {
  console.error('usage: bench/profile-top.ts <file.cpuprofile>... [--top N]');
  process.exit(2);
}

/** Where a frame comes from, short: the project's own files by path, dependencies by package. */
function place(url: string): string {
  if (!url) return '(native)';
  const path = url.replace(/^file:\/\//, '');
  const pkg = /node_modules\/((?:@[^/]+\/)?[^/]+)/.exec(path);
  if (pkg) return pkg[1]!;
  if (path.startsWith('node:')) return path;
  return relative(process.cwd(), path);
}

for (const file of files) {
  const profile = JSON.parse(readFileSync(file, 'utf8')) as Profile;
  const total = profile.samples.length;
  const parentOf = new Map<number, ProfileNode>();
  for (const n of profile.nodes) for (const c of n.children ?? []) parentOf.set(c, n);
  const nameOf = (n: ProfileNode) => {
    const { functionName, url, lineNumber } = n.callFrame;
    return `${functionName || '(anonymous)'}  ${place(url)}${url && !url.includes('node_modules') ? `:${lineNumber + 1}` : ''}`;
  };
  /** For each function, the samples of its callers' chains (up to three frames of the service's own or a package's code). */
  const callers = new Map<string, Map<string, number>>();
  const self = new Map<string, number>();
  const byPlace = new Map<string, number>();
  let idle = 0;
  for (const n of profile.nodes) {
    const hits = n.hitCount ?? 0;
    if (hits === 0) continue;
    const { functionName, url } = n.callFrame;
    if (functionName === '(idle)') {
      idle += hits;
      continue;
    }
    const key = nameOf(n);
    self.set(key, (self.get(key) ?? 0) + hits);
    const chain: string[] = [];
    for (let up = parentOf.get(n.id); up && chain.length < 3; up = parentOf.get(up.id)) {
      if (up.callFrame.url && !up.callFrame.url.startsWith('node:')) chain.push(nameOf(up).replace(/\s+/g, ' '));
    }
    const byChain = callers.get(key) ?? new Map<string, number>();
    byChain.set(chain.join(' < '), (byChain.get(chain.join(' < ')) ?? 0) + hits);
    callers.set(key, byChain);
    const where = functionName === '(garbage collector)' ? '(garbage collector)' : place(url);
    byPlace.set(where, (byPlace.get(where) ?? 0) + hits);
  }
  const busy = total - idle;
  const pct = (n: number) => `${((100 * n) / busy).toFixed(1).padStart(5)}%`;
  const seconds = (profile.endTime - profile.startTime) / 1e6;
  console.log(`\n${file}: ${seconds.toFixed(1)} s profiled, ${((100 * busy) / total).toFixed(0)}% of samples busy`);
  console.log('  self time by function (share of busy samples):');
  const ranked = [...self].sort((a, b) => b[1] - a[1]);
  for (const [k, n] of ranked.slice(0, TOP)) console.log(`  ${pct(n)}  ${k}`);
  console.log('  where the first five are called from (the nearest frames outside Node itself):');
  for (const [k] of ranked.slice(0, 5)) {
    console.log(`    ${k}`);
    for (const [chain, n] of [...callers.get(k)!].sort((a, b) => b[1] - a[1]).slice(0, 3))
      console.log(`    ${pct(n)}  ${chain || '(none)'}`);
  }
  console.log('  self time by file or package:');
  for (const [k, n] of [...byPlace].sort((a, b) => b[1] - a[1]).slice(0, TOP)) console.log(`  ${pct(n)}  ${k}`);
}
