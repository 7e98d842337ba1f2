import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { migrate, migrations } from '../../../src/db/migrations.ts';
import { payrollOf } from '../../../src/domain/index.ts';
import { allWorkerFiles, rebuiltWorkerFiles } from '../../../src/reference/worker-files.ts';
import { freshDb, type TestDb } from '../../support/db.ts';

describe('payroll sheets handed to the ledger as paid (migration 25)', () => {
  let t: TestDb;
  beforeAll(async () => {
    t = await freshDb({ migrate: false });
  });
  afterAll(async () => {
    await t?.drop();
  });

  it('rewrites every row written before with each sheet as paid, 0-day sheets and the contract each names included', async () => {
    await migrate(
      t.db,
      migrations.filter((m) => m.version < 25),
    );
    // Two contracts, a 0-day fortnight (unpaid leave) in the second, as the import of the day wrote them.
    await t.db.exec(`
      INSERT INTO ref_subgerencias VALUES ('SG1', 'Uno');
      INSERT INTO ref_workers VALUES (1, 'CC', '111', 'Ana', 'Ruiz');
      INSERT INTO ref_contracts (id, worker_id, company_contract_id, subgerencia_id, start_date, end_date, settled, additional, base_salary, risk_level)
        VALUES (10, 1, NULL, 'SG1', '2025-01-01', '2025-01-31', true, false, 3000000, 5),
               (11, 1, NULL, 'SG1', '2025-02-01', '2025-12-31', false, false, 3000000, 1);
      INSERT INTO ref_payroll_sheets VALUES
        (10, '2025-01-01', '2025-01-15', 1, 15, 1500000), (10, '2025-01-16', '2025-01-31', 1, 15, 1500000),
        (11, '2025-02-01', '2025-02-15', 1, 15, 1500000), (11, '2025-02-16', '2025-02-28', 1, 0, 0);
      INSERT INTO rm_workers (worker_id, document_number, document_type, first_names, last_names, contracts, sheet_ends, sheet_days, sheet_pay, sheet_starts, version)
        SELECT f.*, 1 FROM vac_worker_rows(ARRAY[1]::bigint[]) f;
    `);

    expect(
      await migrate(
        t.db,
        migrations.filter((m) => m.version <= 25),
      ),
    ).toEqual([25]);
    const [file] = await allWorkerFiles(t.db);
    expect(file!.contracts.map((c) => [c.id, c.settled, c.variableSalary])).toEqual([
      [10, true, false],
      [11, false, false],
    ]);
    expect(file!.payroll).toEqual(
      payrollOf(
        [
          { contractId: 10, periodStart: '2025-01-01', periodEnd: '2025-01-15', daysWorked: 15, basicCompensation: 1_500_000 },
          { contractId: 10, periodStart: '2025-01-16', periodEnd: '2025-01-31', daysWorked: 15, basicCompensation: 1_500_000 },
          { contractId: 11, periodStart: '2025-02-01', periodEnd: '2025-02-15', daysWorked: 15, basicCompensation: 1_500_000 },
          { contractId: 11, periodStart: '2025-02-16', periodEnd: '2025-02-28', daysWorked: 0, basicCompensation: 0 },
        ],
        file!.contracts,
      ),
    );
    expect(await allWorkerFiles(t.db)).toEqual(await rebuiltWorkerFiles(t.db));
  });
});
