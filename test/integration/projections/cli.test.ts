import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { ProjectionService, silentLogger } from '../../../src/projections/index.ts';
import { PostgresEventStore } from '../../../src/store/postgres-store.ts';
import { positionToString, type Position } from '../../../src/store/types.ts';
import { freshDb, hasServer, NEEDS_SERVER, type TestDb } from '../../support/db.ts';
import { runCli, type CliResult } from '../../support/server.ts';
import { appendScenario } from '../../support/event-builders.ts';
import { untilReadable } from './support.ts';

function cli(env: Record<string, string>, ...args: string[]): Promise<CliResult> {
  return runCli({ ...process.env, DATABASE_URL: '', DATA_DIR: '', LOG_LEVEL: 'silent', ...env }, args);
}

describe('CLI: mistakes caught before opening the database', () => {
  // A DATABASE_URL nobody answers: reaching the database would fail differently.
  const env = { DATABASE_URL: 'postgres://nobody@127.0.0.1:1/none' };

  it('an unknown projection name lists the valid ones', async () => {
    const r = await cli(env, 'projections', 'rebuild', 'vacations', 'nope');
    expect(r).toMatchObject({
      code: 1,
      stderr:
        'vacaciones: unknown projection nope: valid names are worker-states, vacations, amortizations, contract-links, occupancy, audit, register, closures\n',
    });
  });

  it('an --as-of that is not a real date or time', async () => {
    const r = await cli(env, 'replay', '--documento', '1001', '--as-of', '2024-02-30');
    expect(r).toMatchObject({ code: 1, stderr: 'vacaciones: --as-of 2024-02-30 is not an ISO time or a date as YYYY-MM-DD\n' });
  });
});

/**
 * The CLI runs as a child process against the test's own database. Server only: on PGlite each
 * run would have to reopen a database directory the test process must first close, which makes
 * these runs several seconds each.
 */
describe.skipIf(!hasServer())(`CLI: projections and replay${hasServer() ? '' : ` (skipped: ${NEEDS_SERVER})`}`, () => {
  let t: TestDb;
  let head: Position;
  const run = (...args: string[]) => cli({ DATABASE_URL: t.url! }, ...args);

  beforeAll(async () => {
    t = await freshDb();
    const store = new PostgresEventStore(t.db);
    head = await appendScenario(store, 4, 31);
    await untilReadable(store, head);
    await t.db.query(`INSERT INTO ref_workers (id, document_type, document_number, first_names, last_names)
                      VALUES (1, 'CC', '1001', 'Ana', 'Pérez')`);
  });
  afterAll(async () => {
    await t?.drop();
  });

  const statusRows = (out: string) =>
    out
      .trim()
      .split('\n')
      .slice(1)
      .map((l) => l.split(/\s+/));

  it('status, rebuild, status: the rebuilt read models catch up with the head', async () => {
    const before = await run('projections', 'status');
    expect(before.code).toBe(0);
    expect(before.stdout.split('\n')[0]).toMatch(/^NAME\s+CHECKPOINT\s+HEAD\s+LAG\s+STATE$/);
    const rows = statusRows(before.stdout);
    expect(rows.map((r) => r[0])).toEqual([
      'worker-states',
      'vacations',
      'amortizations',
      'contract-links',
      'occupancy',
      'audit',
      'register',
      'closures',
    ]);
    const total = Number(rows[1]![3]);
    expect(total).toBeGreaterThan(10);
    expect(rows[1]!.slice(1)).toEqual(['0/0', positionToString(head), String(total), 'stopped']);

    const rebuilt = await run('projections', 'rebuild', 'vacations', 'audit');
    expect(rebuilt.stderr).toMatch(/rebuild replay: \d+\/\d+ events \(100%\)/);
    const applied = /^rebuilt vacations, audit: (\d+) events of the types they handle in [\d.]+ s \(\d+ events\/s\)$/.exec(
      rebuilt.stdout.trim(),
    );
    // The log's other events (codes assigned, places booked) are not read at all.
    expect(Number(applied?.[1])).toBeGreaterThan(0);
    expect(Number(applied?.[1])).toBeLessThan(total);
    expect(rebuilt.code).toBe(0);

    const after = statusRows((await run('projections', 'status')).stdout);
    expect(after.find((r) => r[0] === 'vacations')!.slice(1, 4)).toEqual([positionToString(head), positionToString(head), '0']);
    expect(after.find((r) => r[0] === 'occupancy')![3]).toBe(String(total));

    // A service running in another process shows as running; its runners hold the advisory locks.
    const service = new ProjectionService(t.db, new PostgresEventStore(t.db), { logger: silentLogger, idleMs: 10 });
    await service.start();
    try {
      expect(await service.waitFor(head, 10_000)).toBe(true);
      const live = statusRows((await run('projections', 'status')).stdout);
      expect(live.map((r) => [r[3], r[4]])).toEqual(live.map(() => ['0', 'running']));
    } finally {
      await service.stop();
    }
  });

  it('replay --json: the worker and audit streams merged in order, each event with the state after it', async () => {
    const r = await run('replay', '--documento', '1001', '--json');
    expect(r.stderr).toBe('');
    const entries = JSON.parse(r.stdout) as {
      position: string;
      stream: string;
      type: string;
      revision: number;
      metadata: { userEmail: string };
      stateAfter: { liveRecords: number; daysTaken: number; vacations: { codigoPila: string; deleted: boolean }[] };
    }[];
    expect(new Set(entries.map((e) => e.stream))).toEqual(new Set(['worker-1', 'audit-worker-1']));
    expect(entries.map((e) => e.type)).toContain('VacationDataConsulted');
    expect(entries[0]!.type).toMatch(/^Vacation(Created|Imported)$/);
    expect(entries[0]!.stateAfter.liveRecords).toBe(1);
    expect(entries[0]!.metadata.userEmail).toBe('analista@example.com');
    const last = entries.at(-1)!.stateAfter;
    expect(last.liveRecords).toBe(last.vacations.filter((v) => !v.deleted).length);
    expect(last.daysTaken).toBeGreaterThan(0);

    const past = await run('replay', '--documento', '1001', '--as-of', '2000-01-01', '--json');
    expect(JSON.parse(past.stdout)).toEqual([]);
  });

  it('replay prints an aligned table; an unknown document is one line and exit 1', async () => {
    const [table, unknownDoc] = await Promise.all([run('replay', '--documento', '1001'), run('replay', '--documento', '999')]);
    expect(table.code).toBe(0);
    const lines = table.stdout.trim().split('\n');
    expect(lines[0]).toMatch(/^worker 1 \(document 1001\): \d+ events$/);
    expect(lines[1]).toMatch(/^REV\s+STREAM\s+RECORDED \(BOGOTA\)\s+EVENT\s+WHO\s+REQUEST\s+LIVE\s+DAYS\s+WHAT\s+LIVE CODES$/);
    expect(lines[2]).toMatch(/^\s*0\s+worker\s+\d{4}-\d\d-\d\d \d\d:\d\d:\d\d\s+(registro|importación)\s+analista@example.com/);
    expect(unknownDoc).toMatchObject({ code: 1, stderr: 'vacaciones: no worker with document 999\n' });
  });
});
