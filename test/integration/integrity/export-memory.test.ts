import { randomBytes, randomUUID } from 'node:crypto';
import { spawn } from 'node:child_process';
import { createReadStream, existsSync, mkdtempSync, readFileSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { verifyBundle } from '../../../src/integrity/bundle-verify.ts';
import { PostgresEventStore } from '../../../src/store/postgres-store.ts';
import { NEEDS_SERVER, freshDb, hasServer, type TestDb } from '../../support/db.ts';
import { CLI, ROOT } from '../../support/server.ts';

const EVENTS = 100_000;
const STREAMS = 1_000;
/** Workers of one subgerencia, as a large employer has. */
const WORKERS = 50_000;
/** Characters of padding per event: the events hold about 100 MB of data in all. */
const PADDING = 1_000;
/**
 * The heap the exporting process may have. Loading the events would take more than their 100 MB
 * of text alone; the export holds a page of a thousand rows at a time.
 */
const HEAP_MB = 96;

interface Peak {
  heapUsed: number;
  rss: number;
}

function exportIn(
  url: string,
  dir: string,
  name: string,
  ...selection: string[]
): Promise<{ code: number | null; stderr: string; peak: Peak; out: string }> {
  const out = join(dir, `${name}.ndjson.gz`);
  const peakFile = join(dir, `${name}.peak.json`);
  const env = { ...process.env, LOG_LEVEL: 'silent', DATABASE_URL: url, PEAK_MEMORY_FILE: peakFile };
  const args = [
    `--max-old-space-size=${HEAP_MB}`,
    '--import',
    './test/support/peak-memory.mjs',
    CLI,
    'audit',
    'export',
    ...selection,
    '--out',
    out,
  ];
  return new Promise((resolve, reject) => {
    const child = spawn(process.execPath, args, { cwd: ROOT, env });
    let stderr = '';
    child.stderr.on('data', (d) => (stderr += d));
    child.on('error', reject);
    child.on('close', (code) => {
      // A process killed by running out of heap writes no peaks.
      const peak = existsSync(peakFile) ? (JSON.parse(readFileSync(peakFile, 'utf8')) as Peak) : { heapUsed: NaN, rss: NaN };
      resolve({ code, stderr, out, peak });
    });
  });
}

const mb = (n: number) => Math.round(n / 1e5) / 10;

describe.skipIf(!hasServer())(`exporting ${EVENTS.toLocaleString('en')} events (${NEEDS_SERVER})`, () => {
  let t: TestDb;
  let dir: string;
  beforeAll(async () => {
    t = await freshDb();
    dir = mkdtempSync(join(tmpdir(), 'vac-export-mem-'));
    const store = new PostgresEventStore(t.db);
    await t.db.query(
      `INSERT INTO ref_workers (id, document_type, document_number, first_names, last_names) VALUES (1, 'CC', '1001', 'Ana', 'Pérez')`,
    );
    await t.db.exec(`
      INSERT INTO ref_subgerencias (id, nombre) VALUES ('SG-BIG', 'Planta');
      INSERT INTO ref_workers (id, document_type, document_number, first_names, last_names)
        SELECT 1000 + g, 'CC', (5000000 + g)::text, 'Nombre', 'Apellido' FROM generate_series(1, ${WORKERS}) g;
      INSERT INTO ref_contracts (id, worker_id, subgerencia_id, settled, additional, base_salary)
        SELECT g, 1000 + g, 'SG-BIG', false, false, 3000000 FROM generate_series(1, ${WORKERS}) g;
    `);
    await store.append([
      { stream: 'worker-1', expectedRevision: 'no_stream', events: [{ id: randomUUID(), type: 'Tick', data: { i: 0 }, metadata: {} }] },
    ]);
    const perStream = EVENTS / STREAMS;
    // Fifty streams a hundred events each per append.
    for (let s = 0; s < STREAMS; s += 50) {
      await store.append(
        Array.from({ length: 50 }, (_, k) => ({
          stream: `unit-SG${String(s + k).padStart(4, '0')}-2026-01`,
          expectedRevision: 'no_stream' as const,
          events: Array.from({ length: perStream }, (_, i) => ({
            id: randomUUID(),
            type: 'Tick',
            data: { i, note: randomBytes(PADDING / 2).toString('hex') },
            metadata: { requestId: randomUUID() },
          })),
        })),
      );
    }
  }, 600_000);
  afterAll(async () => {
    await t?.drop();
    if (dir) rmSync(dir, { recursive: true, force: true });
  });

  it(`writes them, and a subgerencia of ${WORKERS.toLocaleString('en')} workers, in a heap of ${HEAP_MB} MB, with a peak heap and resident set close to those of exporting one event, and the bundle verifies`, async () => {
    const small = await exportIn(t.url!, dir, 'small', '--documento', '1001');
    expect(small.code, small.stderr).toBe(0);
    const all = await exportIn(t.url!, dir, 'all', '--all');
    expect(all.code, all.stderr).toBe(0);
    const growth = { heapUsed: all.peak.heapUsed - small.peak.heapUsed, rss: all.peak.rss - small.peak.rss };
    console.log(
      `export of ${EVENTS + 1} events: peak heap ${mb(all.peak.heapUsed)} MB (one event: ${mb(small.peak.heapUsed)} MB), ` +
        `peak RSS ${mb(all.peak.rss)} MB (one event: ${mb(small.peak.rss)} MB)`,
    );
    // The events' padding alone is 100 MB: a process that held them could not stay this close.
    expect(growth.heapUsed).toBeLessThan(40e6);
    expect(growth.rss).toBeLessThan(60e6);

    const report = await verifyBundle(createReadStream(all.out));
    expect(report).toMatchObject({ workers: WORKERS + 1, events: EVENTS + 1, streams: STREAMS + 1, breaks: [], problems: [] });

    // A subgerencia of fifty thousand workers: read a page of workers at a time, its streams kept by the database.
    const unit = await exportIn(t.url!, dir, 'unit', '--subgerencia', 'SG-BIG');
    expect(unit.code, unit.stderr).toBe(0);
    console.log(`export of a subgerencia of ${WORKERS} workers: peak heap ${mb(unit.peak.heapUsed)} MB`);
    expect(unit.peak.heapUsed - small.peak.heapUsed).toBeLessThan(40e6);
    expect(await verifyBundle(createReadStream(unit.out))).toMatchObject({ workers: WORKERS, events: 0, breaks: [], problems: [] });
  }, 600_000);
});
