import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { ProjectionService, readCheckpoints, rebuild, type ProjectionLogger } from '../../../src/projections/index.ts';
import { KurrentEventStore } from '../../../src/store/kurrentdb-store.ts';
import { positionToString, type Position } from '../../../src/store/types.ts';
import { freshDb, type TestDb } from '../../support/db.ts';
import { appendScenario } from '../../support/event-builders.ts';
import { FakeKurrentClient, FakeKurrentLog } from '../../support/fake-kurrent.ts';

/**
 * Checkpoints kept in PostgreSQL for a log kept in KurrentDB (the in-memory model of a node):
 * the log under them changes, and the runners must notice instead of reading on.
 */

const logOn = (log: FakeKurrentLog) => new KurrentEventStore(() => new FakeKurrentClient(log));

/** A copy of the first `n` events of a log, at the same positions: a restore from an older backup. */
function restoredFrom(log: FakeKurrentLog, n: number): FakeKurrentLog {
  const copy = new FakeKurrentLog();
  for (const e of log.all.slice(0, n)) {
    copy.all.push(e);
    const stream = copy.streams.get(e.streamId) ?? [];
    stream.push(e);
    copy.streams.set(e.streamId, stream);
  }
  return copy;
}

describe('projection checkpoints and the log they were read from', () => {
  let t: TestDb;
  const errors: string[] = [];
  const logger: ProjectionLogger = { info: () => {}, warn: () => {}, error: (_obj, msg) => errors.push(msg ?? '') };

  beforeAll(async () => {
    t = await freshDb();
  });
  afterAll(async () => {
    await t?.drop();
  });

  async function catchUp(store: KurrentEventStore, to: Position): Promise<Map<string, Position>> {
    const service = new ProjectionService(t.db, store, { logger, idleMs: 10, standbyRetryMs: 50 });
    await service.start();
    expect(await service.waitFor(to, 10_000)).toBe(true);
    await service.stop();
    return readCheckpoints(
      t.db,
      service.projectors.map((p) => p.name),
    );
  }

  /** Starts a service on `store` and waits until every runner has stopped by itself. */
  async function refused(store: KurrentEventStore): Promise<string[]> {
    errors.length = 0;
    const service = new ProjectionService(t.db, store, { logger, idleMs: 10, standbyRetryMs: 50 });
    await service.start();
    const until = Date.now() + 10_000;
    while ((await service.status()).some((s) => s.state !== 'stopped') && Date.now() < until) await new Promise((r) => setTimeout(r, 20));
    const states = (await service.status()).map((s) => s.state);
    await service.stop();
    expect(new Set(states)).toEqual(new Set(['stopped']));
    return [...errors];
  }

  it('stops every runner, naming both logs, when the store is another log (a new cluster), and leaves the checkpoints as they were', async () => {
    const first = new FakeKurrentLog();
    const before = await catchUp(logOn(first), await appendScenario(logOn(first), 6, 1));
    const other = new FakeKurrentLog();
    await appendScenario(logOn(other), 3, 2);
    const a = first.all[0]!;
    const b = other.all[0]!;

    const messages = await refused(logOn(other));
    expect(messages.length).toBe(before.size);
    for (const m of messages) {
      expect(m).toContain(`was read from the log kurrentdb:${a.streamId}/${a.id}`);
      expect(m).toContain(`the event store holds kurrentdb:${b.streamId}/${b.id}`);
      expect(m).toMatch(/rebuild/);
    }
    expect(await readCheckpoints(t.db, [...before.keys()])).toEqual(before);

    // Rebuilt from the new log, the read models follow it, and the runners read on.
    await rebuild(t.db, logOn(other));
    const more = await appendScenario(logOn(other), 2, 3, 50);
    const after = await catchUp(logOn(other), more);
    for (const p of after.values()) expect(p).toEqual(more);
  });

  it('stops every runner when the log is a restore that ends before the checkpoints (same first event)', async () => {
    const log = new FakeKurrentLog();
    const head = await appendScenario(logOn(log), 6, 4, 200);
    await rebuild(t.db, logOn(log));
    await catchUp(logOn(log), head);
    const restored = restoredFrom(log, 5);
    const messages = await refused(logOn(restored));
    expect(messages.length).toBeGreaterThan(0);
    for (const m of messages) {
      expect(m).toContain(`is past the head ${positionToString(restored.all.at(-1)!.position)}`);
      expect(m).toContain(`kurrentdb:${log.all[0]!.streamId}/${log.all[0]!.id}`);
    }
  });
});
