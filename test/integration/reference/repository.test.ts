import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { Queryable } from '../../../src/db/types.ts';
import { CachedReferenceRepository } from '../../../src/caching/cached-reference.ts';
import { fileBytes } from '../../../src/caching/worker-file-entry.ts';
import { importReferenceData } from '../../../src/reference/import.ts';
import { ReferenceRepository } from '../../../src/reference/repository.ts';
import { freshDb, type TestDb } from '../../support/db.ts';
import { loadFixture } from './helpers.ts';

let t: TestDb;
let repo: ReferenceRepository;
beforeAll(async () => {
  t = await freshDb();
  await importReferenceData(t.db, loadFixture());
  repo = new ReferenceRepository(t.db);
});
afterAll(async () => {
  await t?.drop();
});

/** Counts the statements that reach the database, to tell cache hits from misses. */
function counting(db: Queryable): Queryable & { count: number } {
  const q = {
    count: 0,
    query: (sql: string, params?: unknown[]) => {
      q.count++;
      return db.query(sql, params);
    },
    exec: (sql: string) => db.exec(sql),
  };
  return q as Queryable & { count: number };
}

describe('ReferenceRepository', () => {
  it('finds workers by document (trimmed) and by id', async () => {
    const expected = {
      id: 1001,
      documentType: 'CC',
      documentNumber: '1020307007',
      firstNames: 'María Fernanda',
      lastNames: 'Gómez Restrepo',
    };
    expect(await repo.workerByDocument(' 1020307007 ')).toEqual(expected);
    expect(await repo.workerById(1001)).toEqual(expected);
    expect(await repo.workerByDocument('0000000')).toBeNull();
    expect(await repo.workerById(9999)).toBeNull();
  });

  it('gives workers by id a page at a time, all of them or those with a contract in a subgerencia', async () => {
    const ids = async (subgerencia?: string, limit = 3) => {
      const seen: number[][] = [];
      for (let after = 0; ;) {
        const page = await repo.workersPage({ after, limit, subgerencia });
        seen.push(page.map((w) => w.id));
        if (page.length < limit) return seen;
        after = page.at(-1)!.id;
      }
    };
    expect(await ids()).toEqual([[1001, 1002, 1003], [1004, 1005, 1006], [1007, 1008, 1009], [1010]]);
    // 1010 has two contracts there and comes once; 1005 has none.
    expect(await ids('SG-OPS')).toEqual([
      [1001, 1002, 1003],
      [1004, 1010],
    ]);
    expect(await ids('SG-ADM', 2)).toEqual([[1006, 1007], []]);
    expect(await ids('SG-NADA')).toEqual([[]]);
    expect((await repo.workersPage({ after: 1000, limit: 1 }))[0]).toEqual(await repo.workerById(1001));
  });

  it('finds users by e-mail ignoring case and surrounding spaces', async () => {
    expect(await repo.userByEmail('  ADMIN@Empresa.CO ')).toEqual({
      id: 1,
      email: 'admin@empresa.co',
      name: 'Administradora',
      isAdmin: true,
      permissions: ['vacaciones:eliminar'],
    });
    expect(await repo.userByEmail('empleado@empresa.co')).toMatchObject({ id: 3, isAdmin: false, permissions: [] });
    expect(await repo.userByEmail('nadie@empresa.co')).toBeNull();
  });

  it('returns contracts with numbers as numbers and dates as strings', async () => {
    const contracts = await repo.contractsOf(1010);
    expect(contracts).toEqual([
      {
        id: 10010,
        workerId: 1010,
        companyContractId: 10,
        subgerenciaId: 'SG-OPS',
        startDate: '2024-02-01',
        endDate: '2027-01-31',
        settled: false,
        additional: false,
        baseSalary: 2650000,
        riskLevel: 1,
        technicalOrTrusted: false,
        variableSalary: false,
      },
      {
        id: 10510,
        workerId: 1010,
        companyContractId: 10,
        subgerenciaId: 'SG-OPS',
        startDate: '2025-01-01',
        endDate: '2026-12-31',
        settled: false,
        additional: true,
        baseSalary: 900000,
        riskLevel: 1,
        technicalOrTrusted: false,
        variableSalary: false,
      },
    ]);
    expect(await repo.contractsOf(1005)).toEqual([]);
    expect((await repo.contractsOf(1007))[0]!.endDate).toBeNull();
    expect((await repo.contractsOf(1008))[0]!.riskLevel).toBeNull();
    expect((await repo.contractsOf(1009))[0]!.companyContractId).toBeNull();
    expect((await repo.contractsOf(1004))[0]!.settled).toBe(true);
  });

  it('returns payroll sheets in period order', async () => {
    const sheets = await repo.payrollSheetsOf(1004);
    expect(sheets).toHaveLength(46);
    expect(sheets[0]).toEqual({
      contractId: 10004,
      workerId: 1004,
      periodStart: '2024-02-01',
      periodEnd: '2024-02-15',
      daysWorked: 15,
      basicCompensation: 1050000,
    });
    expect(sheets.at(-1)!.periodEnd).toBe('2025-12-31');
    expect(await repo.payrollSheetsOf(1005)).toEqual([]);
  });

  it('returns company contracts with or without vacation parameters', async () => {
    expect(await repo.companyContract(10)).toEqual({
      id: 10,
      name: 'Contrato cliente A',
      vacationParams: {
        annualDays: 15,
        annualDaysHighRisk: 30,
        minEnjoyedDays: 6,
        advanceAllowed: true,
        maxAdvanceDays: 5,
        maxPeopleOnVacation: 2,
        compensationLimit: null,
      },
    });
    expect(await repo.companyContract(20)).toEqual({ id: 20, name: 'Contrato cliente B sin parametrización', vacationParams: null });
    expect(await repo.companyContract(99)).toBeNull();
    const many = await repo.companyContracts([10, 20, 99, 10]);
    expect([...many.keys()].sort()).toEqual([10, 20]);
    expect((await repo.companyContracts([])).size).toBe(0);
  });

  it('assembles a worker file in one call', async () => {
    const file = (await repo.workerRecords(1010))!;
    expect(file.worker.id).toBe(1010);
    expect(file.contracts.map((c) => c.id)).toEqual([10010, 10510]);
    expect(file.sheets).toHaveLength(66 + 44);
    expect([...file.companyContracts.keys()]).toEqual([10]);
    expect(file.companyContracts.get(10)!.vacationParams!.annualDays).toBe(15);
    expect((await repo.workerRecords(1009))!.companyContracts.size).toBe(0);
    expect((await repo.workerRecords(1005))!).toMatchObject({ contracts: [], sheets: [] });
    expect(await repo.workerRecords(9999)).toBeNull();
    expect(await repo.version()).toBe(1);
  });
});

describe('CachedReferenceRepository', () => {
  it('serves repeated lookups from memory and drops a worker when an import changes it', async () => {
    const db = counting(t.db);
    let now = 0;
    const cached = new CachedReferenceRepository(db, { checkIntervalMs: 1000, now: () => now });
    expect((await cached.workerByDocument('1020307014'))!.firstNames).toBe('Juan Carlos');
    const afterFirst = db.count;
    await cached.workerByDocument('1020307014');
    await cached.workerFileByDocument('1020307014 ');
    expect(db.count).toBe(afterFirst);

    const f = loadFixture();
    await importReferenceData(t.db, { asociados: [{ ...f.asociados[1], nombres: 'Juan Pablo' }] });
    // Within the check interval the cache still answers, without asking the database.
    now = 500;
    expect((await cached.workerByDocument('1020307014'))!.firstNames).toBe('Juan Carlos');
    expect(db.count).toBe(afterFirst);
    now = 1500;
    expect((await cached.workerByDocument('1020307014'))!.firstNames).toBe('Juan Pablo');
    await importReferenceData(t.db, { asociados: [f.asociados[1]] });
  });

  it('checks at once when told of an import, as an in-process import does', async () => {
    const cached = new CachedReferenceRepository(t.db, { checkIntervalMs: 3_600_000 });
    expect((await cached.userByEmail('AUDITOR@empresa.co'))!.name).toBe('Auditor');
    expect((await cached.workerFileByDocument('1020307021'))!.contracts[0]!.baseSalary).toBe(1750905);
    const f = loadFixture();
    f.usuarios[1].nombre = 'Auditora';
    f.contratos[2].salarioBase = 1800000;
    await importReferenceData(t.db, { usuarios: [f.usuarios[1]], contratos: [f.contratos[2]] }, { cache: cached });
    expect((await cached.userByEmail('auditor@empresa.co'))!.name).toBe('Auditora');
    expect((await cached.workerFileByDocument('1020307021'))!.contracts[0]!.baseSalary).toBe(1800000);
    await importReferenceData(t.db, loadFixture(), { cache: cached });
    expect((await cached.workerFileByDocument('1020307021'))!.contracts[0]!.baseSalary).toBe(1750905);
  });

  it('keeps the workers an import did not change, and forgets a document number that moved', async () => {
    const db = counting(t.db);
    const cached = new CachedReferenceRepository(db, { checkIntervalMs: 3_600_000 });
    expect((await cached.workerByDocument('1020307028'))!.id).toBe(1004);
    expect((await cached.workerByDocument('1020307035'))!.id).toBe(1005);
    expect(await cached.workerByDocument('5555555')).toBeNull();
    const f = loadFixture();
    // Worker 1005 takes a new number, and the old one is nobody's.
    await importReferenceData(t.db, { asociados: [{ ...f.asociados[4], numeroDocumento: '5555555' }] }, { cache: cached });
    const before = db.count;
    expect((await cached.workerByDocument('1020307028'))!.id).toBe(1004);
    // The version read and the list of the workers that changed.
    expect(db.count).toBe(before + 2);
    expect((await cached.workerByDocument('5555555'))!.id).toBe(1005);
    expect(await cached.workerByDocument('1020307035')).toBeNull();
    await importReferenceData(t.db, { asociados: [f.asociados[4]] }, { cache: cached });
    expect(await cached.workerByDocument('5555555')).toBeNull();
    expect((await cached.workerByDocument('1020307035'))!.id).toBe(1005);
  });

  it('holds no more than its bound under a working set larger than it, evicting the least recently used', async () => {
    const db = counting(t.db);
    const cached = new CachedReferenceRepository(db, { maxWorkers: 3, checkIntervalMs: 3_600_000 });
    const documents = ['1020307007', '1020307014', '1020307021', '1020307028', '1020307035', '1020307042', '1020307049'];
    for (let round = 0; round < 3; round++) {
      for (const doc of documents) {
        // The first worker is asked between every other one: it stays held throughout.
        await cached.workerByDocument(documents[0]!);
        expect(await cached.workerFileByDocument(doc)).toEqual(await repo.workerFileByDocument(doc));
        expect(cached.size).toBeLessThanOrEqual(3);
      }
    }
    let before = db.count;
    await cached.workerByDocument(documents[0]!);
    expect(db.count).toBe(before);
    // The one asked longest ago is gone: asking for it reads its row again.
    before = db.count;
    await cached.workerByDocument(documents[4]!);
    expect(db.count).toBe(before + 1);
  });

  it('holds no more bytes of workers than its bound, by the size of their rows, evicting the least recently used', async () => {
    const documents = ['1020307007', '1020307014', '1020307021', '1020307028', '1020307035', '1020307042', '1020307049'];
    const sizes = await Promise.all(documents.map(async (d) => fileBytes((await repo.workerFileByDocument(d))!)));
    const maxBytes = 3 * Math.max(...sizes);
    const db = counting(t.db);
    const cached = new CachedReferenceRepository(db, { maxBytes, checkIntervalMs: 3_600_000 });
    for (let round = 0; round < 3; round++)
      for (const doc of documents) {
        await cached.workerByDocument(documents[0]!);
        expect(await cached.workerFileByDocument(doc)).toEqual(await repo.workerFileByDocument(doc));
        expect(cached.size).toBeLessThanOrEqual(Math.floor(maxBytes / Math.min(...sizes)));
      }
    expect(cached.size).toBeGreaterThanOrEqual(3);
    const before = db.count;
    await cached.workerByDocument(documents[0]!);
    expect(db.count).toBe(before);
    await cached.workerByDocument(documents[1]!);
    expect(db.count).toBe(before + 1);
  });

  it('shares what workers hold alike (company contracts, the payroll calendar) between the rows it holds, never changing them', async () => {
    const cached = new CachedReferenceRepository(t.db, { checkIntervalMs: 3_600_000 });
    const [a, b] = await Promise.all(['1020307007', '1020307014'].map((d) => cached.workerFileByDocument(d)));
    const sameCompanies = [...a!.companyContracts.keys()].join() === [...b!.companyContracts.keys()].join();
    expect(sameCompanies).toBe(true);
    expect(a!.companyContracts).toBe(b!.companyContracts);
    expect(a!.payroll.ends.join()).toBe(b!.payroll.ends.join());
    expect(a!.payroll.ends).toBe(b!.payroll.ends);
    expect(a!.payroll.pay).not.toBe(b!.payroll.pay);
    // The same rows as the plain read has them: sharing changes no value.
    const plain = await Promise.all(['1020307007', '1020307014'].map((d) => repo.workerFileByDocument(d)));
    expect([a, b]).toEqual(plain);
  });
});
