import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import { ProjectionService, allProjectors, readCheckpoints, silentLogger } from '../../../src/projections/index.ts';
import type { BulkStartOptions } from '../../../src/projections/runtime/bulk-start.ts';
import { LockSession, rebuildKey } from '../../../src/projections/runtime/locks.ts';
import type { ProjectionLogger } from '../../../src/projections/types.ts';
import { PostgresEventStore } from '../../../src/store/postgres-store.ts';
import { comparePositions, type Position } from '../../../src/store/types.ts';
import { appendScenario } from '../../support/event-builders.ts';
import { freshDb, hasServer, NEEDS_SERVER, type TestDb } from '../../support/db.ts';
import { counts, dropReadModels, dumpTables } from './support.ts';

/** The messages a service's projections logged, by level. */
function recordingLogger(): ProjectionLogger & { lines: { level: string; msg: string; obj: object }[] } {
  const lines: { level: string; msg: string; obj: object }[] = [];
  const at = (level: string) => (obj: object, msg?: string) => void lines.push({ level, msg: msg ?? '', obj });
  return { lines, info: at('info'), warn: at('warn'), error: at('error') };
}

const REBUILDING = 'read models far behind the event log: rebuilding them before taking traffic';

describe('a service started with its read models far behind the log', () => {
  let t: TestDb;
  let store: PostgresEventStore;
  let service: ProjectionService | undefined;

  // A database of its own for each case: each starts from a log no service has read.
  beforeEach(async () => {
    t = await freshDb();
    store = new PostgresEventStore(t.db);
  });
  afterEach(async () => {
    await service?.stop();
    service = undefined;
    await t?.drop();
  });

  const start = async (bulkStart: BulkStartOptions | false, logger: ProjectionLogger = silentLogger) => {
    service = new ProjectionService(t.db, store, { logger, batchSize: 3, idleMs: 10, standbyRetryMs: 50, bulkStart });
    await service.start();
    return service;
  };

  /** The tables the live runners make of the log, then forgotten: what a start must come to. */
  const projectedLive = async (head: Position) => {
    const s = await start(false);
    expect(await s.waitFor(head, 60_000)).toBe(true);
    await s.stop();
    service = undefined;
    const live = await dumpTables(t.db);
    await dropReadModels(t.db);
    return live;
  };

  const checkpointsAt = async (head: Position) => {
    const cps = await readCheckpoints(
      t.db,
      allProjectors.map((p) => p.name),
    );
    return [...cps.values()].every((c) => comparePositions(c, head) >= 0);
  };

  it('rebuilds them before the runners start, into the tables the runners would have made', async () => {
    const head = await appendScenario(store, 12, 41);
    const live = await projectedLive(head);

    const logger = recordingLogger();
    const s = await start({ minLag: 10, minShare: 0.4 }, logger);
    // Whole when start answers: the runners, started last, had nothing left to read.
    expect(await checkpointsAt(head)).toBe(true);
    const said = logger.lines.find((l) => l.msg === REBUILDING);
    expect(said?.obj).toMatchObject({ projectors: allProjectors.map((p) => p.name) });
    expect(logger.lines.some((l) => l.msg === 'read models rebuilt')).toBe(true);
    expect(await s.waitFor(head, 10_000)).toBe(true);
    const rebuilt = await dumpTables(t.db);
    expect(counts(rebuilt)).toEqual(counts(live));
    expect(rebuilt).toEqual(live);
  });

  it('leaves a lag shorter than the least that counts to the runners', async () => {
    const head = await appendScenario(store, 3, 42);
    const logger = recordingLogger();
    // A scenario of three workers is far fewer events than this.
    const s = await start({ minLag: 10_000, minShare: 0 }, logger);
    expect(logger.lines.some((l) => l.msg === REBUILDING)).toBe(false);
    expect(await s.waitFor(head, 60_000)).toBe(true);
  });

  it('leaves a lag that is a small share of the log to the runners', async () => {
    const first = await appendScenario(store, 12, 43);
    const live = await start(false);
    expect(await live.waitFor(first, 60_000)).toBe(true);
    await live.stop();
    service = undefined;
    const head = await appendScenario(store, 1, 44);
    const logger = recordingLogger();
    // Behind by one worker's events of thirteen workers': far more than minLag, far less than half.
    const s = await start({ minLag: 1, minShare: 0.5 }, logger);
    expect(logger.lines.some((l) => l.msg === REBUILDING)).toBe(false);
    expect(await s.waitFor(head, 60_000)).toBe(true);
  });

  /** `fn` while another session holds the rebuild lock of the first read model. */
  const whileRebuiltElsewhere = async (fn: (other: LockSession) => Promise<void>) => {
    const other = new LockSession(t.db);
    try {
      expect(await other.tryLock(rebuildKey(allProjectors[0]!.name))).toBe(true);
      await fn(other);
    } finally {
      await other.close();
    }
  };

  it.skipIf(!hasServer())(
    `waits for a rebuild another process runs, then lets the runners take the rest${hasServer() ? '' : ` (skipped: ${NEEDS_SERVER})`}`,
    async () => {
      const head = await appendScenario(store, 4, 45);
      await whileRebuiltElsewhere(async (other) => {
        const logger = recordingLogger();
        let started = false;
        const starting = start({ minLag: 1, minShare: 0.4 }, logger).then((s) => ((started = true), s));
        await new Promise((r) => setTimeout(r, 1500));
        // Not a second rebuild beside the other one, and not serving while it runs.
        expect(started).toBe(false);
        expect(logger.lines.map((l) => l.msg)).toEqual([
          'read models far behind the event log and rebuilt by another process: waiting for it before taking traffic',
        ]);
        await other.close();
        const s = await starting;
        expect(logger.lines.map((l) => l.msg)).toContain('the rebuild elsewhere ended; the runners catch up from it');
        expect(logger.lines.map((l) => l.msg)).not.toContain(REBUILDING);
        expect(await s.waitFor(head, 60_000)).toBe(true);
      });
    },
  );

  it('leaves them to the runners when the rebuild fails', async () => {
    const head = await appendScenario(store, 4, 45);
    const logger = recordingLogger();
    service = new ProjectionService(t.db, store, {
      logger,
      batchSize: 3,
      idleMs: 10,
      standbyRetryMs: 50,
      bulkStart: { minLag: 1, minShare: 0.4 },
      bulkRebuild: () => Promise.reject(new Error('the rebuild ended with exit code 1')),
    });
    await service.start();
    expect(logger.lines.map((l) => l.msg)).toContain(REBUILDING);
    const warned = logger.lines.find((l) => l.level === 'warn');
    expect(warned?.msg).toBe('the rebuild at start-up did not complete; the runners catch up');
    expect(warned?.obj).toEqual({ err: 'the rebuild ended with exit code 1' });
    expect(await service.waitFor(head, 60_000)).toBe(true);
  });

  it.skipIf(!hasServer())(
    `waits for a rebuild elsewhere no longer than its bound${hasServer() ? '' : ` (skipped: ${NEEDS_SERVER})`}`,
    async () => {
      const head = await appendScenario(store, 4, 45);
      await whileRebuiltElsewhere(async () => {
        const logger = recordingLogger();
        const s = await start({ minLag: 1, minShare: 0.4, waitElsewhereMs: 300 }, logger);
        expect(logger.lines.find((l) => l.level === 'warn')?.msg).toBe('the rebuild elsewhere has not ended; the runners catch up');
        // The rebuild elsewhere holds only its own lock: the runners here bring every read model up.
        expect(await s.waitFor(head, 60_000)).toBe(true);
      });
    },
  );
});
