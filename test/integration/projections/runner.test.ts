import { afterAll, afterEach, beforeAll, describe, expect, it, vi } from 'vitest';
import {
  ProjectionService,
  allProjectors,
  ensureProjectionTables,
  readCheckpoints,
  rebuild,
  silentLogger,
  type ProjectionHooks,
  type ProjectionLogger,
} from '../../../src/projections/index.ts';
import { decodeAll } from '../../../src/projections/runtime/runner.ts';
import { applyBatch } from '../../../src/projections/runtime/units.ts';
import { PostgresEventStore } from '../../../src/store/postgres-store.ts';
import { START, comparePositions, type Position, type StoredEvent } from '../../../src/store/types.ts';
import { freshDb, hasServer, NEEDS_SERVER, type TestDb } from '../../support/db.ts';
import { appendScenario } from '../../support/event-builders.ts';
import { counts, dumpTables, untilReadable } from './support.ts';

async function readEverything(store: PostgresEventStore): Promise<StoredEvent[]> {
  const out: StoredEvent[] = [];
  for (let after: Position = START; ;) {
    const page = await store.readAll({ after, limit: 1000 });
    if (page.length === 0) return out;
    out.push(...page);
    after = page[page.length - 1]!.position;
  }
}

/** A fresh database per test: each one starts from an empty store. */
describe('projection runner', () => {
  let t: TestDb;
  let store: PostgresEventStore;
  const services: ProjectionService[] = [];

  const service = (opts: ConstructorParameters<typeof ProjectionService>[2] = {}) => {
    const s = new ProjectionService(t.db, store, { logger: silentLogger, idleMs: 10, standbyRetryMs: 100, ...opts });
    services.push(s);
    return s;
  };

  /**
   * A service of the audit trail's runner alone, on a store that notes when each of the runner's
   * pages was asked for and how many events it held, with a poll so slow that every read in a test
   * is a poke's, a nudge's or a pause's.
   */
  const watchedAuditRunner = (hooks?: ProjectionHooks) => {
    const reads: { at: number; events: number }[] = [];
    const counting = Object.assign(Object.create(store) as PostgresEventStore, {
      readAll: async (...args: Parameters<PostgresEventStore['readAll']>) => {
        const at = performance.now();
        const page = await store.readAll(...args);
        // The runner's pages, not the look at the log's first event that tells which log it is.
        if (args[0].limit > 1) reads.push({ at, events: page.length });
        return page;
      },
    });
    const s = new ProjectionService(t.db, counting, {
      logger: silentLogger,
      idleMs: 60_000,
      standbyRetryMs: 100,
      projectors: allProjectors.filter((p) => p.name === 'audit'),
      hooks,
    });
    services.push(s);
    return { s, reads };
  };

  beforeAll(async () => {
    t = await freshDb();
    store = new PostgresEventStore(t.db);
  });
  afterEach(async () => {
    await Promise.all(services.splice(0).map((s) => s.stop()));
    await t.db.exec(`TRUNCATE events, streams, projection_checkpoints`);
    for (const p of allProjectors) for (const table of p.tables) await t.db.exec(`DROP TABLE IF EXISTS ${table}`);
  });
  afterAll(async () => {
    await t?.drop();
  });

  it('leaves the tables unchanged when the same batch is applied twice', async () => {
    await untilReadable(store, await appendScenario(store, 30, 11));
    await ensureProjectionTables(t.db);
    const events = decodeAll(await readEverything(store));
    for (let i = 0; i < events.length; i += 7) {
      const batch = events.slice(i, i + 7);
      const apply = () =>
        t.db.transaction(async (tx) => {
          for (const p of allProjectors) await applyBatch(tx, p, batch, '');
        });
      await apply();
      const once = await dumpTables(t.db);
      await apply();
      expect(await dumpTables(t.db)).toEqual(once);
    }
  });

  it('rolls a failing batch back, retries it, and ends where a rebuild does', async () => {
    const head = await appendScenario(store, 40, 12);
    const errors: unknown[] = [];
    const logger: ProjectionLogger = { ...silentLogger, error: (obj) => errors.push(obj) };
    const failed = new Set<string>();
    const s = service({
      batchSize: 10,
      maxBackoffMs: 20,
      logger,
      hooks: {
        beforeCommit(name) {
          // One crash per projector, after its first batch's rows are written but before the
          // checkpoint: a projector with few events to handle (closures) may have only that batch.
          if (!failed.has(name)) {
            failed.add(name);
            throw new Error(`injected fault in ${name}`);
          }
        },
      },
    });
    await s.start();
    expect(await s.waitFor(head, 15_000)).toBe(true);
    expect(failed.size).toBe(allProjectors.length);
    expect(errors.length).toBeGreaterThanOrEqual(allProjectors.length);
    expect((await s.status()).every((x) => x.lag === 0 && x.state === 'running')).toBe(true);
    await s.stop();

    const live = await dumpTables(t.db);
    await rebuild(t.db, store);
    const rebuilt = await dumpTables(t.db);
    expect(counts(live)).toEqual(counts(rebuilt));
    expect(live).toEqual(rebuilt);
  });

  it('stopped mid-way and restarted, it carries on from its checkpoint and ends where a rebuild does', async () => {
    const events = await appendScenario(store, 40, 13);
    await untilReadable(store, events);
    const all = await readEverything(store);
    const middle = all[Math.floor(all.length / 3)]!.position;
    const first = service({ batchSize: 5 });
    // Stopped from the batch that passes the middle: stopping after waitFor(middle) returned let a
    // fast runner reach the end first now and then, and the test would then restart nothing.
    let stopped: Promise<void> | undefined;
    first.watch({
      applied: (name, applied) => {
        const last = applied[applied.length - 1];
        if (!stopped && name === 'vacations' && last && comparePositions(last.stored.position, middle) >= 0) stopped = first.stop();
      },
      changed: () => {},
    });
    await first.start();
    await vi.waitFor(() => expect(stopped).toBeDefined(), { timeout: 60_000, interval: 5 });
    await stopped;
    const stoppedAt = await readCheckpoints(t.db, ['vacations']);
    expect(comparePositions(stoppedAt.get('vacations')!, events)).toBeLessThan(0);

    const second = service({ batchSize: 5 });
    await second.start();
    expect(await second.waitFor(events, 60_000)).toBe(true);
    await second.stop();
    const live = await dumpTables(t.db);
    await rebuild(t.db, store);
    expect(await dumpTables(t.db)).toEqual(live);
  });

  it('waitFor answers true once every projector passed the position, false on timeout', async () => {
    const s = service();
    const before = await appendScenario(store, 2, 14);
    // Not started yet: nothing moves.
    expect(await s.waitFor(before, 150)).toBe(false);
    await s.start();
    expect(await s.waitFor(before, 10_000)).toBe(true);
    const later = await appendScenario(store, 1, 15, 100);
    expect(await s.waitFor(later, 10_000)).toBe(true);
    const checkpoints = await readCheckpoints(
      t.db,
      allProjectors.map((p) => p.name),
    );
    for (const c of checkpoints.values()) expect(comparePositions(c, later)).toBeGreaterThanOrEqual(0);
    expect(await s.waitFor({ commit: later.commit + 1000n, prepare: 0n }, 150)).toBe(false);
  });

  it('after a batch short of a page, waits a moment for more events before it reads again, then idles until poked', async () => {
    const { s, reads } = watchedAuditRunner();
    await s.start();
    // waitFor pokes the runner once, as a request's read-your-writes wait does.
    expect(await s.waitFor(await appendScenario(store, 2, 16), 10_000)).toBe(true);
    // A poke that came while a batch was being applied is answered by one more read: let it pass.
    await new Promise((r) => setTimeout(r, 300));
    const before = reads.length;
    expect(await s.waitFor(await appendScenario(store, 1, 17, 100), 10_000)).toBe(true);
    await new Promise((r) => setTimeout(r, 300));
    // The batch's read, then one more after the pause (finding nothing), then none.
    const after = reads.slice(before);
    expect(after).toHaveLength(2);
    // Read again at once, the runner used to find nothing, or a few events, after every batch.
    expect(after[1]!.at - after[0]!.at).toBeGreaterThanOrEqual(9);
  });

  // The events are appended from inside the runner's transaction: on PGlite's one connection that
  // append would wait for the transaction, and the transaction for it.
  const appendedDuringBatch = `events appended while a batch is applied are read once the pause after it is over, unless a read waits for them${
    hasServer() ? '' : ` (skipped: ${NEEDS_SERVER})`
  }`;
  it.skipIf(!hasServer())(appendedDuringBatch, async () => {
    let during: Promise<Position> | undefined;
    let appendedAt = 0;
    const { s, reads } = watchedAuditRunner({
      beforeCommit(_name, events) {
        // The first batch with events: more are appended, and the runners told, as a write does.
        if (events.length === 0 || during) return;
        during = appendScenario(store, 1, 19, 200).then((p) => {
          appendedAt = performance.now();
          s.nudge();
          return p;
        });
        return during.then(() => {});
      },
    });
    // In the log before the runner starts: its first read takes them all, in one batch.
    const first = await appendScenario(store, 2, 18);
    await s.start();
    await vi.waitFor(() => expect(during).toBeDefined(), { timeout: 10_000 });
    const second = await during!;
    // Not waited for by anyone: the runner reads them after its pause.
    await vi.waitFor(
      async () =>
        expect(comparePositions((await readCheckpoints(t.db, ['audit'])).get('audit') ?? START, second)).toBeGreaterThanOrEqual(0),
      { timeout: 10_000, interval: 5 },
    );
    expect(comparePositions(second, first)).toBeGreaterThan(0);
    const batch = reads.findIndex((r) => r.events > 0);
    const next = reads[batch + 1]!;
    expect(next.events).toBeGreaterThan(0);
    // Read at once, they would be read as soon as the batch committed, a moment after they were appended.
    expect(next.at - appendedAt).toBeGreaterThanOrEqual(9);
  });

  const twoServices = `two services started at once: one active runner per projector, no batch applied twice${
    hasServer() ? '' : ` (skipped: ${NEEDS_SERVER})`
  }`;
  it.skipIf(!hasServer())(twoServices, async () => {
    const applied = new Map<string, string[]>();
    const hooks = {
      beforeCommit(name: string, events: readonly { stored: StoredEvent }[]) {
        const list = applied.get(name) ?? [];
        list.push(...events.map((e) => e.stored.id));
        applied.set(name, list);
      },
    };
    const a = service({ batchSize: 5, hooks });
    const b = service({ batchSize: 5, hooks });
    await Promise.all([a.start(), b.start()]);
    const head = await appendScenario(store, 30, 16);
    expect(await a.waitFor(head, 10_000)).toBe(true);
    expect(await b.waitFor(head, 10_000)).toBe(true);
    const [sa, sb] = await Promise.all([a.status(), b.status()]);
    for (let i = 0; i < sa.length; i++) {
      expect([sa[i]!.state, sb[i]!.state].sort()).toEqual(['running', 'standby']);
    }
    const all = await readEverything(store);
    for (const p of allProjectors) {
      const ids = applied.get(p.name) ?? [];
      expect(new Set(ids).size).toBe(ids.length);
      // Every event the projector handles went through exactly one of its transactions.
      const seen = new Set(ids);
      expect(all.filter((e) => p.handles.has(e.type)).every((e) => seen.has(e.id))).toBe(true);
    }

    // The standby one takes over when the active one stops.
    const active = sa[0]!.state === 'running' ? a : b;
    const other = active === a ? b : a;
    await active.stop();
    const more = await appendScenario(store, 3, 17, 500);
    expect(await other.waitFor(more, 10_000)).toBe(true);
    expect((await other.status()).every((x) => x.state === 'running')).toBe(true);
  });
});
