import pg from 'pg';
import { describe, expect, inject, it } from 'vitest';
import { PgliteDb } from '../../../src/db/pglite.ts';
import { migrate } from '../../../src/migrations.ts';
import { PostgresEventStore } from '../../../src/store/postgres-store.ts';
import { freshDb, NEEDS_SERVER } from '../../support/db.ts';
import { eventStoreContract } from '../../support/event-store-contract.ts';

eventStoreContract(
  'PostgreSQL server',
  async () => {
    const t = await freshDb();
    const store = new PostgresEventStore(t.db);
    return {
      store,
      logDb: t.db,
      // A second connection begins an append and keeps its transaction open while others commit.
      async holdOpenAppend(stream, events) {
        const client = new pg.Client({ connectionString: t.url! });
        await client.connect();
        await client.query('BEGIN');
        const tx = {
          query: async (sql: string, params?: unknown[]) => {
            const r = await client.query(sql, params as unknown[]);
            return { rows: r.rows, rowCount: r.rowCount ?? 0 };
          },
          exec: async (sql: string) => {
            await client.query(sql);
          },
        };
        await store.appendIn(tx as never, [{ stream, expectedRevision: 'no_stream', events }]);
        return {
          async commit() {
            await client.query('COMMIT');
            await client.end();
          },
        };
      },
      dispose: () => t.drop(),
    };
  },
  inject('pgAdminUrl') === '' ? NEEDS_SERVER : undefined,
);

eventStoreContract('embedded PGlite', async () => {
  const db = await PgliteDb.open();
  await migrate(db);
  return {
    store: new PostgresEventStore(db),
    logDb: db,
    holdOpenSkipReason: 'PGlite has a single connection: an open transaction blocks every other append',
    dispose: () => db.close(),
  };
});

describe.skipIf(inject('pgAdminUrl') === '')('PostgreSQL readAll and other databases of the same server', () => {
  it('is not held back by a transaction left open in another database', async () => {
    const t = await freshDb();
    const store = new PostgresEventStore(t.db);
    const elsewhere = new pg.Client({ connectionString: inject('pgAdminUrl') });
    await elsewhere.connect();
    try {
      await elsewhere.query('BEGIN');
      await elsewhere.query('SELECT pg_current_xact_id()'); // takes a transaction id, as a writer would
      await store.append([
        { stream: 'alone', expectedRevision: 'no_stream', events: [{ id: crypto.randomUUID(), type: 'Seen', data: {} }] },
      ]);
      const read = await store.readAll({ after: { commit: 0n, prepare: 0n }, limit: 10 });
      expect(read.map((e) => e.type)).toEqual(['Seen']);
    } finally {
      await elsewhere.query('ROLLBACK');
      await elsewhere.end();
      await t.drop();
    }
  });
});

describe.skipIf(inject('pgAdminUrl') === '')('PostgreSQL readAll and transactions that do not append', () => {
  it('is not held back by an open transaction of the same database that writes other tables', async () => {
    const t = await freshDb();
    const store = new PostgresEventStore(t.db);
    const other = new pg.Client({ connectionString: t.url! });
    await other.connect();
    try {
      await other.query('CREATE TABLE side (n int)');
      await other.query('BEGIN');
      await other.query('INSERT INTO side VALUES (1)'); // a read model's batch, say: it has an id, it never appends
      await store.append([
        { stream: 'beside', expectedRevision: 'no_stream', events: [{ id: crypto.randomUUID(), type: 'Seen', data: {} }] },
      ]);
      const read = await store.readAll({ after: { commit: 0n, prepare: 0n }, limit: 10 });
      expect(read.map((e) => e.type)).toEqual(['Seen']);
    } finally {
      await other.query('ROLLBACK');
      await other.end();
      await t.drop();
    }
  });

  it('refuses an append from a transaction that wrote before claiming the append lock, and takes it after the claim', async () => {
    const t = await freshDb();
    const store = new PostgresEventStore(t.db);
    try {
      await t.db.exec('CREATE TABLE side (n int)');
      const event = () => [
        { stream: 'late', expectedRevision: 'any' as const, events: [{ id: crypto.randomUUID(), type: 'Late', data: {} }] },
      ];
      await expect(
        t.db.transaction(async (tx) => {
          await tx.query('INSERT INTO side VALUES (1)');
          await store.appendIn(tx, event());
        }),
      ).rejects.toThrow(/append_lock_late/);
      await t.db.transaction(async (tx) => {
        await store.claimAppend(tx);
        await tx.query('INSERT INTO side VALUES (1)');
        await store.appendIn(tx, event());
      });
      expect(await store.readStream('late')).toHaveLength(1);
    } finally {
      await t.drop();
    }
  });
});
