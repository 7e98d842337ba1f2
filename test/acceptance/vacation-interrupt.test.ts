import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import * as R from '../../src/http/response-schemas.ts';
import {
  ADMIN,
  EMPLOYEE,
  W,
  addVacation,
  client,
  expectKeyedErrors,
  expectVacationError,
  vacationForm,
  type Client,
  type Json,
} from '../support/http.ts';
import { ONE_AWAY, oneAwayData } from '../support/law-corners.ts';
import { importThroughCli } from '../support/reliability-server.ts';
import { TODAY, loadFixture, startTestServer, type TestServer } from '../support/server.ts';

let srv: TestServer;
let c: Client;

beforeAll(async () => {
  // Without a limit of people at once in the subgerencia, several workers can be away on today.
  const company = loadFixture().contratosEmpresa.find((k: Json) => k.id === 10);
  company.vacaciones.numeroPersonasVacaciones = null;
  const oneAway = oneAwayData();
  srv = await startTestServer({
    beforeStart: async (env) =>
      void (await importThroughCli(env, { ...oneAway, contratosEmpresa: [company, ...oneAway.contratosEmpresa] })),
  });
  c = client(srv.url, srv.keys.acceptance!);
});
afterAll(async () => {
  await srv?.stop();
});

const approve = async (code: string) => {
  const r = await c.post('/api/vacaciones/approve', { codigoPila: code, emailUserResponsable: ADMIN });
  expect(r.status, r.text).toBe(200);
};
/** An approved vacation begun before today (2026-11-21) and ending after it, by default Juan's (30 days a year). */
async function inCourse(start = '2026-11-17', days = 15, doc: string = W.juan) {
  const added = await addVacation(c, vacationForm(doc, start, days));
  await approve(added.codigo_pila);
  return added;
}
const interrupt = (form: Record<string, string>, headers: Record<string, string> = {}) =>
  c.post('/api/vacaciones/interrupt', { emailUserResponsable: ADMIN, ...form }, { headers });
/** The reasons of an interruption refused with 422. */
const refused = async (form: Record<string, string>) =>
  expectVacationError(await interrupt(form), 422, 'No se pueden interrumpir las vacaciones');
const consultDays = async () =>
  (await c.get('/api/vacaciones/consultdatavacations', { numeroDocumento: W.juan, emailResponsable: ADMIN })).body
    .vacacionesDisponibles as number;
const record = async (code: string) => (await c.get(`/api/vacaciones/registro/${code}`, { emailResponsable: ADMIN })).body.vacacion;

describe('POST /api/vacaciones/interrupt (CST art. 188)', () => {
  it('keeps the days enjoyed before the date, gives the rest back, and recomputes end, value, amortizations, register and periods', async () => {
    const added = await inCourse();
    const code = added.codigo_pila;
    // 17 Nov 2026 to 7 Dec (16 Nov and 8 Dec are holidays): 15 business days.
    expect(added.vacaciones).toMatchObject({ vacFechaFinal: '2026-12-07', vacDiasCalendario: 21 });
    const before = await consultDays();
    const salary = added.vacaciones.vacSalario as number;

    const r = await interrupt({ codigoPila: code, fechaInterrupcion: '2026-11-24', motivo: 'Incapacidad' });
    expect(r.status, r.text).toBe(200);
    expect(R.interruptOk.safeParse(r.body).error).toBeUndefined();
    // Enjoyed 17, 18, 19, 20 and 23 November.
    expect(r.body.data).toMatchObject({
      codigoPila: code,
      fechaInterrupcion: '2026-11-24',
      motivo: 'incapacidad',
      diasDisfrutados: 5,
      diasDevueltos: 10,
      vacaciones: {
        vacFechaInicio: '2026-11-17',
        vacFechaFinal: '2026-11-23',
        vacDiasVacaciones: 5,
        vacDiasCalendario: 7,
        vacValorTotal: Math.round((salary * 5) / 30),
      },
    });

    expect(await consultDays()).toBe(before + 10);
    expect(await record(code)).toMatchObject({
      endDate: '2026-11-23',
      businessDays: 5,
      calendarDays: 7,
      totalValue: Math.round((salary * 5) / 30),
      approved: true,
      interruptedOn: '2026-11-24',
      interruptionReason: 'incapacidad',
      amortizations: [{ periodo: '2026-11', diasHabiles: 5, diasCalendario: 7, valor: Math.round((salary * 5) / 30) }],
    });
    const periods = (await c.get('/api/vacaciones/periodos', { numeroDocumento: W.juan, emailResponsable: ADMIN })).body.data;
    const applied = periods.periodos.flatMap((p: Json) => p.vacaciones).filter((v: Json) => v.codigoPila === code);
    expect(applied.reduce((n: number, v: Json) => n + v.dias, 0)).toBe(5);
    const book = (await c.get('/api/vacaciones/libro', { numeroDocumento: W.juan, emailResponsable: ADMIN })).body.data.trabajadores[0];
    expect(book.vacaciones.find((v: Json) => v.vacCodigoPila === code)).toMatchObject({
      estado: 'interrumpida',
      fechaInterrupcion: '2026-11-24',
      motivoInterrupcion: 'incapacidad',
      vacFechaFinal: '2026-11-23',
      vacDiasVacaciones: 5,
    });
    const trail = (await c.get('/api/vacaciones/auditoria', { codigoPila: code, emailResponsable: ADMIN })).body.auditoria as Json[];
    expect(trail.filter((e) => e.action === 'INTERRUPCION')).toHaveLength(1);

    // The days given back are booked by a record naming the interrupted one, at most the ten left.
    const over = await c.post('/api/vacaciones/add', vacationForm(W.juan, '2027-01-12', 11, { codigoPilaInterrumpido: code }));
    expect(expectVacationError(over, 422, 'No se pueden procesar las vacaciones')).toEqual([
      `Los días solicitados (11) superan los 10 días no disfrutados que quedan de las vacaciones interrumpidas ${code}`,
    ]);
    const rest = await addVacation(c, vacationForm(W.juan, '2027-01-12', 10, { codigoPilaInterrumpido: code }));
    expect(await record(rest.codigo_pila)).toMatchObject({ continues: code, businessDays: 10 });
    // A continuation books days already granted: 4 days, below the minimum of 6, are judged only by what is left.
    const again = await c.post('/api/vacaciones/calculate', vacationForm(W.juan, '2027-01-26', 4, { codigoPilaInterrumpido: code }));
    expect(expectVacationError(again, 422, 'No se pueden procesar las vacaciones')).toEqual([
      `Los días solicitados (4) superan los 0 días no disfrutados que quedan de las vacaciones interrumpidas ${code}`,
    ]);
  });

  it('answers a retry with the same Idempotency-Key as the first time, and interrupts once', async () => {
    const { codigo_pila: code } = await inCourse('2026-11-18', 8, W.camilo);
    const form = { codigoPila: code, fechaInterrupcion: '2026-11-20', motivo: 'necesidad del servicio' };
    const first = await interrupt(form, { 'idempotency-key': `interrupt-${code}` });
    expect(first.status, first.text).toBe(200);
    const retry = await interrupt(form, { 'idempotency-key': `interrupt-${code}` });
    expect({ status: retry.status, body: retry.body }).toEqual({ status: 200, body: first.body });
    const trail = (await c.get('/api/vacaciones/auditoria', { codigoPila: code, emailResponsable: ADMIN })).body.auditoria as Json[];
    expect(trail.filter((e) => e.action === 'INTERRUPCION')).toHaveLength(1);
    const second = await interrupt({ ...form, fechaInterrupcion: '2026-11-19' });
    expect(expectVacationError(second, 422, 'No se pueden interrumpir las vacaciones')).toEqual([
      `Las vacaciones ${code} ya fueron interrumpidas el 2026-11-20`,
    ]);
  });

  it('refuses a vacation not approved, paid in money, not begun or ended, and dates outside it, with 422 and the reasons', async () => {
    const pending = await addVacation(c, vacationForm(W.maria, '2026-11-18', 6));
    expect(await refused({ codigoPila: pending.codigo_pila, fechaInterrupcion: '2026-11-20', motivo: 'licencia' })).toEqual([
      `Las vacaciones ${pending.codigo_pila} no están aprobadas: solo se pueden interrumpir vacaciones aprobadas`,
    ]);
    const money = await addVacation(c, vacationForm(W.maria, '2026-11-19', 3, { vacCompensado: '1' }));
    await approve(money.codigo_pila);
    expect(await refused({ codigoPila: money.codigo_pila, fechaInterrupcion: '2026-11-20', motivo: 'otro' })).toEqual([
      `Las vacaciones ${money.codigo_pila} fueron compensadas en dinero: no hay disfrute que interrumpir`,
    ]);
    const later = await addVacation(c, vacationForm(W.maria, '2026-12-14', 6));
    await approve(later.codigo_pila);
    expect(await refused({ codigoPila: later.codigo_pila, fechaInterrupcion: '2026-12-16', motivo: 'calamidad' })).toEqual([
      `Las vacaciones ${later.codigo_pila} aún no han comenzado (inician el 2026-12-14 y hoy es ${TODAY}): solo se interrumpen vacaciones en curso`,
    ]);
    const done = await addVacation(c, vacationForm(W.maria, '2026-11-03', 6));
    await approve(done.codigo_pila);
    expect(await refused({ codigoPila: done.codigo_pila, fechaInterrupcion: '2026-11-05', motivo: 'otro' })).toEqual([
      `Las vacaciones ${done.codigo_pila} terminaron el 2026-11-10 (hoy es ${TODAY}): solo se interrumpen vacaciones en curso`,
    ]);
    const open = await inCourse('2026-11-19', 6, W.luisa);
    const outside = await interrupt({ codigoPila: open.codigo_pila, fechaInterrupcion: '2026-11-22', motivo: 'otro' });
    expect(expectVacationError(outside, 422, 'No se pueden interrumpir las vacaciones')).toEqual([
      `La fecha de interrupción 2026-11-22 no es un día hábil para el trabajador`,
    ]);
    expect(await record(open.codigo_pila)).toMatchObject({ interruptedOn: null, businessDays: 6 });
  });

  it('interrupts a vacation on its first day once it has begun: nothing enjoyed, nothing paid, every day and place given back', async () => {
    const { third, fourth } = ONE_AWAY;
    // Friday 20 November to Friday 27: six business days, begun yesterday.
    const added = await inCourse('2026-11-20', 6, third.document);
    const code = added.codigo_pila;
    const full = await c.post('/api/vacaciones/calculate', vacationForm(fourth.document, '2026-11-23', 6));
    expect(expectVacationError(full, 422, 'No se pueden procesar las vacaciones')).toEqual([
      `Se alcanzó el máximo de 1 personas de vacaciones al mismo tiempo en la subgerencia ${third.subgerenciaId} el 2026-11-23`,
    ]);
    const balance = async () =>
      (await c.get('/api/vacaciones/consultdatavacations', { numeroDocumento: third.document, emailResponsable: ADMIN })).body
        .vacacionesDisponibles as number;
    const before = await balance();

    const r = await interrupt({ codigoPila: code, fechaInterrupcion: '2026-11-20', motivo: 'incapacidad' });
    expect(r.status, r.text).toBe(200);
    expect(R.interruptOk.safeParse(r.body).error).toBeUndefined();
    expect(r.body.data).toMatchObject({
      fechaInterrupcion: '2026-11-20',
      diasDisfrutados: 0,
      diasDevueltos: 6,
      vacaciones: {
        vacFechaInicio: '2026-11-20',
        vacFechaFinal: '2026-11-19',
        vacDiasVacaciones: 0,
        vacDiasCalendario: 0,
        vacValorTotal: 0,
      },
    });
    expect(await balance()).toBe(before + 6);
    expect(await record(code)).toMatchObject({ businessDays: 0, totalValue: 0, amortizations: [], interruptedOn: '2026-11-20' });
    const periods = (await c.get('/api/vacaciones/periodos', { numeroDocumento: third.document, emailResponsable: ADMIN })).body.data;
    expect(periods.periodos.flatMap((p: Json) => p.vacaciones).filter((v: Json) => v.codigoPila === code)).toEqual([]);
    // The register shows it from its first day on, interrupted with nothing enjoyed.
    const book = await c.get('/api/vacaciones/libro', {
      numeroDocumento: third.document,
      fechaDesde: '2026-11-20',
      emailResponsable: ADMIN,
    });
    expect(R.bookOk.safeParse(book.body).error).toBeUndefined();
    expect(book.body.data.trabajadores[0].vacaciones).toEqual([
      expect.objectContaining({
        vacCodigoPila: code,
        estado: 'interrumpida',
        vacDiasVacaciones: 0,
        vacValorTotal: 0,
        fechaInterrupcion: '2026-11-20',
      }),
    ]);
    // Its place is free: the other worker of the subgerencia books those days.
    await addVacation(c, vacationForm(fourth.document, '2026-11-23', 6));
  });

  it('replays the worker with the vacation interrupted on its first day: nothing kept, every day returned', async (ctx) => {
    if (!srv.postgres) ctx.skip('needs a PostgreSQL server: on PGlite the CLI cannot open the database the server holds');
    const r = await srv.cli(['replay', '--documento', ONE_AWAY.third.document]);
    expect(r.code, r.stderr).toBe(0);
    expect(r.stdout).toMatch(/interrupción .* interrupted on 2026-11-20 \(incapacidad\): 0d kept, 6d returned/);
  });

  it('frees the places of a full subgerencia from the interruption on, so another worker can book them', async () => {
    const { first, second } = ONE_AWAY;
    // Thursday 19 November to Thursday 26: six business days.
    const { codigo_pila: code } = await inCourse('2026-11-19', 6, first.document);
    const refused = await c.post('/api/vacaciones/add', vacationForm(second.document, '2026-11-24', 6));
    expect(expectVacationError(refused, 422, 'No se pueden procesar las vacaciones')).toEqual([
      `Se alcanzó el máximo de 1 personas de vacaciones al mismo tiempo en la subgerencia ${first.subgerenciaId} el 2026-11-24`,
    ]);
    const r = await interrupt({ codigoPila: code, fechaInterrupcion: '2026-11-24', motivo: 'necesidad del servicio' });
    expect(r.status, r.text).toBe(200);
    expect(r.body.data.vacaciones).toMatchObject({ vacFechaFinal: '2026-11-23', vacDiasVacaciones: 3 });
    // The 23rd is still taken by the days enjoyed; from the 24th the place is free.
    const still = await c.post('/api/vacaciones/calculate', vacationForm(second.document, '2026-11-23', 6));
    expect(expectVacationError(still, 422, 'No se pueden procesar las vacaciones')).toEqual([
      `Se alcanzó el máximo de 1 personas de vacaciones al mismo tiempo en la subgerencia ${first.subgerenciaId} el 2026-11-23`,
    ]);
    await addVacation(c, vacationForm(second.document, '2026-11-24', 6));
  });

  it('refuses bad input in the vacation envelope', async () => {
    expectKeyedErrors(expectVacationError(await interrupt({}), 400, 'Datos requeridos faltantes'), [
      'codigoPila',
      'fechaInterrupcion',
      'motivo',
    ]);
    const bad = await interrupt({ codigoPila: 'VAC_1_00000000_00000000', fechaInterrupcion: '2026-11-31', motivo: 'vacaciones' });
    expect(expectVacationError(bad, 400, 'Datos requeridos faltantes')).toEqual({
      fechaInterrupcion: 'fechaInterrupcion debe ser una fecha válida con formato YYYY-MM-DD',
      motivo: 'motivo debe ser incapacidad, licencia, calamidad, necesidad del servicio u otro',
    });
    const unknown = await interrupt({ codigoPila: 'VAC_1_00000000_00000000', fechaInterrupcion: '2026-11-23', motivo: 'otro' });
    expectKeyedErrors(expectVacationError(unknown, 404, 'Registro de vacaciones no encontrado'), ['codigoPila']);
    const notAdmin = await interrupt({
      codigoPila: 'VAC_1_00000000_00000000',
      fechaInterrupcion: '2026-11-23',
      motivo: 'otro',
      emailUserResponsable: EMPLOYEE,
    });
    expectKeyedErrors(expectVacationError(notAdmin, 404, 'Usuario responsable no encontrado'), ['emailUserResponsable']);
    const get = await c.get('/vacaciones/interrupt');
    expect(get.body).toEqual({ success: false, statusCode: 405, message: 'Método no permitido. Use POST' });
  });
});
