import { mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import {
  ADMIN,
  CODE_RE,
  EMPLOYEE,
  W,
  WORKED_EXAMPLE,
  addVacation,
  client,
  expectErrorList,
  expectKeyedErrors,
  expectVacationError,
  vacationForm,
  type Client,
} from '../support/http.ts';
import { HISTORIC_DAYS_1001, importedHistoric, startTestServer, type TestServer } from '../support/server.ts';

const M = {
  missing: 'Datos requeridos faltantes',
  emailRequired: 'Email del usuario responsable es requerido',
  userNotFound: 'Usuario responsable no encontrado',
  workerNotFound: 'Trabajador no encontrado.',
  rules: 'No se pueden procesar las vacaciones',
};

let srv: TestServer;
let c: Client;
/** Days of worker 1001 already taken by the historic records of the fixture, once imported. */
let historicDays1001 = 0;

beforeAll(async () => {
  srv = await startTestServer();
  c = client(srv.url, srv.keys.acceptance!);
  historicDays1001 = importedHistoric(srv) ? HISTORIC_DAYS_1001 : 0;
});
afterAll(async () => {
  await srv?.stop();
});

describe('POST /api/vacaciones/calculate', () => {
  // First in the file, so the only records of worker 1001 are the fixture's.
  it('computes 2026-01-05 + 15 days for 1020307007: end 2026-01-26, 22 calendar days, 1,423,500', async () => {
    const r = await c.post(
      '/api/vacaciones/calculate',
      vacationForm(W.maria, '2026-01-05', 15, { vacPagado: '0', vacLaboraSabado: '0', vacCompensado: '0', vacSeguridadEnNomina: '1' }),
    );
    expect(r.status, r.text).toBe(200);
    expect(r.body).toEqual({
      success: true,
      statusCode: 200,
      message: expect.any(String),
      data: {
        ...WORKED_EXAMPLE,
        vacPagado: '0',
        vacLaboraSabado: '0',
        vacCompensado: '0',
        vacSeguridadEnNomina: '1',
        // 690 days worked by 2026-01-05 accrue 690 × 15 / 360 = 28.75.
        DiasDisponibles: 28.75 - historicDays1001,
        diasCausados: 28.75,
      },
    });
  });

  it('accrues only the main contract of 1020307070, who also has an additional one: 990 days worked, 41.25 accrued', async () => {
    // Before any record of worker 1010 exists in this file.
    const r = await c.post('/api/vacaciones/calculate', vacationForm(W.camilo, '2026-11-23', 6));
    expect(r.status, r.text).toBe(200);
    expect(r.body.data).toMatchObject({ vacAsociado: 1010, vacSalario: 2650000, diasCausados: 41.25, DiasDisponibles: 41.25 });
  });

  it("does not let the additional contract's payroll make days available to 1020307070: 45 days are refused", async () => {
    const r = await c.post('/api/vacaciones/calculate', vacationForm(W.camilo, '2026-11-23', 45));
    expect(expectErrorList(expectVacationError(r, 422, M.rules))).toContain(
      'Los días solicitados (45) superan los días disponibles (41.25)',
    );
  });

  it('counts Saturdays as business days when vacLaboraSabado=1: end 2026-01-22, 18 calendar days', async () => {
    const r = await c.post('/api/vacaciones/calculate', vacationForm(W.maria, '2026-01-05', 15, { vacLaboraSabado: '1' }));
    expect(r.status, r.text).toBe(200);
    expect(r.body.data).toMatchObject({
      vacFechaFinal: '2026-01-22',
      vacDiasCalendario: 18,
      vacValorTotal: 1423500,
      vacLaboraSabado: '1',
    });
  });

  it('computes 2026-03-16 + 6 days across the 2026-03-23 holiday: end 2026-03-24, 9 days, 569,400', async () => {
    const r = await c.post('/api/vacaciones/calculate', vacationForm(W.maria, '2026-03-16', 6));
    expect(r.status, r.text).toBe(200);
    expect(r.body).toMatchObject({ success: true, statusCode: 200, message: expect.any(String) });
    expect(r.body.data).toMatchObject({
      vacAsociado: 1001,
      vacFechaInicio: '2026-03-16',
      vacFechaFinal: '2026-03-24',
      vacDiasVacaciones: 6,
      vacDiasCalendario: 9,
      vacSalario: 2847000,
      vacValorTotal: 569400,
    });
    for (const k of ['vacPagado', 'vacLaboraSabado', 'vacCompensado', 'vacSeguridadEnNomina', 'DiasDisponibles', 'diasCausados']) {
      expect(r.body.data).toHaveProperty(k);
    }
  });

  it('answers the same without the /api prefix and stores nothing', async () => {
    const before = await c.get('/api/vacaciones', { numeroDocumento: W.maria, emailResponsable: ADMIN });
    const r = await c.post('/vacaciones/calculate', vacationForm(W.maria, '2026-03-16', 6));
    expect(r.status, r.text).toBe(200);
    expect(r.body.data).toMatchObject({ vacFechaFinal: '2026-03-24', vacValorTotal: 569400 });
    const after = await c.get('/api/vacaciones', { numeroDocumento: W.maria, emailResponsable: ADMIN });
    expect(after.body.vacaciones).toHaveLength(before.body.vacaciones.length);
  });
});

describe('POST /api/vacaciones/add', () => {
  it('registers a vacation: 201 with the PILA code, the numeric id and the figures, readable at once', async () => {
    const r = await c.post('/api/vacaciones/add', vacationForm(W.maria, '2026-02-02', 6));
    expect(r.status, r.text).toBe(201);
    expect(r.body).toEqual({
      success: true,
      statusCode: 201,
      message: expect.any(String),
      data: {
        codigo_pila: expect.stringMatching(CODE_RE),
        id: expect.any(Number),
        vacaciones: {
          vacAsociado: 1001,
          vacFechaInicio: '2026-02-02',
          vacFechaFinal: '2026-02-09',
          vacDiasVacaciones: 6,
          vacDiasCalendario: 8,
          vacSalario: 2847000,
          vacValorTotal: 569400,
          vacCodigoPila: r.body.data.codigo_pila,
        },
      },
    });
    const list = await c.get('/api/vacaciones', { numeroDocumento: W.maria, emailResponsable: ADMIN });
    expect(list.status).toBe(200);
    expect(JSON.stringify(list.body.vacaciones)).toContain(r.body.data.codigo_pila);
  });

  it('answers the same without the /api prefix', async () => {
    const data = await (async () => {
      const r = await c.post('/vacaciones/add', vacationForm(W.maria, '2026-03-02', 6));
      expect(r.status, r.text).toBe(201);
      return r.body.data;
    })();
    expect(data.codigo_pila).toMatch(CODE_RE);
    expect(data.vacaciones).toMatchObject({ vacFechaInicio: '2026-03-02', vacFechaFinal: '2026-03-09' });
  });
});

describe.each(['calculate', 'add'])('POST /api/vacaciones/%s: validation', (op) => {
  const path = `/api/vacaciones/${op}`;

  it('a missing e-mail is 400 "Email del usuario responsable es requerido" keyed emailUserResponsable', async () => {
    const { emailUserResponsable: _, ...form } = vacationForm(W.maria, '2026-05-04', 6);
    const errors = expectVacationError(await c.post(path, form), 400, M.emailRequired);
    expectKeyedErrors(errors, ['emailUserResponsable']);
  });

  it('other missing fields are 400 "Datos requeridos faltantes" with one message per field', async () => {
    const r = await c.post(path, { vacFechaInicio: '2026-05-04', emailUserResponsable: ADMIN });
    expectErrorList(expectVacationError(r, 400, M.missing), 2);
  });

  it.each([
    ['vacFechaInicio', '2026-02-30'],
    ['vacFechaInicio', '05/01/2026'],
    ['vacDiasVacaciones', 'abc'],
    ['vacDiasVacaciones', '0'],
    ['vacDiasVacaciones', '361'],
    ['vacDiasVacaciones', '1.5'],
    ['vacPagado', '2'],
    ['vacLaboraSabado', 'si'],
    ['vacCompensado', 'true'],
    ['vacSeguridadEnNomina', '3'],
  ])('%s=%s is 400 "Datos requeridos faltantes" with one message', async (field, value) => {
    const r = await c.post(path, { ...vacationForm(W.maria, '2026-05-04', 6), [field]: value });
    expectErrorList(expectVacationError(r, 400, M.missing), 1);
  });

  it.each([
    ['an unknown user', 'nadie@empresa.co'],
    ['a user who is not an administrator', EMPLOYEE],
  ])('%s is 404 "Usuario responsable no encontrado" keyed emailUserResponsable', async (_, email) => {
    const r = await c.post(path, vacationForm(W.maria, '2026-05-04', 6, { emailUserResponsable: email }));
    expectKeyedErrors(expectVacationError(r, 404, M.userNotFound), ['emailUserResponsable']);
  });

  it('an unknown worker is 404 "Trabajador no encontrado." keyed documentoAsociado', async () => {
    const r = await c.post(path, vacationForm('9999999999', '2026-05-04', 6));
    expectKeyedErrors(expectVacationError(r, 404, M.workerNotFound), ['documentoAsociado']);
  });
});

describe.each(['calculate', 'add'])('POST /api/vacaciones/%s: business rules (422)', (op) => {
  const path = `/api/vacaciones/${op}`;
  const rulesOf = async (form: Record<string, string>) => expectErrorList(expectVacationError(await c.post(path, form), 422, M.rules));

  it('fewer days than the minimum enjoyed', async () => {
    expect(await rulesOf(vacationForm(W.maria, '2026-05-04', 4))).toContain(
      'Los días solicitados (4) no cumplen el mínimo de 6 días disfrutados',
    );
  });

  it('a start on a holiday', async () => {
    expect(await rulesOf(vacationForm(W.maria, '2026-01-12', 6))).toContain(
      'La fecha de inicio 2026-01-12 no es un día hábil para el trabajador',
    );
  });

  it('lists every failing rule: 4 days starting on a holiday', async () => {
    const errors = await rulesOf(vacationForm(W.maria, '2026-01-12', 4));
    expect(errors).toEqual(
      expect.arrayContaining([
        'Los días solicitados (4) no cumplen el mínimo de 6 días disfrutados',
        'La fecha de inicio 2026-01-12 no es un día hábil para el trabajador',
      ]),
    );
  });

  it('more days than available', async () => {
    const errors = await rulesOf(vacationForm(W.maria, '2026-05-04', 40));
    expect(
      errors.some((e) => /\(40\)/.test(e) && /disponibles/.test(e)),
      errors.join(' | '),
    ).toBe(true);
  });

  it('a contract without risk level', async () => {
    expect(await rulesOf(vacationForm(W.santiago, '2026-05-04', 6))).toContain(
      'No se encuentra configurado el nivel de riesgo del contrato.',
    );
  });

  it('a start date with no contract in force', async () => {
    expect(await rulesOf(vacationForm(W.maria, '2028-03-01', 6))).toContain(
      'El trabajador no tiene un contrato vigente en la fecha de inicio',
    );
  });
});

describe('overlaps and places per subgerencia', () => {
  it('dates that overlap a live vacation of the same worker are refused by calculate and add', async () => {
    await addVacation(c, vacationForm(W.camilo, '2026-04-06', 6));
    for (const op of ['calculate', 'add']) {
      const r = await c.post(`/api/vacaciones/${op}`, vacationForm(W.camilo, '2026-04-08', 6));
      const errors = expectErrorList(expectVacationError(r, 422, M.rules));
      expect(
        errors.some((e) => e.includes('se cruzan')),
        `${op}: ${errors.join(' | ')}`,
      ).toBe(true);
    }
  });

  it('an overlap is reported even when no contract is in force on the start date', async (ctx) => {
    // The main contract of 1020307070 ends 2027-01-31: a vacation past it is refused (rule f) ...
    const past = await c.post('/api/vacaciones/add', vacationForm(W.camilo, '2027-01-25', 6));
    expect(expectErrorList(expectVacationError(past, 422, M.rules))).toEqual([
      'Las vacaciones terminan el 2027-02-01, después del fin del contrato (2027-01-31)',
    ]);
    // ... but the replaced system's records may run past it: one is imported, ending Monday 2027-02-01.
    if (!srv.postgres) ctx.skip('needs a PostgreSQL server: on PGlite the CLI cannot open the database the server holds');
    const dir = mkdtempSync(join(tmpdir(), 'vac-past-end-'));
    const file = join(dir, 'historic.json');
    const row = { codigoPila: 'VAC_1760000000000_0000abcd_0000ef01', asociadoId: 1010, fechaInicio: '2027-01-25', diasVacaciones: 6 };
    writeFileSync(
      file,
      JSON.stringify({ vacaciones: [{ ...row, laboraSabado: false, compensado: false, pagado: false, aprobado: false }] }),
    );
    const imported = await srv.cli(['import', file]);
    rmSync(dir, { recursive: true, force: true });
    expect(imported.code, imported.stderr).toBe(0);
    // The import ran in another process: the service reads it once its read models take it in (moments later).
    const refusal = async () =>
      expectErrorList(
        expectVacationError(await c.post('/api/vacaciones/calculate', vacationForm(W.camilo, '2027-02-01', 6)), 422, M.rules),
      );
    await expect.poll(async () => (await refusal()).some((e) => e.includes('se cruzan')), { timeout: 5000 }).toBe(true);
    expect(await refusal()).toContain('El trabajador no tiene un contrato vigente en la fecha de inicio');
  });

  it('with two other SG-OPS workers away, a third one is refused: "Se alcanzó el máximo de 2 personas"', async () => {
    await addVacation(c, vacationForm(W.juan, '2026-09-07', 6, { vacCompensado: '0' }));
    await addVacation(c, vacationForm(W.camilo, '2026-09-08', 6, { vacCompensado: '0' }));
    for (const op of ['calculate', 'add']) {
      const r = await c.post(`/api/vacaciones/${op}`, vacationForm(W.maria, '2026-09-09', 6, { vacCompensado: '0' }));
      const errors = expectErrorList(expectVacationError(r, 422, M.rules));
      expect(
        errors.some((e) => e.includes('Se alcanzó el máximo de 2 personas')),
        `${op}: ${errors.join(' | ')}`,
      ).toBe(true);
    }
    const list = await c.get('/api/vacaciones', { numeroDocumento: W.maria, emailResponsable: ADMIN });
    expect(list.body.vacaciones.map((v: { startDate?: string }) => JSON.stringify(v)).join()).not.toContain('2026-09-09');
  });
});
