import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { ImportValidationError, importReferenceData } from '../../../src/reference/import.ts';
import type { HistoricVacation } from '../../../src/reference/import-historic.ts';
import { ReferenceRepository } from '../../../src/reference/repository.ts';
import { freshDb, hasServer, type TestDb } from '../../support/db.ts';
import { loadFixture, tableCounts, type Json } from './helpers.ts';

let t: TestDb;
beforeAll(async () => {
  t = await freshDb();
});
afterAll(async () => {
  await t?.drop();
});

async function problemsOf(input: unknown): Promise<string[]> {
  const err = await importReferenceData(t.db, input).then(
    () => undefined,
    (e: unknown) => e,
  );
  expect(err).toBeInstanceOf(ImportValidationError);
  return (err as ImportValidationError).problems;
}

const EMPTY = {
  ref_subgerencias: 0,
  ref_company_contracts: 0,
  ref_workers: 0,
  ref_contracts: 0,
  ref_payroll_sheets: 0,
  ref_users: 0,
  version: 0,
};

// The tests share one database and run in order: rejections first, on the empty database.
describe('reference data import', () => {
  it('rejects a file with several bad rows, naming each by array, index and field, and writes nothing', async () => {
    const f = loadFixture();
    f.contratos[3].fechaFin = '2026-02-30';
    f.contratos[5].salarioBase = -5;
    delete f.contratos[6].liquidado;
    f.asociados[2].numeroDocumento = '12';
    f.asociados[4].tipoDocumento = 'XX';
    f.nomina[7].diasLaborados = 32;
    f.usuarios[1].email = 'not-an-email';
    f.usuarios[2].rol = 'admin';
    f.contratosEmpresa[0].vacaciones.diasVacacionesAnuales = 0;
    f.vacaciones[0].codigoPila = 'VAC_x';
    f.nomina[9].periodoInicio = '2025-13-01';
    f.extra = true;
    const problems = await problemsOf(f);
    expect(problems).toEqual(
      expect.arrayContaining([
        'contratos[3].fechaFin: not a real date (2026-02-30)',
        'contratos[5].salarioBase: must be at least 0, got -5',
        'contratos[6].liquidado: is required',
        'asociados[2].numeroDocumento: "12" does not match /^[0-9A-Za-z]{3,20}$/',
        'asociados[4].tipoDocumento: must be one of CC, CE, TI, PA, PEP, PPT, NIT; got "XX"',
        'nomina[7].diasLaborados: must be at most 31, got 32',
        'usuarios[1].email: not a valid e-mail address ("not-an-email")',
        'usuarios[2]: unknown field "rol"',
        'contratosEmpresa[0].vacaciones.diasVacacionesAnuales: must be at least 1, got 0',
        'vacaciones[0].codigoPila: "VAC_x" does not match /^VAC_[0-9]+_[0-9a-f]+_[0-9a-f]+$/',
        'nomina[9].periodoInicio: not a real date (2025-13-01)',
        'file: unknown field "extra"',
      ]),
    );
    expect(problems).toHaveLength(12);
    expect(await tableCounts(t.db)).toEqual(EMPTY);
  });

  it('rejects what is not an object at all', async () => {
    expect(await problemsOf([])).toEqual(['file: expected an object, got []']);
    expect(await problemsOf({ asociados: {} })).toEqual(['asociados: expected an array, got {}']);
  });

  it('checks references, duplicates and date order across the file', async () => {
    const f = loadFixture();
    f.contratos.push({ ...f.contratos[0], id: 10999, asociadoId: 9999 });
    f.contratos[1].subgerenciaId = 'SG-NOPE';
    f.contratos[2].contratoEmpresaId = 99;
    f.contratos[4].fechaFin = '2024-01-31';
    f.nomina[0].contratoId = 77777;
    f.nomina[1].asociadoId = 1002;
    f.nomina[2].periodoFin = '2024-02-14';
    f.nomina[3].periodoInicio = f.nomina[1].periodoInicio;
    f.asociados.push({ ...f.asociados[0], id: 1011 });
    f.asociados.push({ ...f.asociados[1], numeroDocumento: '999999' });
    f.usuarios.push({ ...f.usuarios[0], id: 4, email: 'ADMIN@Empresa.co' });
    f.vacaciones.push({ ...f.vacaciones[0] });
    f.vacaciones[1].asociadoId = 9998;
    const problems = await problemsOf(f);
    expect(problems.sort()).toEqual([
      'asociados[10].numeroDocumento: duplicate numeroDocumento 1020307007 (first at asociados[0])',
      'asociados[11].id: duplicate id 1002 (first at asociados[1])',
      'contratos[10].asociadoId: asociado 9999 does not exist (neither in this file nor in the database)',
      'contratos[1].subgerenciaId: subgerencia "SG-NOPE" does not exist (neither in this file nor in the database)',
      'contratos[2].contratoEmpresaId: contratoEmpresa 99 does not exist (neither in this file nor in the database)',
      'contratos[4].fechaFin: ends (2024-01-31) before it starts (2024-02-01)',
      'nomina[0].contratoId: contrato 77777 does not exist (neither in this file nor in the database)',
      'nomina[1].asociadoId: contrato 10001 belongs to asociado 1001, not 1002',
      'nomina[2].periodoFin: period ends (2024-02-14) before it starts (2024-03-01)',
      'nomina[3].periodoInicio: duplicate sheet for contrato 10001 starting 2024-02-16 (first at nomina[1])',
      'usuarios[3].email: duplicate e-mail ADMIN@Empresa.co (compared ignoring case) (first at usuarios[0])',
      'vacaciones[1].asociadoId: asociado 9998 does not exist (neither in this file nor in the database)',
      'vacaciones[2].codigoPila: duplicate codigoPila VAC_1750000000000_a1b2c3d4_deadbeef (first at vacaciones[0])',
    ]);
    expect(await tableCounts(t.db)).toEqual(EMPTY);
  });

  it('does not blame references on a row that is only invalid in another field', async () => {
    const f = loadFixture();
    f.asociados[0].numeroDocumento = '';
    expect(await problemsOf(f)).toEqual(['asociados[0].numeroDocumento: "" does not match /^[0-9A-Za-z]{3,20}$/']);
  });

  it('imports the fixture with the expected counts', async () => {
    const report = await importReferenceData(t.db, loadFixture());
    expect(report.tables).toEqual({
      subgerencias: { inserted: 3, updated: 0, unchanged: 0 },
      companyContracts: { inserted: 2, updated: 0, unchanged: 0 },
      workers: { inserted: 10, updated: 0, unchanged: 0 },
      contracts: { inserted: 10, updated: 0, unchanged: 0 },
      payrollSheets: { inserted: 576, updated: 0, unchanged: 0 },
      users: { inserted: 3, updated: 0, unchanged: 0 },
    });
    expect(report).toMatchObject({ changed: true, version: 1, historic: { imported: 0, skipped: 2 } });
    expect(report.warnings).toEqual([
      '2 historic vacation rows were validated but not imported: no importer for historic vacations is configured',
    ]);
    expect(await tableCounts(t.db)).toEqual({
      ref_subgerencias: 3,
      ref_company_contracts: 2,
      ref_workers: 10,
      ref_contracts: 10,
      ref_payroll_sheets: 576,
      ref_users: 3,
      version: 1,
    });
  });

  it('leaves the planner statistics of what it wrote, so that lookups are not planned blind after a bulk load', async () => {
    // reltuples stays unknown (-1) or 0 after inserts until the table is analyzed.
    const r = await t.db.query<{ relname: string; reltuples: number }>(
      `SELECT relname, reltuples::int AS reltuples FROM pg_class WHERE relname IN ('rm_workers', 'ref_payroll_sheets') ORDER BY relname`,
    );
    expect(r.rows).toEqual([
      { relname: 'ref_payroll_sheets', reltuples: 576 },
      { relname: 'rm_workers', reltuples: 10 },
    ]);
  });

  it('changes nothing when the same file is imported again', async () => {
    const report = await importReferenceData(t.db, loadFixture());
    for (const c of Object.values(report.tables)) expect(c.inserted + c.updated).toBe(0);
    expect(report.tables.payrollSheets.unchanged).toBe(576);
    expect(report).toMatchObject({ changed: false, version: 1 });
    expect((await tableCounts(t.db)).version).toBe(1);
  });

  it('counts updated rows and bumps the version once', async () => {
    const f: Json = { contratos: [loadFixture().contratos[0]], nomina: [loadFixture().nomina[0]] };
    f.contratos[0].salarioBase = 2900000;
    f.nomina[0].compensacionBasica = 1450000;
    const report = await importReferenceData(t.db, f);
    expect(report.tables.contracts).toEqual({ inserted: 0, updated: 1, unchanged: 0 });
    expect(report.tables.payrollSheets).toEqual({ inserted: 0, updated: 1, unchanged: 0 });
    expect(report.tables.workers).toEqual({ inserted: 0, updated: 0, unchanged: 0 });
    expect(report).toMatchObject({ changed: true, version: 2 });
    // Rows the partial file did not mention are still there.
    expect((await tableCounts(t.db)).ref_payroll_sheets).toBe(576);
  });

  it('accepts references to rows that are only in the database', async () => {
    const report = await importReferenceData(t.db, {
      contratos: [
        {
          id: 10011,
          asociadoId: 1005,
          contratoEmpresaId: 20,
          subgerenciaId: 'SG-TEC',
          fechaInicio: '2026-01-01',
          fechaFin: null,
          liquidado: false,
          esAdicional: false,
          salarioBase: 1500000,
          nivelRiesgo: 1,
        },
      ],
      nomina: [
        {
          asociadoId: 1001,
          contratoId: 10001,
          periodoInicio: '2026-11-01',
          periodoFin: '2026-11-15',
          diasLaborados: 15,
          compensacionBasica: 1450000,
        },
      ],
      vacaciones: [{ ...loadFixture().vacaciones[0] }],
    });
    expect(report.tables.contracts.inserted).toBe(1);
    expect(report.tables.payrollSheets.inserted).toBe(1);
    expect(report.version).toBe(3);
  });

  it('refuses a document number or e-mail that belongs to another row in the database', async () => {
    const problems = await problemsOf({
      asociados: [{ id: 2001, tipoDocumento: 'CC', numeroDocumento: '1020307007', nombres: 'X', apellidos: 'Y' }],
      usuarios: [{ id: 9, email: 'Empleado@empresa.co', nombre: 'Z', administrador: false, permisos: [] }],
    });
    expect(problems).toEqual([
      'asociados[0].numeroDocumento: 1020307007 already belongs to asociado 1001 in the database',
      'usuarios[0].email: Empleado@empresa.co already belongs to usuario 3 in the database',
    ]);
  });

  it('hands historic vacations to the handler inside the transaction and reports its counts', async () => {
    let seen: HistoricVacation[] = [];
    let workersVisible = 0;
    const report = await importReferenceData(t.db, loadFixture(), {
      historic: async (tx, rows) => {
        seen = rows;
        workersVisible = Number((await tx.query<{ n: string }>('SELECT count(*) AS n FROM ref_workers')).rows[0]!.n);
        return { imported: 1, skipped: 1 };
      },
    });
    expect(seen).toEqual([
      {
        pilaCode: 'VAC_1750000000000_a1b2c3d4_deadbeef',
        workerId: 1001,
        startDate: '2025-06-09',
        days: 10,
        worksSaturday: false,
        compensated: false,
        paid: false,
        approved: true,
      },
      {
        pilaCode: 'VAC_1760000000000_11223344_0badf00d',
        workerId: 1002,
        startDate: '2025-09-01',
        days: 6,
        worksSaturday: false,
        compensated: false,
        paid: false,
        approved: false,
      },
    ]);
    expect(workersVisible).toBe(10);
    expect(report.historic).toEqual({ imported: 1, skipped: 1 });
    expect(report.warnings).toEqual([]);
  });

  it('keeps nothing when the load fails part-way', async () => {
    const before = await tableCounts(t.db);
    const f = loadFixture();
    f.asociados.push({ id: 3001, tipoDocumento: 'CE', numeroDocumento: 'AB12345', nombres: 'Nueva', apellidos: 'Persona' });
    f.contratos[1].salarioBase = 1;
    let cache = 0;
    const failure = await importReferenceData(t.db, f, {
      historic: async () => {
        throw new Error('event store unavailable');
      },
      cache: { invalidate: () => cache++ },
    }).catch((e: Error) => e);
    expect((failure as Error).message).toBe('event store unavailable');
    expect(await tableCounts(t.db)).toEqual(before);
    const w = await t.db.query('SELECT 1 FROM ref_workers WHERE id = 3001');
    expect(w.rows).toHaveLength(0);
    const c = await t.db.query<{ s: string }>('SELECT base_salary AS s FROM ref_contracts WHERE id = 10002');
    expect(Number(c.rows[0]!.s)).toBe(3500000);
    expect(cache).toBe(0);
  });

  it('takes the limit on days paid in money as a company contract parameter, and keeps none where it is absent', async () => {
    const repo = new ReferenceRepository(t.db);
    const cc = loadFixture().contratosEmpresa[0];
    const bad = await problemsOf({ contratosEmpresa: [{ ...cc, vacaciones: { ...cc.vacaciones, limiteCompensacion: 'todo' } }] });
    expect(bad).toEqual(['contratosEmpresa[0].vacaciones.limiteCompensacion: must be one of mitad; got "todo"']);
    await importReferenceData(t.db, { contratosEmpresa: [{ ...cc, vacaciones: { ...cc.vacaciones, limiteCompensacion: 'mitad' } }] });
    expect((await repo.companyContract(cc.id))!.vacationParams!.compensationLimit).toBe('half');
    // A file that leaves it out (as every file did before it existed) leaves no limit.
    await importReferenceData(t.db, { contratosEmpresa: [cc] });
    expect((await repo.companyContract(cc.id))!.vacationParams!.compensationLimit).toBeNull();
  });

  it.skipIf(!hasServer())(
    'loads 5,000 workers with 250,000 payroll sheets quickly',
    async () => {
      const big = await freshDb();
      try {
        const f: Json = { subgerencias: [{ id: 'S', nombre: 'S' }], asociados: [], contratos: [], nomina: [] };
        for (let i = 1; i <= 5000; i++) {
          f.asociados.push({ id: i, tipoDocumento: 'CC', numeroDocumento: String(500000 + i), nombres: 'N', apellidos: 'A' });
          f.contratos.push({
            id: i,
            asociadoId: i,
            contratoEmpresaId: null,
            subgerenciaId: 'S',
            fechaInicio: '2020-01-01',
            fechaFin: null,
            liquidado: false,
            esAdicional: false,
            salarioBase: 1000000,
            nivelRiesgo: 1,
          });
          for (let s = 0; s < 50; s++) {
            const y = 2020 + Math.floor(s / 24);
            const m = String(Math.floor((s % 24) / 2) + 1).padStart(2, '0');
            f.nomina.push({
              asociadoId: i,
              contratoId: i,
              periodoInicio: `${y}-${m}-${s % 2 ? 16 : '01'}`,
              periodoFin: `${y}-${m}-${s % 2 ? 28 : 15}`,
              diasLaborados: 15,
              compensacionBasica: 500000,
            });
          }
        }
        const started = Date.now();
        const report = await importReferenceData(big.db, f);
        expect(report.tables.payrollSheets.inserted).toBe(250_000);
        expect(Date.now() - started).toBeLessThan(30_000);
      } finally {
        await big.drop();
      }
    },
    120_000,
  );
});
