import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { migrate, migrations } from '../../../src/migrations.ts';
import { auditOfWorker } from '../../../src/projections/audit-trail/queries.ts';
import { auditProjector } from '../../../src/projections/audit-trail/projector.ts';
import { insertRows } from '../../../src/projections/sql.ts';
import type { Queryable } from '../../../src/db/types.ts';
import { freshDb, type TestDb } from '../../support/db.ts';

const AUDIT_JSON = 43;

/** The SQL type of the audit trail's details column. */
const detailsType = async (db: Queryable) =>
  (
    await db.query<{ t: string }>(
      `SELECT data_type AS t FROM information_schema.columns WHERE table_name = 'rm_audit' AND column_name = 'details'`,
    )
  ).rows[0]!.t;

/** The audit trail's details went from jsonb to json: a database projected before keeps its rows. */
describe('migration 43: audit details as json', () => {
  let t: TestDb;
  beforeAll(async () => {
    t = await freshDb({ migrate: false });
  });
  afterAll(async () => {
    await t?.drop();
  });

  const row = (n: number, details: Record<string, unknown>) => ({
    event_id: `00000000-0000-4000-8000-00000000000${n}`,
    commit_pos: 10 + n,
    prepare_pos: 100 + n,
    worker_id: 7,
    codigo_pila: `VAC_${n}`,
    action: 'CREACION',
    user_id: 1,
    user_email: 'analista@empresa.co',
    api_key_name: null,
    request_id: `req-${n}`,
    correlation_id: null,
    occurred_at: '2026-11-27T10:00:00.000Z',
    details,
  });

  it('turns an existing jsonb column into json, keeping every row, and the live path writes on', async () => {
    await migrate(
      t.db,
      migrations.filter((m) => m.version < AUDIT_JSON),
    );
    // The table as the runners made it before the change.
    await t.db.exec(auditProjector.ddl(''));
    await t.db.exec('ALTER TABLE rm_audit ALTER COLUMN details TYPE jsonb USING details::jsonb');
    const before = { startDate: '2026-12-07', nota: 'línea\tcon tab y \\ barra', periods: 2 };
    await insertRows(t.db, 'rm_audit', auditProjector.columns, [row(1, before)]);

    expect(await migrate(t.db)).toContain(AUDIT_JSON);
    expect(await detailsType(t.db)).toBe('json');

    const after = { endDate: '2026-12-21', businessDays: 10 };
    await insertRows(t.db, 'rm_audit', auditProjector.columns, [row(2, after)]);
    const entries = await auditOfWorker(t.db, 7);
    expect(entries.map((e) => [e.codigoPila, e.details])).toEqual([
      ['VAC_2', after],
      ['VAC_1', before],
    ]);
  });

  it('leaves a database whose runners have not made the table yet to make it as json', async () => {
    const fresh = await freshDb();
    try {
      await fresh.db.exec(auditProjector.ddl(''));
      expect(await detailsType(fresh.db)).toBe('json');
    } finally {
      await fresh.drop();
    }
  });
});
