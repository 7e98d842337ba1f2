import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import * as R from '../../src/http/response-schemas.ts';
import {
  ADMIN,
  EMPLOYEE,
  W,
  addVacation,
  call,
  client,
  expectErrorList,
  expectKeyedErrors,
  expectVacationError,
  vacationForm,
  type Client,
  type Json,
} from '../support/http.ts';
import { GAP, OVER_HALF, RECENT, RESETTLED, lawDataWithCorners } from '../support/law-corners.ts';
import { LIMITED, LONG, TRUSTED, lawData } from '../support/law-data.ts';
import { importThroughCli } from '../support/reliability-server.ts';
import { TODAY, startTestServer, type TestServer } from '../support/server.ts';

let srv: TestServer;
let c: Client;

beforeAll(async () => {
  srv = await startTestServer({ beforeStart: async (env) => void (await importThroughCli(env, lawDataWithCorners(lawData()))) });
  c = client(srv.url, srv.keys.acceptance!);
});
afterAll(async () => {
  await srv?.stop();
});

/** Workers of the fixture whose contract cannot accrue days, with the consult's words for why. */
/** The warnings other than the six continuous days of art. 190, which their own test holds. */
const notSixDays = (w: { tipo: string }) => w.tipo !== 'art190SeisDias';

const CANNOT_ACCRUE: [string, string][] = [
  [W.paula, 'El contrato no tiene fechas de inicio o fin configuradas correctamente.'],
  [W.diana, 'El contrato no tiene asociado un contrato empresa válido.'],
  [W.santiago, 'No se encuentra configurado el nivel de riesgo del contrato.'],
  [W.jorge, 'sin información de parametrización de vacaciones en contrato empresa'],
];

const OVER_HALF_OF = (days: string, accrued: string) =>
  `Los días compensados en dinero (${days}) superarían la mitad de los días causados a la fecha de inicio (${accrued}): ` +
  'solo puede pagarse en dinero hasta la mitad de lo causado';

describe('limit on days paid in money (limiteCompensacion "mitad")', () => {
  const money = (doc: string, start: string, days: number) => vacationForm(doc, start, days, { vacCompensado: '1' });

  // Paid from 2024-02-01: by 2026-01-05, 690 days worked accrued 28.75 days; by 2026-02-02, 30.
  it('refuses more than half of what was accrued in money, listed beside the other broken rules, and stores nothing', async () => {
    const r = await c.post('/api/vacaciones/calculate', money(LIMITED.document, '2026-01-04', 15));
    const errors = expectErrorList(expectVacationError(r, 422, 'No se pueden procesar las vacaciones'));
    expect(errors).toEqual(['La fecha de inicio 2026-01-04 no es un día hábil para el trabajador', OVER_HALF_OF('15', '28.75')]);

    const add = await c.post('/api/vacaciones/add', money(LIMITED.document, '2026-01-05', 15));
    expect(expectVacationError(add, 422, 'No se pueden procesar las vacaciones')).toEqual([OVER_HALF_OF('15', '28.75')]);
    const list = await c.get('/api/vacaciones', { numeroDocumento: LIMITED.document, emailResponsable: ADMIN });
    expect(list.body.vacaciones).toEqual([]);
  });

  it('accepts up to half, then counts what was paid before', async () => {
    const ok = await c.post('/api/vacaciones/calculate', money(LIMITED.document, '2026-01-05', 14));
    expect(ok.status, ok.text).toBe(200);
    await addVacation(c, money(LIMITED.document, '2026-01-05', 14));
    const more = await c.post('/api/vacaciones/calculate', money(LIMITED.document, '2026-02-02', 2));
    expect(expectVacationError(more, 422, 'No se pueden procesar las vacaciones')).toEqual([OVER_HALF_OF('16', '30')]);
    expect((await c.post('/api/vacaciones/calculate', money(LIMITED.document, '2026-02-02', 1))).status).toBe(200);
    // Enjoyed days are not limited.
    const enjoyed = await c.post('/api/vacaciones/calculate', vacationForm(LIMITED.document, '2026-02-02', 8));
    expect(enjoyed.status, enjoyed.text).toBe(200);
  });

  it('counts the days paid in money by the system before (historic records) against half of what was accrued', async () => {
    // 10 days paid in money in 2025; by 2026-12-01, 990 days worked accrued 41.25 days.
    const more = await c.post('/api/vacaciones/calculate', money(OVER_HALF.document, '2026-12-01', 11));
    expect(expectVacationError(more, 422, 'No se pueden procesar las vacaciones')).toEqual([OVER_HALF_OF('21', '41.25')]);
    const within = await c.post('/api/vacaciones/calculate', money(OVER_HALF.document, '2026-12-01', 10));
    expect(within.status, within.text).toBe(200);
  });

  it('leaves a company contract without the parameter as it was', async () => {
    const r = await c.post('/api/vacaciones/calculate', money(W.maria, '2026-01-05', 10));
    expect(r.status, r.text).toBe(200);
  });
});

describe('GET /api/vacaciones/periodos', () => {
  const periods = (doc: string, path = '/api/vacaciones/periodos') => c.get(path, { numeroDocumento: doc, emailResponsable: ADMIN });

  it('lists the periods of 360 days worked with what each accrued, enjoyed, paid and owes, and adds up to the consult', async () => {
    const r = await periods(W.maria);
    expect(r.status, r.text).toBe(200);
    expect(R.periodsOk.safeParse(r.body).error).toBeUndefined();
    const data = r.body.data;
    expect(data).toMatchObject({ asociadoId: 1001, numeroDocumento: W.maria, fechaCorte: TODAY });
    expect(
      data.periodos.map((p: Json) => [
        p.numero,
        p.desde,
        p.causadoEl,
        p.estado,
        p.diasLaborados,
        p.diasCausados,
        p.exigibleDesde,
        p.prescribeEl,
      ]),
    ).toEqual([
      [1, '2024-02-01', '2025-01-31', 'causado', 360, 15, '2026-01-31', '2029-01-31'],
      [2, '2025-02-01', '2026-01-31', 'causado', 360, 15, '2027-01-31', '2030-01-31'],
      [3, '2026-02-01', null, 'en curso', 270, 11.25, null, null],
    ]);
    const consult = await c.get('/api/vacaciones/consultdatavacations', { numeroDocumento: W.maria, emailResponsable: ADMIN });
    expect(data.totales.diasPendientes).toBe(consult.body.vacacionesDisponibles);
    expect(data.totales.diasCausados).toBe(41.25);
    expect(data.advertencias.filter(notSixDays)).toEqual([]);
  });

  it('applies a new booking to the oldest period with days pending, as soon as it is answered', async () => {
    const before = (await periods(W.maria)).body.data;
    const pendingFirst = before.periodos[0].diasPendientes as number;
    const added = await addVacation(c, vacationForm(W.maria, '2026-12-01', pendingFirst + 1));
    const after = (await periods(W.maria)).body.data;
    expect(after.periodos[0]).toMatchObject({
      diasPendientes: 0,
      vacaciones: expect.arrayContaining([{ codigoPila: added.codigo_pila, dias: pendingFirst }]),
    });
    expect(after.periodos[1]).toMatchObject({
      diasDisfrutados: 1,
      diasPendientes: 14,
      vacaciones: [{ codigoPila: added.codigo_pila, dias: 1 }],
    });
    expect(after.totales.diasPendientes).toBe(before.totales.diasPendientes - pendingFirst - 1);
  });

  it('warns of more than two pending periods and of periods that prescribe or have prescribed', async () => {
    const r = await periods(LONG.document, '/vacaciones/periodos');
    expect(r.status, r.text).toBe(200);
    const data = r.body.data;
    expect(data.periodos.filter((p: Json) => p.estado === 'causado')).toHaveLength(5);
    expect(data.periodos[0]).toMatchObject({ causadoEl: '2021-12-31', prescribeEl: '2025-12-31', prescrito: true, diasPendientes: 15 });
    expect(data.advertencias.filter(notSixDays)).toEqual([
      {
        tipo: 'acumulacion',
        mensaje: 'El trabajador tiene 5 períodos causados con días pendientes; el artículo 190 del CST permite acumular hasta 2',
      },
      {
        tipo: 'prescrito',
        mensaje: `Los 15 días pendientes del período 1 del contrato ${LONG.contractId} prescribieron el 2025-12-31 (artículo 488 del CST)`,
      },
      {
        tipo: 'prescripcion',
        mensaje: `Los 15 días pendientes del período 2 del contrato ${LONG.contractId} prescriben el 2026-12-31 (artículo 488 del CST)`,
      },
    ]);
  });

  it('warns of each period whose year to be enjoyed passed without 6 continuous business days enjoyed (art. 190)', async () => {
    const data = (await periods(LONG.document, '/vacaciones/periodos')).body.data;
    // Periods earned on 2021-12-31, 2022-12-31 and 2023-12-31: their years ended by 2025-12-31; the fourth's has not.
    const six = (n: number, enforceable: string, due: string) => ({
      tipo: 'art190SeisDias',
      mensaje:
        `El período ${n} del contrato ${LONG.contractId}, exigible desde el ${enforceable}, pasó su año (hasta el ${due}) ` +
        'sin unas vacaciones disfrutadas de al menos 6 días hábiles continuos (artículo 190 del CST)',
    });
    expect(data.advertencias.filter((w: Json) => !notSixDays(w))).toEqual([
      six(1, '2022-12-31', '2023-12-31'),
      six(2, '2023-12-31', '2024-12-31'),
      six(3, '2024-12-31', '2025-12-31'),
    ]);
    // Each flagged period says so itself, and the register flags the same ones, as JSON and as CSV.
    const flagged = (list: Json[]) => list.filter((p) => p.art190SeisDias).map((p) => p.numero);
    expect(flagged(data.periodos)).toEqual([1, 2, 3]);
    const book = await c.get('/api/vacaciones/libro', { numeroDocumento: LONG.document, emailResponsable: ADMIN });
    expect(book.status, book.text).toBe(200);
    expect(flagged(book.body.data.trabajadores[0].periodos)).toEqual([1, 2, 3]);
    const csv = await c.get('/api/vacaciones/libro', { numeroDocumento: LONG.document, emailResponsable: ADMIN, formato: 'csv' });
    const rows = csv.text
      .replace(/^\uFEFF/, '')
      .trim()
      .split('\n')
      .map((l) => l.split(','));
    const [head, ...lines] = rows;
    const at = (name: string) => head!.indexOf(name);
    expect(at('art190SeisDias')).toBeGreaterThan(0);
    const csvFlagged = lines
      .filter((l) => l[at('registro')] === 'periodo' && l[at('art190SeisDias')] === '1')
      .map((l) => Number(l[at('periodo')]));
    expect(csvFlagged).toEqual([1, 2, 3]);
  });

  it('dates a period by the payroll sheets themselves: a month without a sheet is not worked time', async () => {
    const data = (await periods(GAP.document)).body.data;
    expect(data.periodos.slice(0, 2).map((p: Json) => [p.numero, p.desde, p.causadoEl, p.exigibleDesde, p.prescribeEl])).toEqual([
      [1, '2024-02-10', '2025-03-09', '2026-03-09', '2029-03-09'],
      [2, '2025-03-10', '2026-03-09', '2027-03-09', '2030-03-09'],
    ]);
  });

  it('lets technical or trusted staff accumulate four periods', async () => {
    const data = (await periods(TRUSTED.document)).body.data;
    expect(data.periodos.filter((p: Json) => p.estado === 'causado')).toHaveLength(4);
    expect(data.advertencias.filter(notSixDays).map((w: Json) => w.tipo)).toEqual(['prescripcion']);
  });

  it("refuses, as the consult does and in its words, when the worker's contract cannot accrue days", async () => {
    for (const [doc, reason] of CANNOT_ACCRUE) {
      const consult = await c.get('/api/vacaciones/consultdatavacations', { numeroDocumento: doc, emailResponsable: ADMIN });
      expect(consult.text).toContain(reason);
      const r = await periods(doc);
      expect(expectVacationError(r, 422, 'No se pueden calcular los períodos de vacaciones'), doc).toEqual([reason]);
    }
  });

  it('shows the periods of a worker whose only contract was settled, as history', async () => {
    const r = await periods(W.andres);
    expect(r.status, r.text).toBe(200);
    // The contract ended on 2025-12-31, 30 days short of a second period: that part is final.
    expect(r.body.data.periodos.map((p: Json) => [p.contratoId, p.estado, p.diasLaborados, p.contratoLiquidado])).toEqual([
      [10004, 'causado', 360, true],
      [10004, 'proporcional', 330, true],
    ]);
  });

  it('refuses bad input in the vacation envelope', async () => {
    expectKeyedErrors(
      expectVacationError(await c.get('/api/vacaciones/periodos', { emailResponsable: ADMIN }), 400, 'Datos requeridos faltantes'),
      ['numeroDocumento'],
    );
    expectKeyedErrors(expectVacationError(await c.get('/api/vacaciones/periodos', {}), 400, 'Datos requeridos faltantes'), [
      'numeroDocumento',
      'emailResponsable',
    ]);
    expectKeyedErrors(expectVacationError(await periods('999999999'), 404, 'Trabajador no encontrado.'), ['numeroDocumento']);
    const notAdmin = await c.get('/api/vacaciones/periodos', { numeroDocumento: W.maria, emailResponsable: EMPLOYEE });
    expectKeyedErrors(expectVacationError(notAdmin, 404, 'Usuario responsable no encontrado'), ['emailResponsable']);
    const post = await c.post('/api/vacaciones/periodos', { numeroDocumento: W.maria });
    expect(post.status).toBe(405);
    expect(post.body).toEqual({ success: false, statusCode: 405, message: 'Método no permitido. Use GET' });
    const keyless = await call(srv.url, '/api/vacaciones/periodos', { query: { numeroDocumento: W.maria, emailResponsable: ADMIN } });
    expect(keyless.status).toBe(401);
  });
});

describe('GET /api/vacaciones/libro', () => {
  it('shows the date of hire only once the register of the cut-off date knew of it', async () => {
    const book = async (fechaCorte: string) =>
      (await c.get('/api/vacaciones/libro', { numeroDocumento: RECENT.document, fechaCorte, emailResponsable: ADMIN })).body.data
        .trabajadores[0];
    expect(await book('2025-12-31')).toMatchObject({ fechaIngreso: null, periodos: [] });
    expect(await book('2026-01-01')).toMatchObject({
      fechaIngreso: '2026-01-01',
      periodos: [expect.objectContaining({ estado: 'en curso' })],
    });
  });
});

describe('GET /api/vacaciones/liquidacion', () => {
  const settle = (doc: string, fechaRetiro: string) =>
    c.get('/api/vacaciones/liquidacion', { numeroDocumento: doc, fechaRetiro, emailResponsable: ADMIN });

  it('owes every pending period and the proportional part of the last, at the salary of the contract in force, as the periods show them', async () => {
    const r = await settle(LONG.document, TODAY);
    expect(r.status, r.text).toBe(200);
    expect(R.settlementOk.safeParse(r.body).error).toBeUndefined();
    // Five full periods of 15 days, 300 days of 2026 in payroll by the end of October (12.5), and
    // 21 days worked in November that no sheet holds yet (0.875): 88.375 days.
    expect(r.body.data).toMatchObject({
      asociadoId: LONG.workerId,
      fechaRetiro: TODAY,
      contrato: { contratoId: LONG.contractId, salarioBase: LONG.salary },
      nominaHasta: '2026-10-31',
      diasSinNomina: 21,
      diasCausadosSinNomina: 0.88,
      diasPendientes: 88.38,
      valor: (LONG.salary * 88.375) / 30,
      periodosExcluidos: [],
    });
    expect(r.body.data.advertencias.filter(notSixDays).filter(notSixDays)).toContainEqual({
      tipo: 'proyectado',
      mensaje: `Los 21 días laborados del 2026-11-01 a la fecha de retiro (0.88 días de vacaciones) se proyectan desde el contrato ${LONG.contractId}: la nómina está registrada solo hasta el 2026-10-31`,
    });
    // The periods (payroll alone) are the settlement's but for the days without payroll, in the last one.
    const periods = (await c.get('/api/vacaciones/periodos', { numeroDocumento: LONG.document, emailResponsable: ADMIN })).body.data;
    expect(r.body.data.periodos.slice(0, -1)).toEqual(periods.periodos.slice(0, -1));
    expect(periods.periodos.at(-1)).toMatchObject({ diasLaborados: 300, diasCausados: 12.5 });
    expect(r.body.data.periodos.at(-1)).toMatchObject({ diasLaborados: 321, diasCausados: 13.38, diasPendientes: 13.38 });
    expect(periods.totales.diasPendientes).toBe(87.5);
  });

  it('counts the days worked after the last payroll sheet from the contract, up to a leaving date in the future or inside a fortnight', async () => {
    const future = (await settle(RECENT.document, '2026-12-20')).body.data;
    // 300 days in payroll (12.5) and 50 from 1 November to 20 December (2.08): 5,250 360ths.
    expect(future).toMatchObject({
      nominaHasta: '2026-10-31',
      diasSinNomina: 50,
      diasCausadosSinNomina: 2.08,
      diasPendientes: 14.58,
      valor: Math.round((RECENT.salary * 5_250) / 10_800),
    });
    expect(future.periodos).toEqual([expect.objectContaining({ numero: 1, diasLaborados: 350, diasCausados: 14.58 })]);
    // On the 20th of October the sheet of the second fortnight has not ended: 285 days in payroll and 5 after.
    const inside = (await settle(RECENT.document, '2026-10-20')).body.data;
    expect(inside).toMatchObject({ nominaHasta: '2026-10-15', diasSinNomina: 5, diasPendientes: 12.08, valor: 1_208_333 });
    // On the end of a sheet, nothing is projected.
    const onSheet = (await settle(RECENT.document, '2026-10-31')).body.data;
    expect(onSheet).toMatchObject({ nominaHasta: '2026-10-31', diasSinNomina: 0, diasCausadosSinNomina: 0, diasPendientes: 12.5 });
    expect(onSheet.advertencias.filter(notSixDays)).toEqual([]);
  });

  it('counts the payroll ended by the leaving date, discounts every live record, warns of those ending later, and stores nothing', async () => {
    const trail = async () =>
      (await c.get('/api/vacaciones/auditoria', { numeroDocumento: TRUSTED.document, emailResponsable: ADMIN })).body.auditoria.length;
    const before = await settle(TRUSTED.document, '2026-11-30');
    const booked = await addVacation(c, vacationForm(TRUSTED.document, '2026-12-07', 6));
    const audited = await trail();
    const after = await settle(TRUSTED.document, '2026-11-30');
    expect(after.status, after.text).toBe(200);
    expect(after.body.data.diasPendientes).toBe(before.body.data.diasPendientes - 6);
    expect(after.body.data.valor).toBe(Math.round((TRUSTED.salary * after.body.data.diasPendientes) / 30));
    expect(after.body.data.advertencias.filter(notSixDays).filter(notSixDays)).toContainEqual({
      tipo: 'posterior',
      mensaje: `Las vacaciones ${booked.codigo_pila} (del 2026-12-07 al ${booked.vacaciones.vacFechaFinal}) terminan después de la fecha de retiro y sus días se descuentan como tomados; interrúmpalas o elimínelas si no se disfrutarán`,
    });
    expect(await trail()).toBe(audited);
    // A year earlier only the sheets ended by then count: 2022, 2023 and 2024 full, 2025 by the end of
    // November; the live record still takes its days from the oldest period.
    const earlier = await settle(TRUSTED.document, '2025-11-30');
    expect(earlier.body.data.periodos.map((p: Json) => [p.numero, p.diasCausados, p.diasPendientes])).toEqual([
      [1, 15, 9],
      [2, 15, 15],
      [3, 15, 15],
      [4, 13.75, 13.75],
    ]);
  });

  it('refuses, as the consult does and in its words, when the contract that governs the leaving date cannot accrue days', async () => {
    const settledOnly: [string, string] = [W.andres, 'El trabajador no tiene un contrato vigente en la fecha de retiro 2026-11-30'];
    for (const [doc, reason] of [...CANNOT_ACCRUE, settledOnly]) {
      const r = await settle(doc, '2026-11-30');
      expect(expectVacationError(r, 422, 'No se puede calcular la liquidación de vacaciones'), doc).toEqual([reason]);
    }
  });

  it('owes nothing of a contract settled before: its periods are left out and named, while the periods show them as history', async () => {
    const r = await settle(RESETTLED.document, '2026-10-31');
    expect(r.status, r.text).toBe(200);
    expect(R.settlementOk.safeParse(r.body).error).toBeUndefined();
    const data = r.body.data;
    // Contract 10023: two full periods and 300 days of 2026 (12.5), less the 10 days of 2025.
    expect(data).toMatchObject({ contrato: { contratoId: RESETTLED.current }, diasPendientes: 32.5, valor: 3_900_000 });
    expect(data.periodos.map((p: Json) => [p.contratoId, p.numero, p.diasPendientes, p.contratoLiquidado])).toEqual([
      [RESETTLED.current, 1, 5, false],
      [RESETTLED.current, 2, 15, false],
      [RESETTLED.current, 3, 12.5, false],
    ]);
    // The settled contract kept 5 + 15 days pending when it was settled: paid then, not again.
    expect(data.periodosExcluidos.map((p: Json) => [p.contratoId, p.numero, p.diasPendientes, p.contratoLiquidado])).toEqual([
      [RESETTLED.settled, 1, 5, true],
      [RESETTLED.settled, 2, 15, true],
    ]);
    expect(data.advertencias.filter(notSixDays)).toEqual([
      {
        tipo: 'liquidado',
        mensaje: `Los 20 días pendientes de los períodos del contrato ${RESETTLED.settled} no se incluyen: el contrato está liquidado y se pagaron en su liquidación`,
      },
    ]);

    const periods = (await c.get('/api/vacaciones/periodos', { numeroDocumento: RESETTLED.document, emailResponsable: ADMIN })).body.data;
    expect(periods.periodos.map((p: Json) => [p.contratoId, p.numero, p.contratoLiquidado])).toEqual([
      [RESETTLED.settled, 1, true],
      [RESETTLED.settled, 2, true],
      [RESETTLED.current, 1, false],
      [RESETTLED.current, 2, false],
      [RESETTLED.current, 3, false],
    ]);
    // The settled contract's periods prescribe, but nothing of them is owed: no warning.
    expect(periods.advertencias.filter(notSixDays)).toEqual([]);
    const consult = await c.get('/api/vacaciones/consultdatavacations', { numeroDocumento: RESETTLED.document, emailResponsable: ADMIN });
    expect(periods.totales.diasPendientes).toBe(consult.body.vacacionesDisponibles);

    // The historic record of the settled contract's time stays in the worker's history, marked.
    const list = await c.get('/api/vacaciones', { numeroDocumento: RESETTLED.document, emailResponsable: ADMIN });
    expect(list.body.vacaciones.map((v: Json) => [v.startDate, v.underSettledContract])).toEqual([
      ['2023-03-06', true],
      ['2025-03-03', false],
    ]);
    const old = list.body.vacaciones[0].codigoPila;
    const one = await c.get(`/api/vacaciones/registro/${old}`, { emailResponsable: ADMIN });
    expect(one.body.vacacion).toMatchObject({ codigoPila: old, underSettledContract: true });
  });

  it('refuses a leaving date without a contract in force, and bad input, in the vacation envelope', async () => {
    const none = await settle(LONG.document, '2020-12-31');
    expect(expectVacationError(none, 422, 'No se puede calcular la liquidación de vacaciones')).toEqual([
      'El trabajador no tiene un contrato vigente en la fecha de retiro 2020-12-31',
    ]);
    const bad = await settle(LONG.document, '2026-02-30');
    expect(expectVacationError(bad, 400, 'Datos requeridos faltantes')).toEqual({
      fechaRetiro: 'fechaRetiro debe ser una fecha válida con formato YYYY-MM-DD',
    });
    const missing = await c.get('/vacaciones/liquidacion', { numeroDocumento: LONG.document, emailResponsable: ADMIN });
    expectKeyedErrors(expectVacationError(missing, 400, 'Datos requeridos faltantes'), ['fechaRetiro']);
    const del = await c.call('/api/vacaciones/liquidacion', { method: 'DELETE' });
    expect(del.status).toBe(405);
  });
});
