import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { PostgresLiveness, localLiveness } from '../../../src/db/instance-liveness.ts';
import { freshDb, hasServer, NEEDS_SERVER, type TestDb } from '../../support/db.ts';

describe('the liveness of processes, on the embedded database', () => {
  it('holds this process alive and every other id ended: the data directory is one process’s', async () => {
    const l = localLiveness();
    expect(await l.isAlive(l.id)).toBe(true);
    expect(await l.isAlive(l.id + 1)).toBe(false);
  });
});

describe.skipIf(!hasServer())(`the liveness of processes on PostgreSQL${hasServer() ? '' : ` (skipped: ${NEEDS_SERVER})`}`, () => {
  let t: TestDb;
  beforeAll(async () => {
    t = await freshDb({ migrate: false });
  });
  afterAll(async () => {
    await t?.drop();
  });

  it('sees another running process alive, and ended once its session is gone', async () => {
    const a = await PostgresLiveness.start(t.url!, t.db);
    const b = await PostgresLiveness.start(t.url!, t.db);
    try {
      expect(a.id).not.toBe(b.id);
      expect(await b.isAlive(a.id)).toBe(true);
      expect(await a.isAlive(b.id)).toBe(true);
      // An id no process holds.
      expect(await b.isAlive(a.id === 1 ? 2 : 1)).toBe(false);
      await a.close();
      // The server ends the session on the client's goodbye; its locks go with it.
      const deadline = Date.now() + 5000;
      while ((await b.isAlive(a.id)) && Date.now() < deadline) await new Promise((r) => setTimeout(r, 20));
      expect(await b.isAlive(a.id)).toBe(false);
    } finally {
      await a.close();
      await b.close();
    }
  });
});
