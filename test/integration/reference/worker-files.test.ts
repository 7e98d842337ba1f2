import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { payrollOf } from '../../../src/domain/index.ts';
import { importReferenceData } from '../../../src/reference/import.ts';
import { ReferenceRepository } from '../../../src/reference/repository.ts';
import { allWorkerFiles, rebuiltWorkerFiles } from '../../../src/reference/worker-files.ts';
import { freshDb, type TestDb } from '../../support/db.ts';
import { EXTRA } from '../../support/payroll-corners.ts';
import { loadFixture } from './helpers.ts';

let t: TestDb;
beforeAll(async () => {
  t = await freshDb();
  await importReferenceData(t.db, loadFixture());
  await importReferenceData(t.db, EXTRA);
});
afterAll(async () => {
  await t?.drop();
});

const versions = async () =>
  new Map(
    (await t.db.query<{ worker_id: string; version: string }>('SELECT worker_id, version FROM rm_workers')).rows.map((r) => [
      Number(r.worker_id),
      Number(r.version),
    ]),
  );

/**
 * The read model as the imports left it equals the one computed again from the reference tables,
 * and both equal what the rules read from the tables themselves: the worker, the contracts in
 * the order the repository gives them, their company contracts, and the sheets folded.
 */
async function expectCurrent(): Promise<void> {
  const held = await allWorkerFiles(t.db);
  expect(held).toEqual(await rebuiltWorkerFiles(t.db));
  const repo = new ReferenceRepository(t.db);
  const workers = (await t.db.query<{ id: string }>('SELECT id FROM ref_workers ORDER BY id')).rows.map((r) => Number(r.id));
  expect(held.map((f) => f.worker.id)).toEqual(workers);
  for (const file of held) {
    const source = (await repo.workerRecords(file.worker.id))!;
    expect(file.worker).toEqual(source.worker);
    expect(file.contracts).toEqual(source.contracts);
    expect(file.companyContracts).toEqual(source.companyContracts);
    expect(file.payroll).toEqual(payrollOf(source.sheets, source.contracts));
    expect(await repo.workerFileByDocument(` ${file.worker.documentNumber} `)).toEqual(file);
  }
}

describe('the per-worker read model', () => {
  it('holds every worker of the fixture and the payroll corners, equal to a rebuild and to the reference tables', async () => {
    expect((await allWorkerFiles(t.db)).length).toBe(15);
    await expectCurrent();
  });

  it('follows an import that changes sheets, and stamps only the workers it changed', async () => {
    const before = await versions();
    const sheets = EXTRA.nomina.filter((n) => n.asociadoId === 2001).slice(0, 2);
    const report = await importReferenceData(t.db, {
      nomina: [
        { ...sheets[0]!, diasLaborados: 11, compensacionBasica: 123_456 },
        { ...sheets[1]! },
        {
          asociadoId: 2005,
          contratoId: 20009,
          periodoInicio: '2026-11-01',
          periodoFin: '2026-11-15',
          diasLaborados: 15,
          compensacionBasica: 900_000,
        },
      ],
    });
    await expectCurrent();
    const after = await versions();
    for (const [worker, version] of after)
      expect(version, `worker ${worker}`).toBe([2001, 2005].includes(worker) ? report.version : before.get(worker));
  });

  it('follows contracts that change kind and dates, and a company contract whose rules change', async () => {
    const f = loadFixture();
    const company = { ...f.contratosEmpresa[0], vacaciones: { ...f.contratosEmpresa[0].vacaciones, diasVacacionesAnuales: 18 } };
    const additional = EXTRA.contratos.find((c) => c.id === 20002)!;
    const main = f.contratos.find((c: { id: number }) => c.id === 10010);
    await importReferenceData(t.db, {
      contratosEmpresa: [company],
      contratos: [
        { ...additional, esAdicional: false },
        { ...main, fechaFin: '2025-06-30' },
      ],
    });
    await expectCurrent();
    const file = (await allWorkerFiles(t.db)).find((w) => w.worker.id === 2002)!;
    expect(file.companyContracts.get(10)!.vacationParams!.annualDays).toBe(18);
    await importReferenceData(t.db, { contratosEmpresa: [f.contratosEmpresa[0]] });
    await expectCurrent();
  });

  it('follows a contract handed to another worker and a document number handed to another worker', async () => {
    const moved = EXTRA.contratos.find((c) => c.id === 20007)!;
    await importReferenceData(t.db, { contratos: [{ ...moved, asociadoId: 2004 }] });
    await expectCurrent();
    const files = await allWorkerFiles(t.db);
    expect(files.find((w) => w.worker.id === 2003)!.contracts.map((c) => c.id)).toEqual([20006]);
    expect(files.find((w) => w.worker.id === 2004)!.contracts.map((c) => c.id)).toEqual([20007, 20008]);

    // Two workers swap their numbers through a third one, as ref_workers keeps them unique.
    const [a, b] = [EXTRA.asociados[3]!, EXTRA.asociados[4]!];
    await importReferenceData(t.db, { asociados: [{ ...a, numeroDocumento: '777' }] });
    await importReferenceData(t.db, { asociados: [{ ...b, numeroDocumento: a.numeroDocumento }] });
    await importReferenceData(t.db, { asociados: [{ ...a, numeroDocumento: b.numeroDocumento }] });
    await expectCurrent();
    const repo = new ReferenceRepository(t.db);
    expect((await repo.workerFileByDocument(a.numeroDocumento))!.worker.id).toBe(b.id);
    expect((await repo.workerFileByDocument(b.numeroDocumento))!.worker.id).toBe(a.id);
    expect(await repo.workerFileByDocument('777')).toBeNull();
  });

  it('is left as it is by an import that changes nothing', async () => {
    const f = loadFixture();
    const file = { asociados: f.asociados, contratos: f.contratos, nomina: f.nomina.slice(0, 50) };
    await importReferenceData(t.db, file);
    const before = await versions();
    const report = await importReferenceData(t.db, file);
    expect(report.changed).toBe(false);
    expect(await versions()).toEqual(before);
  });
});
