import { mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { ADMIN, EMPLOYEE, LOOKUP_MESSAGES as M, W, client, expectLookupError, type Client } from '../support/http.ts';
import { HISTORIC_DAYS_1001, importedHistoric, loadFixture, runCli, startTestServer, type TestServer } from '../support/server.ts';

const CONSULT = '/api/vacaciones/consultdatavacations';
const CHECK = '/api/contratos/verificarContratoActivo';

let srv: TestServer;
let c: Client;
let historicDays1001 = 0;

beforeAll(async () => {
  srv = await startTestServer();
  c = client(srv.url, srv.keys.acceptance!);
  historicDays1001 = importedHistoric(srv) ? HISTORIC_DAYS_1001 : 0;
});
afterAll(async () => {
  await srv?.stop();
});

describe('GET /api/vacaciones/consultdatavacations', () => {
  const consult = (doc: string, email = ADMIN, path = CONSULT) => c.get(path, { numeroDocumento: doc, emailResponsable: email });

  it('gives the figures of 1020307007 on 2026-11-21: 990 days worked, 41.25 accrued, IBC 2,847,000', async () => {
    const r = await consult(W.maria);
    expect(r.status, r.text).toBe(200);
    expect(r.body).toEqual({
      success: true,
      asociadoId: 1001,
      diasLaboradosNomina: 990,
      vacacionesDisponibles: 41.25 - historicDays1001,
      ibcUltimoMes: 2847000,
      parametrizacion: {
        diasVacacionesAnuales: 15,
        diasMinimosDisfrutados: 6,
        vacacionesAnticipadas: true,
        diasVacacionesAnticipadas: 5,
        numeroPersonasVacaciones: 2,
      },
    });
  });

  it('counts only the main contract of 1020307070, who also has an additional one: 990 days, 41.25 available, IBC of both', async () => {
    const r = await consult(W.camilo);
    expect(r.status, r.text).toBe(200);
    expect(r.body).toMatchObject({
      success: true,
      asociadoId: 1010,
      diasLaboradosNomina: 990,
      vacacionesDisponibles: 41.25,
      // October's four fortnights: 2 × 1,325,000 of the main contract and 2 × 450,000 of the additional one.
      ibcUltimoMes: 3550000,
    });
  });

  it('subtracts a new live record from the available days', async () => {
    const add = await c.post('/api/vacaciones/add', {
      documentoAsociado: W.maria,
      vacFechaInicio: '2026-10-05',
      vacDiasVacaciones: '6',
      emailUserResponsable: ADMIN,
    });
    expect(add.status, add.text).toBe(201);
    const r = await consult(W.maria);
    expect(r.status, r.text).toBe(200);
    expect(r.body.vacacionesDisponibles).toBe(41.25 - historicDays1001 - 6);
  });

  it('gives 30 days a year to the high-risk contract of 1020307014', async () => {
    const r = await consult(W.juan);
    expect(r.status, r.text).toBe(200);
    expect(r.body).toMatchObject({ success: true, asociadoId: 1002, parametrizacion: { diasVacacionesAnuales: 30 } });
  });

  it('answers without the /api prefix and with parameter names in any case', async () => {
    const bare = await consult(W.maria, ADMIN, '/vacaciones/consultdatavacations');
    expect(bare.status, bare.text).toBe(200);
    expect(bare.body).toMatchObject({ success: true, asociadoId: 1001 });
    const lower = await c.get(CONSULT, { numerodocumento: W.juan, EMAILRESPONSABLE: ADMIN });
    expect(lower.status, lower.text).toBe(200);
    expect(lower.body).toMatchObject({ success: true, asociadoId: 1002 });
  });

  it('takes no tipoDocumento: one that matches no worker changes nothing', async () => {
    const r = await c.get(CONSULT, { tipoDocumento: 'XX', numeroDocumento: W.juan, emailResponsable: ADMIN });
    expect(r.status, r.text).toBe(200);
    expect(r.body).toMatchObject({ success: true, asociadoId: 1002 });
  });

  it.each([
    ['no contracts', W.catalina],
    ['only a settled contract', W.andres],
  ])('a worker with %s is 200 "sin contratos"', async (_, doc) => {
    const r = await consult(doc);
    expect(r.status, r.text).toBe(200);
    expect(r.body).toEqual({ success: true, activo: false, estado: 'sin contratos' });
  });

  it('a company contract without vacation rules is 200 "sin información de parametrización"', async () => {
    const r = await consult(W.jorge);
    expect(r.status, r.text).toBe(200);
    expect(r.body).toEqual({
      success: true,
      activo: false,
      estado: 'sin información de parametrización de vacaciones en contrato empresa',
    });
  });

  it.each([
    ['no end date', W.paula, 'El contrato no tiene fechas de inicio o fin configuradas correctamente.'],
    ['no company contract', W.diana, 'El contrato no tiene asociado un contrato empresa válido.'],
    ['no risk level', W.santiago, 'No se encuentra configurado el nivel de riesgo del contrato.'],
  ])('a contract with %s is 422', async (_, doc, message) => {
    expectLookupError(await consult(doc), 422, message);
  });

  it('a missing document is 400; a missing e-mail is 400', async () => {
    expectLookupError(await c.get(CONSULT, { emailResponsable: ADMIN }), 400, M.documentRequired);
    expectLookupError(await c.get(CONSULT, { numeroDocumento: W.maria }), 400, M.emailRequired);
  });

  it('an unknown worker is 404; an unknown or non-administrator e-mail is 404', async () => {
    expectLookupError(await consult('9999999999'), 404, M.workerNotFound);
    expectLookupError(await consult(W.maria, 'nadie@empresa.co'), 404, M.adminNotFound);
    expectLookupError(await consult(W.maria, EMPLOYEE), 404, M.adminNotFound);
  });
});

/** Writes the fixture plus `sheets` to a file of its own and imports it; the file is gone afterwards. */
async function importWithSheets(
  run: (args: string[]) => Promise<{ code: number | null; stderr: string }>,
  sheets: Record<string, unknown>[],
) {
  const data = loadFixture() as { nomina: Record<string, unknown>[] };
  data.nomina.push(...sheets);
  const dir = mkdtempSync(join(tmpdir(), 'vac-nomina-'));
  const file = join(dir, 'reference-data.json');
  writeFileSync(file, JSON.stringify(data));
  try {
    const imported = await run(['import', file]);
    expect(imported.code, imported.stderr).toBe(0);
  } finally {
    rmSync(dir, { recursive: true, force: true });
  }
}

/** The first half of November 2026 for worker 1001, paid at another amount than the salary's half. */
const NOVEMBER_FIRST_HALF = {
  asociadoId: 1001,
  contratoId: 10001,
  periodoInicio: '2026-11-01',
  periodoFin: '2026-11-15',
  diasLaborados: 15,
  compensacionBasica: 1500000,
};

describe('consult after an import changes the payroll', () => {
  it('counts a new payroll sheet in the days worked and the available days, not in the IBC of a month still running', async (ctx) => {
    if (!srv.postgres) ctx.skip('needs a PostgreSQL server: on PGlite the CLI cannot open the database the server holds');
    const consult = () => c.get(CONSULT, { numeroDocumento: W.maria, emailResponsable: ADMIN });
    const before = await consult();
    expect(before.status, before.text).toBe(200);
    expect(before.body).toMatchObject({ diasLaboradosNomina: 990, ibcUltimoMes: 2847000 });

    await importWithSheets((args) => srv.cli(args), [NOVEMBER_FIRST_HALF]);

    // The server hears of the import through the database's notice, or its next version check.
    let after = await consult();
    for (let i = 0; i < 50 && after.body.diasLaboradosNomina === 990; i++) {
      await new Promise((r) => setTimeout(r, 100));
      after = await consult();
    }
    expect(after.status, after.text).toBe(200);
    expect(after.body).toMatchObject({
      diasLaboradosNomina: 1005,
      // November has not ended on 2026-11-21: its first fortnight does not stand for a month.
      ibcUltimoMes: 2847000,
      // 15 more days worked at 15 days a year: 0.625 more available, answered to two decimals.
      vacacionesDisponibles: Number((before.body.vacacionesDisponibles + 0.625).toFixed(2)),
    });
  });
});

describe('consult in the middle of a month', () => {
  let mid: TestServer;
  beforeAll(async () => {
    // Imported before the server opens the database, so this runs on PGlite too.
    mid = await startTestServer({ beforeStart: (env) => importWithSheets((args) => runCli(env, args), [NOVEMBER_FIRST_HALF]) });
  });
  afterAll(async () => {
    await mid?.stop();
  });

  it('reports the IBC of the last month that has ended, not the one fortnight of November paid so far', async () => {
    const r = await client(mid.url, mid.keys.acceptance!).get(CONSULT, { numeroDocumento: W.maria, emailResponsable: ADMIN });
    expect(r.status, r.text).toBe(200);
    // The fortnight has ended, so its days count; November has not, so October's IBC stands.
    expect(r.body).toMatchObject({ asociadoId: 1001, diasLaboradosNomina: 1005, ibcUltimoMes: 2847000 });
  });
});

describe('GET /api/contratos/verificarContratoActivo', () => {
  const check = (q: Record<string, string>, path = CHECK) => c.get(path, { emailResponsable: ADMIN, ...q });

  it('a worker in force is activo with the contract dates', async () => {
    const r = await check({ numeroDocumento: W.maria });
    expect(r.status, r.text).toBe(200);
    expect(r.body).toEqual({
      success: true,
      activo: true,
      estado: 'activo',
      contrato: { fechaInicio: '2024-02-01', fechaFin: '2027-01-31', esAdicional: false },
    });
  });

  it('answers without the /api prefix and with a matching tipoDocumento', async () => {
    const r = await check({ tipoDocumento: 'CC', numeroDocumento: W.maria }, '/contratos/verificarContratoActivo');
    expect(r.status, r.text).toBe(200);
    expect(r.body).toMatchObject({ success: true, activo: true, estado: 'activo' });
  });

  it('a worker whose only contract is settled is "sin contrato", without a contrato member', async () => {
    const r = await check({ numeroDocumento: W.andres });
    expect(r.status, r.text).toBe(200);
    expect(r.body).toEqual({ success: true, activo: false, estado: 'sin contrato' });
  });

  it('a worker without contracts is "sin contrato registrado"', async () => {
    const r = await check({ numeroDocumento: W.catalina });
    expect(r.status, r.text).toBe(200);
    expect(r.body).toEqual({ success: true, activo: false, estado: 'sin contrato registrado' });
  });

  it('a missing document is 400 without a statusCode member', async () => {
    const r = await check({});
    expect(r.status).toBe(400);
    expect(r.body).toEqual({ success: false, message: M.documentRequired });
  });

  it('an unknown worker is 404 with statusCode', async () => {
    expectLookupError(await check({ numeroDocumento: '9999999999' }), 404, M.workerNotFound);
  });

  it('a tipoDocumento that does not match the worker is 404 worker not found', async () => {
    expectLookupError(await check({ tipoDocumento: 'CE', numeroDocumento: W.maria }), 404, M.workerNotFound);
  });

  it('an unknown administrator is 404', async () => {
    expectLookupError(await check({ numeroDocumento: W.maria, emailResponsable: 'nadie@empresa.co' }), 404, M.adminNotFound);
  });
});
