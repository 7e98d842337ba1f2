import { randomUUID } from 'node:crypto';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { migrate, migrations, type Migration } from '../../../src/migrations.ts';
import { importReferenceData } from '../../../src/reference/import.ts';
import { allWorkerFiles, rebuiltWorkerFiles } from '../../../src/reference/worker-files.ts';
import { chainHash } from '../../../src/store/chain.ts';
import { vacClaimAppendSql } from '../../../src/store/postgres-schema/vac-claim-append.ts';
import { PostgresEventStore } from '../../../src/store/postgres-store.ts';
import { freshDb, type TestDb } from '../../support/db.ts';
import { loadFixture } from '../reference/helpers.ts';

const next = Math.max(...migrations.map((m) => m.version)) + 1;

/** A later migration as the baselines' notes describe one: a function made again from its file, a column added and filled. */
const later: Migration = {
  version: next,
  name: 'streams know when they last moved',
  sql: `
${vacClaimAppendSql}
      ALTER TABLE streams ADD COLUMN moved_at timestamptz;
      UPDATE streams s SET moved_at = e.recorded_at
        FROM (SELECT stream, max(recorded_at) AS recorded_at FROM events GROUP BY stream) e WHERE e.stream = s.stream;
    `,
};

describe('a database at the baselines, upgraded by a later migration', () => {
  let t: TestDb;
  beforeAll(async () => {
    t = await freshDb();
  });
  afterAll(async () => {
    await t?.drop();
  });

  it('takes the new version only, keeps what it held, and its appends go on chaining each stream', async () => {
    const store = new PostgresEventStore(t.db);
    const ev = (i: number) => ({ id: randomUUID(), type: 'E', data: { i, texto: 'año 2026 — ñ' }, metadata: { n: i / 3 } });
    for (let i = 0; i < 12; i++) await store.append([{ stream: `s-${i % 3}`, expectedRevision: 'any', events: [ev(i)] }]);
    await importReferenceData(t.db, loadFixture());
    const files = await allWorkerFiles(t.db);

    expect(await migrate(t.db, [...migrations, later])).toEqual([next]);
    expect(await migrate(t.db, [...migrations, later])).toEqual([]);

    const moved = await t.db.query<{ n: number }>('SELECT count(*)::int AS n FROM streams WHERE moved_at IS NOT NULL');
    expect(moved.rows).toEqual([{ n: 3 }]);
    expect(await allWorkerFiles(t.db)).toEqual(files);
    expect(files).toEqual(await rebuiltWorkerFiles(t.db));
    await store.append([{ stream: 's-0', expectedRevision: 3, events: [ev(100), ev(101)] }]);
    for (const stream of ['s-0', 's-1', 's-2']) {
      let previous = '';
      for (const e of await store.readStream(stream)) {
        expect(e.hash, `${stream}@${e.revision}`).toBe(chainHash(previous, e));
        previous = e.hash!;
      }
    }
  });

  it('refuses a database whose recorded versions were other migrations, and changes nothing in it', async () => {
    const old = await freshDb({ migrate: false });
    try {
      // The first migrations as recorded before they were squashed into the baselines.
      await migrate(old.db, [
        { version: 1, name: 'event store', sql: 'CREATE TABLE events (position bigserial PRIMARY KEY)' },
        { version: 4, name: 'vacation record ids', sql: 'CREATE SEQUENCE vacation_record_ids START 1' },
      ]);
      await expect(migrate(old.db)).rejects.toThrow(
        'the database applied migration 1 as "event store", which this service knows as "event store: events, streams, record ids, hash chain, appends"',
      );
      const recorded = await old.db.query<{ version: number }>('SELECT version FROM schema_migrations ORDER BY version');
      expect(recorded.rows.map((r) => Number(r.version))).toEqual([1, 4]);
    } finally {
      await old.drop();
    }
  });
});
