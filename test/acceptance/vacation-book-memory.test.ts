import { mkdtempSync, readFileSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { writeScaleFile } from '../support/scale-dataset.ts';
import { ADMIN } from '../support/http.ts';
import { runCli, startTestServer, type TestServer } from '../support/server.ts';

/**
 * The register of a company larger than what the server may hold at once comes out whole from a
 * server whose heap is limited to HEAP_MB: the server reads a page of workers at a time and writes
 * each as the connection takes it. The JSON register alone is a good part of that heap, and its
 * objects several times more, so a server that gathered it before answering would run out of
 * heap. The growth of the server's resident memory is held to a generous bound too (collectors
 * differ: it measures how far the heap was let grow, not what was kept).
 */
const WORKERS = Number(process.env.BOOK_MEMORY_WORKERS ?? 12_000);
const HEAP_MB = 96;
// Each format grows the server by a few MB; an XLSX writer that held its sheet until the end grew
// it by 55 MB at this size (and 400 MB at 50,000 workers).
const BOUND_MB = 32;

let srv: TestServer;
let dir: string;

beforeAll(async () => {
  dir = mkdtempSync(join(tmpdir(), 'vac-book-'));
  const file = join(dir, 'company.json');
  await writeScaleFile(file, 'json', { workers: WORKERS, firstWorkerId: 100_000 });
  srv = await startTestServer({
    env: { NODE_OPTIONS: `${process.env.NODE_OPTIONS ?? ''} --max-old-space-size=${HEAP_MB}`.trim() },
    beforeStart: async (env) => {
      // The import is no part of what is measured: it runs with the heap it needs.
      const cliEnv = { ...env, LOG_LEVEL: 'silent', NODE_OPTIONS: process.env.NODE_OPTIONS ?? '' };
      const r = await runCli(cliEnv, ['import', file]);
      if (r.code !== 0) throw new Error(`import failed (${r.code}): ${r.stderr}`);
      // As an operator does after a large import: the read models built in bulk (10 s here)
      // rather than caught up live by the starting server (29 s).
      const b = await runCli(cliEnv, ['projections', 'rebuild']);
      if (b.code !== 0) throw new Error(`rebuild failed (${b.code}): ${b.stderr}`);
    },
  });
  // The import's events reach the register after the server starts: measure the whole register,
  // once every read model has caught up with them, not whatever part of it was projected so far.
  for (;;) {
    const metrics = await (await fetch(`${srv.url}/metrics`)).text();
    const lags = [...metrics.matchAll(/^vacaciones_projection_lag_events\{[^}]*\} (\d+)$/gm)].map((m) => Number(m[1]));
    if (lags.length > 0 && lags.every((lag) => lag === 0)) break;
    await sleep(250);
  }
  // A warm server: its first large answer grows V8's young generation to its full size (some
  // 30 MB, whatever the answer's size) and compiles the paths it takes; the growth measured below
  // is then what a download holds. One unmeasured register as CSV, the lightest format.
  await download('csv');
}, 600_000);
afterAll(async () => {
  await srv?.stop();
  if (dir) rmSync(dir, { recursive: true, force: true });
});

/** The process's resident memory in MB; 0 once it is gone (the test then fails on the download). */
function rssMb(pid: number): number {
  try {
    return Number(/VmRSS:\s+(\d+) kB/.exec(readFileSync(`/proc/${pid}/status`, 'utf8'))?.[1] ?? 0) / 1024;
  } catch {
    return 0;
  }
}
const sleep = (ms: number) => new Promise((r) => setTimeout(r, ms));

/** Reads the register slowly, sampling the server's resident memory; its size and the peak growth. */
async function download(formato: string): Promise<{ bytes: number; growthMb: number; workers: number }> {
  const base = rssMb(srv.pid);
  let peak = base;
  const sampler = setInterval(() => (peak = Math.max(peak, rssMb(srv.pid))), 25);
  try {
    const res = await fetch(`${srv.url}/api/vacaciones/libro?${new URLSearchParams({ emailResponsable: ADMIN, formato })}`, {
      headers: { 'x-api-key': `Bearer ${srv.keys.acceptance}` },
    });
    expect(res.status).toBe(200);
    const reader = res.body!.getReader();
    let bytes = 0;
    let chunks = 0;
    let tail = '';
    let workers = 0;
    for (;;) {
      const { done, value } = await reader.read();
      if (done) break;
      bytes += value.byteLength;
      if (formato !== 'xlsx') {
        const text = tail + Buffer.from(value).toString('latin1');
        const mark = formato === 'csv' ? '\ntrabajador,' : '"asociadoId":';
        workers += text.split(mark).length - 1;
        // What could start a mark cut by the chunk's end, and never a whole one.
        tail = text.slice(-(mark.length - 1));
      }
      // A slow reader: the server must wait for it rather than gather what is not yet taken.
      if (++chunks % 50 === 0) await sleep(20);
    }
    return { bytes, growthMb: peak - base, workers };
  } finally {
    clearInterval(sampler);
  }
}

describe('the register of a large company', () => {
  it.each(['json', 'csv', 'xlsx'])(
    'comes out as %s in bounded memory',
    async (formato) => {
      const { bytes, growthMb, workers } = await download(formato);
      // The generated company, and the few workers of the fixture every test server holds.
      if (formato !== 'xlsx') expect(workers - WORKERS).toBeGreaterThanOrEqual(0);
      if (formato !== 'xlsx') expect(workers - WORKERS).toBeLessThan(20);
      console.log(`register ${formato}: ${(bytes / 2 ** 20).toFixed(1)} MB written, server grew ${growthMb.toFixed(1)} MB`);
      if (formato === 'json') expect(bytes / 2 ** 20).toBeGreaterThan(HEAP_MB / 3);
      expect(growthMb).toBeLessThan(BOUND_MB);
      // Still serving.
      expect((await fetch(`${srv.url}/health`)).status).toBe(200);
    },
    300_000,
  );
});
