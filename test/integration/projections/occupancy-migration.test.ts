import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { migrate, migrations } from '../../../src/db/migrations.ts';
import { OCCUPANCY_TABLE, ProjectionService, occupancyCounts, readCheckpoints, silentLogger } from '../../../src/projections/index.ts';
import { PostgresEventStore } from '../../../src/store/postgres-store.ts';
import { freshDb, type TestDb } from '../../support/db.ts';
import { created, record, toWorker } from '../../support/event-builders.ts';

describe('occupancy kept as spans (migration 16)', () => {
  let t: TestDb;
  beforeAll(async () => {
    t = await freshDb({ migrate: false });
  });
  afterAll(async () => {
    await t?.drop();
  });

  it('drops the table of one row per day and projects every vacation again into spans', async () => {
    await migrate(
      t.db,
      migrations.filter((m) => m.version < 16),
    );
    const store = new PostgresEventStore(t.db);
    const a = record({ codigoPila: 'P0301001', workerId: 301, subgerenciaId: 'SG3', startDate: '2024-03-04', endDate: '2024-03-06' });
    const head = await toWorker(store, 301, [created(a)]);
    // As the projector of one row per day left a database that had applied that event.
    await t.db.exec(`CREATE TABLE rm_occupancy (subgerencia_id text, day date, codigo_pila text, worker_id bigint)`);
    await t.db.query(`INSERT INTO projection_checkpoints (name, commit_pos, prepare_pos) VALUES ('occupancy', $1, $2)`, [
      head.position.commit.toString(),
      head.position.prepare.toString(),
    ]);

    expect(
      await migrate(
        t.db,
        migrations.filter((m) => m.version <= 16),
      ),
    ).toEqual([16]);
    expect((await t.db.query(`SELECT 1 FROM pg_class WHERE relname = 'rm_occupancy'`)).rows).toEqual([]);
    expect((await readCheckpoints(t.db, ['occupancy'])).get('occupancy')).toEqual({ commit: 0n, prepare: 0n });
    // The projectors of today read the schema of today.
    await migrate(t.db);

    const service = new ProjectionService(t.db, store, { logger: silentLogger, idleMs: 10 });
    await service.start();
    try {
      expect(await service.waitFor(head.position, 10_000)).toBe(true);
      const days = (await occupancyCounts(t.db, 'SG3', '2024-03-03', '2024-03-07')).map((d) => d.count);
      expect(days).toEqual([0, 1, 1, 1, 0]);
      expect((await t.db.query(`SELECT count(*)::int AS n FROM ${OCCUPANCY_TABLE}`)).rows).toEqual([{ n: 1 }]);
    } finally {
      await service.stop();
    }
  });
});
