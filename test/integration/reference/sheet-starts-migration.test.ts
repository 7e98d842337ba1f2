import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { migrate, migrations } from '../../../src/db/migrations.ts';
import { allWorkerFiles, rebuiltWorkerFiles } from '../../../src/reference/worker-files.ts';
import { freshDb, type TestDb } from '../../support/db.ts';

describe('payroll sheet starts in the per-worker read model (migration 23)', () => {
  let t: TestDb;
  beforeAll(async () => {
    t = await freshDb({ migrate: false });
  });
  afterAll(async () => {
    await t?.drop();
  });

  it('fills the starts of every row written before, and a row without them still reads', async () => {
    await migrate(
      t.db,
      migrations.filter((m) => m.version < 23),
    );
    // A worker paid in January and March 2025, not in February, as the import of the day wrote it.
    await t.db.exec(`
      INSERT INTO ref_subgerencias VALUES ('SG1', 'Uno');
      INSERT INTO ref_workers VALUES (1, 'CC', '111', 'Ana', 'Ruiz');
      INSERT INTO ref_contracts (id, worker_id, company_contract_id, subgerencia_id, start_date, end_date, settled, additional, base_salary, risk_level)
        VALUES (10, 1, NULL, 'SG1', '2025-01-01', '2025-12-31', false, false, 3000000, 1);
      INSERT INTO ref_payroll_sheets VALUES
        (10, '2025-01-01', '2025-01-15', 1, 15, 1500000), (10, '2025-01-16', '2025-01-31', 1, 15, 1500000),
        (10, '2025-03-01', '2025-03-15', 1, 15, 1500000), (10, '2025-03-16', '2025-03-31', 1, 15, 1500000);
      INSERT INTO rm_workers (worker_id, document_number, document_type, first_names, last_names, contracts, sheet_ends, sheet_days, sheet_pay, version)
        SELECT f.*, 1 FROM vac_worker_rows(ARRAY[1]::bigint[]) f;
    `);

    expect(
      await migrate(
        t.db,
        migrations.filter((m) => m.version <= 23),
      ),
    ).toEqual([23]);
    const [file] = await allWorkerFiles(t.db);
    expect(file!.payroll.workedFrom).toEqual(['2025-01-01', '2025-01-16', '2025-03-01', '2025-03-16']);
    expect(await allWorkerFiles(t.db)).toEqual(await rebuiltWorkerFiles(t.db));

    await t.db.exec(`UPDATE rm_workers SET sheet_starts = NULL`);
    const [old] = await allWorkerFiles(t.db);
    const { workedFrom: _dropped, ...before } = file!.payroll;
    expect(old!.payroll).toEqual(before);
  });
});
