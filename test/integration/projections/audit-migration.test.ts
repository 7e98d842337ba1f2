import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { migrate, migrations } from '../../../src/db/migrations.ts';
import { auditProjector } from '../../../src/projections/audit/projector.ts';
import { auditOfCode } from '../../../src/projections/audit/queries.ts';
import { freshDb, type TestDb } from '../../support/db.ts';

describe('migration 14: deletions in the audit trail read DELETE', () => {
  let t: TestDb;
  beforeAll(async () => {
    t = await freshDb({ migrate: false });
  });
  afterAll(async () => {
    await t?.drop();
  });

  it('given rows projected as ELIMINACION before it, when the schema is migrated, then they read DELETE with the label beside it', async () => {
    await migrate(
      t.db,
      migrations.filter((m) => m.version < 14),
    );
    await t.db.exec(auditProjector.ddl(''));
    const row = (id: string, code: string, action: string, details: Record<string, unknown>) =>
      t.db.query(
        `INSERT INTO rm_audit (event_id, commit_pos, prepare_pos, worker_id, codigo_pila, action, details)
         VALUES ($1, $2, $2, 1, $3, $4, $5::jsonb)`,
        [id, Number(id.slice(-1)), code, action, JSON.stringify(details)],
      );
    await row('00000000-0000-4000-8000-000000000001', 'VAC_A', 'CREACION', { startDate: '2026-03-02' });
    await row('00000000-0000-4000-8000-000000000002', 'VAC_A', 'ELIMINACION', { reason: 'delete', deletedByUserId: 1 });
    await row('00000000-0000-4000-8000-000000000003', 'VAC_B', 'EDICION_BAJA', { reason: 'edit' });

    expect(
      await migrate(
        t.db,
        migrations.filter((m) => m.version <= 14),
      ),
    ).toEqual([14]);

    expect((await auditOfCode(t.db, 'VAC_A')).map((e) => [e.action, e.details])).toEqual([
      ['CREACION', { startDate: '2026-03-02' }],
      ['DELETE', { etiqueta: 'ELIMINACION', reason: 'delete', deletedByUserId: 1 }],
    ]);
    expect((await auditOfCode(t.db, 'VAC_B')).map((e) => e.action)).toEqual(['EDICION_BAJA']);
  });

  it('given a database without the audit read model, when migrated, then there is nothing to change', async () => {
    const fresh = await freshDb({ migrate: false });
    try {
      expect(await migrate(fresh.db)).toContain(14);
    } finally {
      await fresh.drop();
    }
  });
});
