import { afterAll, afterEach, beforeAll, describe, expect, it } from 'vitest';
import {
  OCCUPANCY_TABLE,
  ProjectionService,
  REGISTER_TABLE,
  RebuildBusyError,
  UnknownProjectorError,
  allProjectors,
  readCheckpoints,
  rebuild,
  silentLogger,
  type RebuildProgress,
} from '../../../src/projections/index.ts';
import type { Db, Queryable } from '../../../src/db/types.ts';
import { todayInBogota } from '../../../src/domain/index.ts';
import { workerStream } from '../../../src/events/streams.ts';
import { LockSession, rebuildKey } from '../../../src/projections/runtime/locks.ts';
import { PostgresEventStore } from '../../../src/store/postgres-store.ts';
import { START, comparePositions, type EventStore, type NewEvent } from '../../../src/store/types.ts';
import { freshDb, hasServer, NEEDS_SERVER, type TestDb } from '../../support/db.ts';
import {
  appendScenario,
  approvedEvent,
  consultedEvent,
  created,
  deletedEvent,
  editEvents,
  imported,
  interruptedEvent,
  record,
  toAudit,
  toWorker,
} from '../../support/event-builders.ts';
import { counts, dropReadModels, dumpTables, untilReadable } from './support.ts';

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
    await t.db.exec(`TRUNCATE events, streams`);
    await dropReadModels(t.db);
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
    // Every event of the types the read models handle, and none of the others.
    const types = [...new Set(allProjectors.flatMap((p) => [...p.handles]))];
    expect(result.events).toBe(await store.countAfter(START, { types }));
    expect(result.events).toBeLessThan(await store.countAfter(START));
    expect(comparePositions(result.position, head)).toBe(0);
    expect(progress.at(-1)).toMatchObject({ phase: 'replay', done: result.events, total: result.events });

    const rebuilt = await dumpTables(t.db);
    expect(counts(rebuilt)).toEqual(counts(live));
    expect(await unanalyzed()).toEqual([]);
    expect(rebuilt).toEqual(live);
    for (const c of (await readCheckpoints(t.db, result.projectors)).values()) expect(comparePositions(c, head)).toBe(0);

    // Nothing of the build is left over, and the next rebuild can use the same names again.
    const leftovers = await t.db.query<{ name: string }>(
      `SELECT relname AS name FROM pg_class WHERE relname LIKE 'rm\\_%' AND relname LIKE '%rebuild%'
       UNION ALL SELECT conname FROM pg_constraint WHERE conname LIKE '%rebuild%'`,
    );
    expect(leftovers.rows).toEqual([]);
    const indexes = await t.db.query<{ indexname: string }>(`SELECT indexname FROM pg_indexes WHERE tablename = 'rm_vacations' ORDER BY 1`);
    expect(indexes.rows.map((r) => r.indexname)).toEqual([
      'rm_vacations_awaiting',
      'rm_vacations_pkey',
      'rm_vacations_record',
      'rm_vacations_worker',
    ]);
    await rebuild(t.db, store, ['vacations']);
    expect(await dumpTables(t.db)).toEqual(live);
  });

  /**
   * Rebuilt tables holding rows that have no planner statistics: those are planned as nearly
   * empty until something analyzes them (autovacuum may be off, as on the test server).
   */
  const unanalyzed = async () => {
    if (t.db.kind !== 'postgres') return [];
    const out: string[] = [];
    for (const table of allProjectors.flatMap((p) => p.tables)) {
      const r = await t.db.query<{ rows: boolean; stats: boolean }>(
        `SELECT EXISTS (SELECT 1 FROM ${table}) AS rows, EXISTS (SELECT 1 FROM pg_stats WHERE tablename = $1) AS stats`,
        [table],
      );
      if (r.rows[0]!.rows && !r.rows[0]!.stats) out.push(table);
    }
    return out;
  };

  /**
   * The store without its read stream by stream: the rebuild reads the log in its order, and
   * holding `units` units at most, writes them out and reads them back as they come again.
   */
  const inLogOrder = (s: EventStore): EventStore => Object.assign(Object.create(s) as EventStore, { readByStream: undefined });

  /** The tables rebuilt from the log in its order, a few events and units at a time. */
  const rebuiltInLogOrder = async (units = 2) => {
    await rebuild(t.db, inLogOrder(store), undefined, { batchSize: 4, unitsInMemory: units });
    return dumpTables(t.db);
  };

  /** The register's rows of a code, oldest version first. */
  const versionsOf = async (code: string) =>
    (
      await t.db.query<Record<string, unknown>>(
        `SELECT revision::integer, recorded_on, superseded_on, approved, end_date, business_days, interrupted_on, interruption_reason
           FROM ${REGISTER_TABLE} WHERE codigo_pila = $1 ORDER BY revision`,
        [code],
      )
    ).rows;

  it('rebuilds stream by stream, or in the log order holding few units at once: the same tables either way', async () => {
    const { live } = await projectedLive(20, 26);
    expect(await rebuiltInLogOrder(3)).toEqual(live);
    expect(await unanalyzed()).toEqual([]);
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
    expect(await rebuiltInLogOrder()).toEqual(live);
    await rebuild(t.db, store);
    expect(await dumpTables(t.db)).toEqual(live);
  });

  /** An event that carries no time of its own: the register dates it by when the log recorded it. */
  const withoutTime = (e: NewEvent): NewEvent => {
    const { occurredAt: _dropped, ...metadata } = e.metadata ?? {};
    return { ...e, metadata };
  };

  it('counts beside the replay, and still tells the replay whole when the count lands after it', async () => {
    const { head } = await projectedLive(12, 5);
    let replayed!: () => void;
    const replayEnded = new Promise<void>((resolve) => (replayed = resolve));
    // The total's count answers only once the replay has read its last page.
    const lateCount = Object.assign(Object.create(store) as EventStore, {
      readByStream: async (...args: Parameters<NonNullable<EventStore['readByStream']>>) => {
        const page = await store.readByStream(...args);
        if (page.length === 0) replayed();
        return page;
      },
      countAfter: async (...args: Parameters<EventStore['countAfter']>) => {
        await replayEnded;
        return store.countAfter(...args);
      },
    });
    const progress: RebuildProgress[] = [];
    const result = await rebuild(t.db, lateCount, undefined, { batchSize: 10, onProgress: (p) => progress.push(p) });
    expect(comparePositions(result.position, head)).toBe(0);
    const replay = progress.filter((p) => p.phase === 'replay');
    expect(replay).toHaveLength(1);
    expect(replay[0]).toMatchObject({ done: result.events, total: result.events });
  });

  it("gives the register's versions, each on its business day, live and rebuilt alike", async () => {
    const on = (businessDate: string) => ({ businessDate });
    // Created, approved, then interrupted on its first day: no day enjoyed.
    const a = record({ codigoPila: 'REG-A', workerId: 601 });
    await toWorker(store, 601, [created(a, on('2024-02-01')), approvedEvent(a, on('2024-02-02'))]);
    await toWorker(store, 601, [
      interruptedEvent(a, { on: '2024-03-04', end: '2024-03-03', enjoyed: 0, calendarDays: 0, value: 0 }, on('2024-03-04')),
    ]);
    // Imported approved and not, with no business date: dated in Bogota by when they happened,
    // a millisecond before its midnight and at it; then the second approved.
    const b = record({ codigoPila: 'REG-B', workerId: 602 });
    const c = record({ codigoPila: 'REG-C', workerId: 602, startDate: '2024-05-06', endDate: '2024-05-17' });
    await toWorker(store, 602, [
      imported(b, true, { occurredAt: '2024-03-02T04:59:59.999Z' }),
      imported(c, false, { occurredAt: '2024-03-02T05:00:00.000Z' }),
    ]);
    await toWorker(store, 602, [approvedEvent(c, { businessDate: '', occurredAt: '2024-03-05T04:00:00Z' })]);
    // One deleted, one edited (the old record out and the new one in, in one append).
    const d = record({ codigoPila: 'REG-D', workerId: 603 });
    const e = record({ codigoPila: 'REG-E', workerId: 603, startDate: '2024-05-06', endDate: '2024-05-17' });
    const e2 = record({ codigoPila: 'REG-E2', workerId: 603, startDate: '2024-05-13', endDate: '2024-05-24' });
    await toWorker(store, 603, [created(d, on('2024-02-01')), created(e, on('2024-02-01'))]);
    await toWorker(store, 603, [deletedEvent(d, {}, on('2024-02-03')), ...editEvents(e, e2, on('2024-02-05'))]);
    // No time of their own: dated by the log.
    const f = record({ codigoPila: 'REG-F', workerId: 604 });
    await toWorker(store, 604, [withoutTime(created(f)), withoutTime(approvedEvent(f))]);
    // Interrupted twice, then approved again, which the service never writes: each version keeps the latest cut.
    const g = record({ codigoPila: 'REG-G', workerId: 605 });
    await toWorker(store, 605, [
      created(g, on('2024-02-01')),
      approvedEvent(g, on('2024-02-02')),
      interruptedEvent(g, { on: '2024-03-08', end: '2024-03-07', enjoyed: 4, calendarDays: 4, value: 400_000 }, on('2024-03-08')),
      interruptedEvent(
        g,
        { on: '2024-03-06', end: '2024-03-05', enjoyed: 2, calendarDays: 2, value: 200_000, reason: 'otro' },
        on('2024-03-11'),
      ),
      approvedEvent(g, on('2024-03-12')),
    ]);
    const s = await startService();
    expect(await s.waitFor(await store.headPosition(), 10_000)).toBe(true);
    await s.stop();
    const live = await dumpTables(t.db);

    const version = (revision: number, recorded_on: string, superseded_on: string | null, approved: boolean, cut = {}) => ({
      revision,
      recorded_on,
      superseded_on,
      approved,
      end_date: '2024-03-15',
      business_days: 10,
      interrupted_on: null,
      interruption_reason: null,
      ...cut,
    });
    const none = { end_date: '2024-03-03', business_days: 0, interrupted_on: '2024-03-04', interruption_reason: 'incapacidad' };
    expect(await versionsOf('REG-A')).toEqual([
      version(0, '2024-02-01', '2024-02-02', false),
      version(1, '2024-02-02', '2024-03-04', true),
      version(2, '2024-03-04', null, true, none),
    ]);
    expect(await versionsOf('REG-B')).toEqual([version(0, '2024-03-01', null, true)]);
    const may = { end_date: '2024-05-17' };
    expect(await versionsOf('REG-C')).toEqual([
      version(1, '2024-03-02', '2024-03-04', false, may),
      version(2, '2024-03-04', null, true, may),
    ]);
    expect(await versionsOf('REG-D')).toEqual([version(0, '2024-02-01', '2024-02-03', false)]);
    expect(await versionsOf('REG-E')).toEqual([version(1, '2024-02-01', '2024-02-05', false, may)]);
    expect(await versionsOf('REG-E2')).toEqual([version(4, '2024-02-05', null, false, { end_date: '2024-05-24' })]);
    const logged = todayInBogota(new Date((await store.readStream(workerStream(604)))[0]!.recordedAt));
    expect(await versionsOf('REG-F')).toEqual([version(0, logged, logged, false), version(1, logged, null, true)]);
    const first = { end_date: '2024-03-07', business_days: 4, interrupted_on: '2024-03-08', interruption_reason: 'incapacidad' };
    const second = { end_date: '2024-03-05', business_days: 2, interrupted_on: '2024-03-06', interruption_reason: 'otro' };
    expect(await versionsOf('REG-G')).toEqual([
      version(0, '2024-02-01', '2024-02-02', false),
      version(1, '2024-02-02', '2024-03-08', true),
      version(2, '2024-03-08', '2024-03-11', true, first),
      version(3, '2024-03-11', '2024-03-12', true, second),
      version(4, '2024-03-12', null, true, second),
    ]);

    expect(await rebuiltInLogOrder()).toEqual(live);
    await rebuild(t.db, store);
    expect(await dumpTables(t.db)).toEqual(live);
  });

  it('rebuilds the register when one code was written at the same revision of two streams, to the same table', async () => {
    const a = record({ codigoPila: 'TWICE-A', workerId: 701 });
    await toWorker(store, 701, [created(a)]);
    await toWorker(store, 702, [created(record({ codigoPila: 'TWICE-B', workerId: 702 }))]);
    await toWorker(store, 703, [created({ ...a, workerId: 703 })]);
    const s = await startService();
    expect(await s.waitFor(await store.headPosition(), 10_000)).toBe(true);
    await s.stop();
    const live = await dumpTables(t.db);
    expect(live[REGISTER_TABLE]!.filter((r) => r.includes('TWICE-A')).map((r) => JSON.parse(r).worker_id)).toEqual([703]);
    await rebuild(t.db, store);
    expect(await dumpTables(t.db)).toEqual(live);
    expect(await rebuiltInLogOrder()).toEqual(live);
    // Read a stream a batch, the code goes out twice and meets the table's key: the rebuild
    // starts again in the log's order, to the same tables.
    await rebuild(t.db, store, undefined, { batchSize: 1 });
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
    await rebuild(t.db, store);
    expect(await dumpTables(t.db)).toEqual(live);
  });

  it('rebuilds the read models whose events hold times the service does not write, to the same tables', async () => {
    await appendScenario(store, 10, 27);
    // JavaScript reads these, and rolls February 30 over into March; the database would not.
    const odd = record({ codigoPila: 'ODD-T', workerId: 401, createdAt: '2024-02-30T10:00:00.000Z' });
    await toWorker(store, 401, [
      created(odd, { occurredAt: 'Sat, 02 Mar 2024 10:00:00 GMT' }),
      approvedEvent(odd, { occurredAt: 'pronto' }),
    ]);
    await toAudit(store, 401, [consultedEvent(401, { occurredAt: '2024-03-02 10:00' })]);
    const s = await startService();
    expect(await s.waitFor(await store.headPosition(), 10_000)).toBe(true);
    await s.stop();
    const live = await dumpTables(t.db);
    const oddRows = await t.db.query<{ created_at: string }>(`SELECT created_at::text FROM rm_vacations WHERE codigo_pila = 'ODD-T'`);
    expect(oddRows.rows).toEqual([{ created_at: '2024-03-01 10:00:00+00' }]);
    // The register dates the first by the time JavaScript reads, the second (no time at all) by the log.
    const logged = todayInBogota(new Date((await store.readStream(workerStream(401)))[1]!.recordedAt));
    expect((await versionsOf('ODD-T')).map((v) => [v.recorded_on, v.superseded_on])).toEqual([
      ['2024-03-02', logged],
      [logged, null],
    ]);
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
    await expect(rebuild(t.db, store, ['nope'])).rejects.toThrow(/valid names are worker-states, vacations, amortizations/);
  });

  it('fails as a whole when one read model fails mid-replay: the live tables stay and nothing of the build is left', async () => {
    const { live } = await projectedLive(40, 25);

    // The third write of the occupancy build fails; the other read models go on meanwhile.
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
    await expect(rebuild(failing, inLogOrder(store), undefined, { batchSize: 20, unitsInMemory: 5 })).rejects.toThrow('disk full');
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
