import { afterAll, afterEach, beforeAll, describe, expect, it } from 'vitest';
import {
  OCCUPANCY_TABLE,
  ProjectionService,
  RebuildBusyError,
  UnknownProjectorError,
  allProjectors,
  readCheckpoints,
  rebuild,
  silentLogger,
  type RebuildProgress,
} from '../../../src/projections/index.ts';
import type { Db, Queryable } from '../../../src/db/types.ts';
import { LockSession, rebuildKey } from '../../../src/projections/runtime/locks.ts';
import { PostgresEventStore } from '../../../src/store/postgres-store.ts';
import { comparePositions } from '../../../src/store/types.ts';
import { freshDb, hasServer, NEEDS_SERVER, type TestDb } from '../../support/db.ts';
import {
  appendScenario,
  approvedEvent,
  consultedEvent,
  created,
  deletedEvent,
  imported,
  interruptedEvent,
  record,
  toAudit,
  toWorker,
} from '../../support/event-builders.ts';
import { counts, dumpTables, untilReadable } from './support.ts';

describe('rebuild', () => {
  let t: TestDb;
  let store: PostgresEventStore;
  let service: ProjectionService | undefined;

  beforeAll(async () => {
    t = await freshDb();
    store = new PostgresEventStore(t.db);
  });
  afterEach(async () => {
    await service?.stop();
    service = undefined;
    await t.db.exec(`TRUNCATE events, streams, projection_checkpoints`);
    for (const p of allProjectors) for (const table of p.tables) await t.db.exec(`DROP TABLE IF EXISTS ${table}`);
  });
  afterAll(async () => {
    await t?.drop();
  });

  const startService = async () => {
    // Small batches live, large ones in the rebuild: both paths must give the same rows.
    service = new ProjectionService(t.db, store, { logger: silentLogger, batchSize: 3, idleMs: 10, standbyRetryMs: 50 });
    await service.start();
    return service;
  };

  /** A scenario's events, projected by the live runners: the tables a rebuild must reproduce. */
  const projectedLive = async (workers: number, seed: number) => {
    const head = await appendScenario(store, workers, seed);
    const s = await startService();
    expect(await s.waitFor(head, 60_000)).toBe(true);
    await s.stop();
    return { head, live: await dumpTables(t.db) };
  };

  it('builds tables identical to the ones the runners keep, and swaps them in under the live names', async () => {
    const { head, live } = await projectedLive(40, 21);

    const progress: RebuildProgress[] = [];
    const result = await rebuild(t.db, store, undefined, { batchSize: 50, onProgress: (p) => progress.push(p) });
    expect(result.projectors).toEqual(allProjectors.map((p) => p.name));
    expect(result.events).toBe(await store.countAfter({ commit: 0n, prepare: 0n }));
    expect(comparePositions(result.position, head)).toBe(0);
    expect(progress.at(-1)).toMatchObject({ phase: 'replay', done: result.events, total: result.events });

    const rebuilt = await dumpTables(t.db);
    expect(counts(rebuilt)).toEqual(counts(live));
    expect(rebuilt).toEqual(live);
    for (const c of (await readCheckpoints(t.db, result.projectors)).values()) expect(comparePositions(c, head)).toBe(0);

    // Nothing of the build is left over, and the next rebuild can use the same names again.
    const leftovers = await t.db.query<{ name: string }>(
      `SELECT relname AS name FROM pg_class WHERE relname LIKE 'rm\\_%' AND relname LIKE '%rebuild%'
       UNION ALL SELECT conname FROM pg_constraint WHERE conname LIKE '%rebuild%'`,
    );
    expect(leftovers.rows).toEqual([]);
    const indexes = await t.db.query<{ indexname: string }>(`SELECT indexname FROM pg_indexes WHERE tablename = 'rm_vacations' ORDER BY 1`);
    expect(indexes.rows.map((r) => r.indexname)).toEqual(['rm_vacations_pkey', 'rm_vacations_record', 'rm_vacations_worker']);
    await rebuild(t.db, store, ['vacations']);
    expect(await dumpTables(t.db)).toEqual(live);
  });

  /** The same database under another identity: the rebuild cannot tell the log is in it, and replays every event. */
  const elsewhere = (db: Db): Db => Object.create(db) as Db;

  it('reads the log where it lies or replays every event through the projectors: the same tables either way', async () => {
    const { live } = await projectedLive(20, 26);
    await rebuild(elsewhere(t.db), store, undefined, { batchSize: 50 });
    expect(await dumpTables(t.db)).toEqual(live);
    await rebuild(t.db, store);
    expect(await dumpTables(t.db)).toEqual(live);
  });

  it('gives what the projectors give to events in orders the service never writes', async () => {
    const a = record({ codigoPila: 'ODD-A', workerId: 301 });
    const b = record({ codigoPila: 'ODD-B', workerId: 301, compensated: true });
    const c = record({ codigoPila: 'ODD-C', workerId: 302 });
    // An approval before its record; a code created twice (the second wins, with other parts);
    // a deletion, then the code created again; a deletion of a code never created.
    await toWorker(store, 301, [
      approvedEvent(a),
      created(a),
      created({ ...a, businessDays: 7, amortizations: [{ periodo: '2024-04', diasHabiles: 7, diasCalendario: 9, valor: 700_000 }] }),
    ]);
    await toWorker(store, 301, [imported(b, false), deletedEvent(b), approvedEvent(b)]);
    await toWorker(store, 301, [created(b), approvedEvent(b), approvedEvent(b, { occurredAt: '2024-03-09T08:00:00.000Z' })]);
    await toWorker(store, 302, [deletedEvent(c, { approved: true })]);
    await toWorker(store, 302, [created(c), deletedEvent(c, { reason: 'edit', replacedBy: 'ODD-D' })]);
    // An interruption before its record, and a record interrupted then created again.
    const e = record({ codigoPila: 'ODD-E', workerId: 303 });
    const f = record({ codigoPila: 'ODD-F', workerId: 303, startDate: '2024-05-06', endDate: '2024-05-17' });
    const cut = { on: '2024-03-07', end: '2024-03-06', enjoyed: 3, calendarDays: 3, value: 300_000 };
    await toWorker(store, 303, [interruptedEvent(e, cut), created(e), created(f), approvedEvent(f), interruptedEvent(f, cut), created(f)]);
    await toWorker(store, 303, [interruptedEvent(e, { ...cut, enjoyed: 2, value: 200_000 })]);
    const s = await startService();
    expect(await s.waitFor(await store.headPosition(), 10_000)).toBe(true);
    await s.stop();
    const live = await dumpTables(t.db);
    await rebuild(t.db, store);
    expect(await dumpTables(t.db)).toEqual(live);
  });

  it('gives a vacation interrupted on its first day no place and no amortization, live and rebuilt alike', async () => {
    const first = record({ codigoPila: 'ZERO-A', workerId: 501 });
    const kept = record({ codigoPila: 'ZERO-B', workerId: 502 });
    const cut = { on: first.startDate, end: '2024-03-03', enjoyed: 0, calendarDays: 0, value: 0 };
    await toWorker(store, 501, [created(first), approvedEvent(first), interruptedEvent(first, cut)]);
    await toWorker(store, 502, [created(kept), approvedEvent(kept)]);
    const s = await startService();
    expect(await s.waitFor(await store.headPosition(), 10_000)).toBe(true);
    await s.stop();
    const live = await dumpTables(t.db);
    const rowsOf = (table: string, code: string) => live[table]!.filter((r) => r.includes(`"${code}"`));
    expect(rowsOf(OCCUPANCY_TABLE, 'ZERO-A')).toEqual([]);
    expect(rowsOf(OCCUPANCY_TABLE, 'ZERO-B')).toHaveLength(1);
    expect(rowsOf('rm_amortizations', 'ZERO-A')).toEqual([]);
    expect(rowsOf('rm_vacations', 'ZERO-A').map((r) => JSON.parse(r))).toEqual([
      expect.objectContaining({ business_days: 0, calendar_days: 0, total_value: 0, end_date: '2024-03-03', interrupted_on: '2024-03-04' }),
    ]);
    expect(rowsOf('rm_availability_records', 'ZERO-A').map((r) => JSON.parse(r))).toEqual([
      expect.objectContaining({ business_days: 0, live: true }),
    ]);
    await rebuild(t.db, store);
    expect(await dumpTables(t.db)).toEqual(live);
  });

  it('replays the read models whose events hold times the service does not write, to the same tables', async () => {
    await appendScenario(store, 10, 27);
    // JavaScript reads these, and rolls February 30 over into March; the database would not.
    const odd = record({ codigoPila: 'ODD-T', workerId: 401, createdAt: '2024-02-30T10:00:00.000Z' });
    await toWorker(store, 401, [created(odd, { occurredAt: 'Sat, 02 Mar 2024 10:00:00 GMT' })]);
    await toAudit(store, 401, [consultedEvent(401, { occurredAt: '2024-03-02 10:00' })]);
    const s = await startService();
    expect(await s.waitFor(await store.headPosition(), 10_000)).toBe(true);
    await s.stop();
    const live = await dumpTables(t.db);
    const oddRows = await t.db.query<{ created_at: string }>(`SELECT created_at::text FROM rm_vacations WHERE codigo_pila = 'ODD-T'`);
    expect(oddRows.rows).toEqual([{ created_at: '2024-03-01 10:00:00+00' }]);
    await rebuild(t.db, store);
    expect(await dumpTables(t.db)).toEqual(live);
  });

  it('runs while the service serves and events keep arriving; the service carries on from the swapped tables', async () => {
    await appendScenario(store, 30, 22);
    const s = await startService();
    const during = rebuild(t.db, store, undefined, { batchSize: 20 });
    const writes = appendScenario(store, 20, 23, 1000);
    const [result, head] = await Promise.all([during, writes]);
    expect(result.events).toBeGreaterThan(0);
    expect(await s.waitFor(head, 60_000)).toBe(true);
    const st = await s.status();
    expect(
      st.every((x) => x.lag === 0),
      JSON.stringify(st, (_k, v) => (typeof v === 'bigint' ? String(v) : v)),
    ).toBe(true);
    const live = await dumpTables(t.db);
    await s.stop();
    await rebuild(t.db, store);
    expect(await dumpTables(t.db)).toEqual(live);
  });

  it('rebuilds only the named read models and refuses unknown names', async () => {
    const head = await appendScenario(store, 5, 24);
    await untilReadable(store, head);
    const r = await rebuild(t.db, store, ['occupancy', 'audit']);
    expect(r.projectors).toEqual(['occupancy', 'audit']);
    const checkpoints = await readCheckpoints(t.db, ['occupancy', 'audit', 'vacations']);
    expect(comparePositions(checkpoints.get('occupancy')!, head)).toBe(0);
    expect(comparePositions(checkpoints.get('vacations')!, { commit: 0n, prepare: 0n })).toBe(0);
    await expect(rebuild(t.db, store, ['vacations', 'nope'])).rejects.toThrow(UnknownProjectorError);
    await expect(rebuild(t.db, store, ['nope'])).rejects.toThrow(/valid names are vacations, amortizations/);
  });

  it('fails as a whole when one read model fails mid-replay: the live tables stay and nothing of the build is left', async () => {
    const { live } = await projectedLive(40, 25);

    // The third batch of the occupancy build fails; the other read models go on meanwhile.
    let occupancyBatches = 0;
    const failing = Object.assign(Object.create(t.db) as Db, {
      transaction: <T>(fn: (tx: Queryable) => Promise<T>, opts?: { durable?: boolean }) =>
        t.db.transaction(
          (tx) =>
            fn({
              exec: (sql) => tx.exec(sql),
              query: (sql, params) => {
                if (sql.includes(`INSERT INTO ${OCCUPANCY_TABLE}__rebuild`) && ++occupancyBatches === 3) {
                  return Promise.reject(new Error('disk full'));
                }
                return tx.query(sql, params);
              },
            }),
          opts,
        ),
    });
    await expect(rebuild(failing, store, undefined, { batchSize: 20 })).rejects.toThrow('disk full');
    expect(occupancyBatches).toBe(3);

    expect(await dumpTables(t.db)).toEqual(live);
    const leftovers = await t.db.query(`SELECT relname FROM pg_class WHERE relname LIKE '%\\_\\_rebuild%'`);
    expect(leftovers.rows).toEqual([]);
    // The lock is free again: a rebuild right after runs and changes nothing.
    await rebuild(t.db, store);
    expect(await dumpTables(t.db)).toEqual(live);
  });

  it.skipIf(!hasServer())(`refuses to run twice at once${hasServer() ? '' : ` (skipped: ${NEEDS_SERVER})`}`, async () => {
    const other = new LockSession(t.db);
    try {
      expect(await other.tryLock(rebuildKey('audit'))).toBe(true);
      await expect(rebuild(t.db, store, ['audit'])).rejects.toThrow(RebuildBusyError);
    } finally {
      await other.close();
    }
    await rebuild(t.db, store, ['audit']);
  });
});
