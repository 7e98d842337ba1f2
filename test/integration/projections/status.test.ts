import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { ProjectionService, allProjectors, projectionStatus, silentLogger } from '../../../src/projections/index.ts';
import { PostgresEventStore } from '../../../src/store/postgres-store.ts';
import { freshDb, hasServer, type TestDb } from '../../support/db.ts';
import { appendScenario } from '../../support/event-builders.ts';
import { untilReadable } from './support.ts';

describe('the progress of the read models a service reports', () => {
  let t: TestDb;
  let store: PostgresEventStore;
  let runners: ProjectionService;

  beforeAll(async () => {
    t = await freshDb();
    store = new PostgresEventStore(t.db);
    const head = await appendScenario(store, 10, 3);
    await untilReadable(store, head);
    runners = new ProjectionService(t.db, store, { logger: silentLogger, idleMs: 10 });
    await runners.start();
    expect(await runners.waitFor(head, 15_000)).toBe(true);
  });
  afterAll(async () => {
    await runners?.stop();
    await t?.drop();
  });

  it('with runners in its process: theirs, each caught up with the head of the log', async () => {
    const head = await store.headPosition();
    expect(await projectionStatus(t.db, store, runners)).toEqual(
      allProjectors.map((p) => ({ name: p.name, checkpoint: expect.anything(), head, lag: 0, state: 'running' })),
    );
  });

  it('without runners of its own: every read model, as the checkpoints and the locks held tell', async () => {
    const head = await store.headPosition();
    // Another process's runners hold the locks on PostgreSQL; PGlite has no other process.
    const state = hasServer() ? 'running' : 'stopped';
    const status = await projectionStatus(t.db, store, undefined);
    expect(status.map((s) => [s.name, s.head, s.state])).toEqual(allProjectors.map((p) => [p.name, head, state]));
  });
});
