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

  it.skipIf(!hasServer())(
    `leaves them to the runners when a rebuild already runs elsewhere${hasServer() ? '' : ` (skipped: ${NEEDS_SERVER})`}`,
    async () => {
      const head = await appendScenario(store, 4, 45);
      const other = new LockSession(t.db);
      try {
        expect(await other.tryLock(rebuildKey(allProjectors[0]!.name))).toBe(true);
        const logger = recordingLogger();
        const s = await start({ minLag: 1, minShare: 0.4 }, logger);
        expect(logger.lines.some((l) => l.msg === REBUILDING)).toBe(true);
        const warned = logger.lines.find((l) => l.level === 'warn');
        expect(warned?.msg).toBe('the rebuild at start-up did not complete; the runners catch up');
        expect(warned?.obj).toEqual({ err: `a rebuild of ${allProjectors[0]!.name} is already running` });
        expect(await s.waitFor(head, 60_000)).toBe(true);
      } finally {
        await other.close();
      }
    },
  );
});
