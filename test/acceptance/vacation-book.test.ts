import { parse } from 'csv-parse/sync';
import ExcelJS from 'exceljs';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { BOOK_COLUMNS } from '../../src/app/book-formats.ts';
import * as R from '../../src/http/response-schemas.ts';
import {
  ADMIN,
  EMPLOYEE,
  W,
  addVacation,
  call,
  client,
  expectKeyedErrors,
  expectVacationError,
  vacationForm,
  type Client,
  type Json,
} from '../support/http.ts';
import { LIMITED, fortnightSheets, lawData } from '../support/law-data.ts';
import { importThroughCli } from '../support/reliability-server.ts';
import { TODAY, loadFixture, startTestServer, type TestServer } from '../support/server.ts';

/** A worker whose name needs quoting in a CSV: a comma and double quotes. */
const QUOTED = {
  workerId: 1014,
  document: '1020307098',
  contractId: 10014,
  nombres: 'Ana "La Flaca", María',
  apellidos: 'Ruiz, Peña',
} as const;

/** A worker whose names a spreadsheet would run as formulas; no contract, asked for by document. */
const FORMULA = { workerId: 1015, document: '1020307099', nombres: "=cmd|' /C calc'!A0", apellidos: '+SUM(1,2)' } as const;

function bookData() {
  const data: Json = lawData();
  data.asociados.push({
    id: QUOTED.workerId,
    tipoDocumento: 'CC',
    numeroDocumento: QUOTED.document,
    nombres: QUOTED.nombres,
    apellidos: QUOTED.apellidos,
  });
  data.asociados.push({
    id: FORMULA.workerId,
    tipoDocumento: 'CC',
    numeroDocumento: FORMULA.document,
    nombres: FORMULA.nombres,
    apellidos: FORMULA.apellidos,
  });
  data.contratos.push({
    id: QUOTED.contractId,
    asociadoId: QUOTED.workerId,
    contratoEmpresaId: 10,
    subgerenciaId: 'SG-TEC',
    fechaInicio: '2025-01-01',
    fechaFin: '2027-12-31',
    liquidado: false,
    esAdicional: false,
    salarioBase: 2_000_000,
    nivelRiesgo: 1,
  });
  data.nomina.push(...fortnightSheets(QUOTED.workerId, QUOTED.contractId, '2025-01-01', '2026-10-31', 2_000_000));
  return data;
}

let srv: TestServer;
let c: Client;
/** Records booked before the register is read: one approved, one compensated, one pending. */
const booked: Record<string, string> = {};

beforeAll(async () => {
  srv = await startTestServer({ beforeStart: async (env) => void (await importThroughCli(env, bookData())) });
  c = client(srv.url, srv.keys.acceptance!);
  booked.approved = (await addVacation(c, vacationForm(W.maria, '2026-12-01', 6))).codigo_pila;
  const approve = await c.post('/api/vacaciones/approve', { codigoPila: booked.approved, emailUserResponsable: ADMIN });
  expect(approve.status, approve.text).toBe(200);
  booked.money = (await addVacation(c, vacationForm(LIMITED.document, '2026-02-02', 7, { vacCompensado: '1' }))).codigo_pila;
  booked.pending = (await addVacation(c, vacationForm(QUOTED.document, '2026-12-14', 6))).codigo_pila;
});
afterAll(async () => {
  await srv?.stop();
});

const book = (query: Record<string, string> = {}) => c.get('/api/vacaciones/libro', { emailResponsable: ADMIN, ...query });
const periodsOf = async (doc: string) =>
  (await c.get('/api/vacaciones/periodos', { numeroDocumento: doc, emailResponsable: ADMIN })).body.data;
const vacationsOf = async (doc: string) =>
  (await c.get('/api/vacaciones', { numeroDocumento: doc, emailResponsable: ADMIN })).body.vacaciones as Json[];

/** Every worker of the fixture and the law data holding a contract of that subgerencia. */
function workersOf(subgerencia: string): number[] {
  const contracts = [...loadFixture().contratos, ...bookData().contratos] as { asociadoId: number; subgerenciaId: string }[];
  return [...new Set(contracts.filter((k) => k.subgerenciaId === subgerencia).map((k) => k.asociadoId))].sort((a, b) => a - b);
}

/** What the register must say of a record, from the worker's list of vacations. */
const fromList = (v: Json) => ({
  vacCodigoPila: v.codigoPila,
  vacFechaInicio: v.startDate,
  vacFechaFinal: v.endDate,
  vacDiasVacaciones: v.businessDays,
  vacDiasCalendario: v.calendarDays,
  vacValorTotal: v.totalValue,
  vacCompensado: v.compensated ? '1' : '0',
  aprobada: v.approved,
});

describe('GET /api/vacaciones/libro as JSON', () => {
  it("gives every worker's hire date, periods and vacations as the periods endpoint and the worker's list give them", async () => {
    const r = await book();
    expect(r.status, r.text).toBe(200);
    expect(r.headers.get('content-type')).toMatch(/^application\/json/);
    expect(R.bookOk.safeParse(r.body).error).toBeUndefined();
    const data = r.body.data;
    expect(data).toMatchObject({
      fechaCorte: TODAY,
      fechaDesde: null,
      fechaHasta: null,
      alcance: { tipo: 'empresa', subgerenciaId: null, numeroDocumento: null },
    });
    expect(data.totalTrabajadores).toBe(data.trabajadores.length);
    const ids = data.trabajadores.map((w: Json) => w.asociadoId);
    expect(ids).toEqual([...ids].sort((a: number, b: number) => a - b));
    // Worker 1005 has no contract and no vacation: nothing to register.
    expect(ids).not.toContain(1005);
    for (const doc of [W.maria, LIMITED.document, QUOTED.document]) {
      const w = data.trabajadores.find((x: Json) => x.numeroDocumento === doc);
      const periods = await periodsOf(doc);
      expect(w.periodos).toEqual(periods.periodos);
      expect(w.totales).toEqual(periods.totales);
      expect(w.vacaciones.map((v: Json) => pick(v, Object.keys(fromList({}))))).toEqual((await vacationsOf(doc)).map(fromList));
    }
    const maria = data.trabajadores.find((x: Json) => x.numeroDocumento === W.maria);
    expect(maria).toMatchObject({ asociadoId: 1001, fechaIngreso: '2024-02-01', nombres: 'María Fernanda' });
    expect(maria.vacaciones.find((v: Json) => v.vacCodigoPila === booked.approved)).toMatchObject({
      estado: 'aprobada',
      modalidad: 'disfrutadas',
      vacSalario: 2_847_000,
      vacValorTotal: 569_400,
      fechaInterrupcion: null,
    });
    const limited = data.trabajadores.find((x: Json) => x.numeroDocumento === LIMITED.document);
    expect(limited.vacaciones).toEqual([
      expect.objectContaining({
        vacCodigoPila: booked.money,
        modalidad: 'compensadas en dinero',
        estado: 'registrada',
        vacCompensado: '1',
      }),
    ]);
  });

  it('narrows to one subgerencia or one worker', async () => {
    const sg = (await book({ subgerenciaId: 'SG-TEC' })).body.data;
    expect(sg.alcance).toEqual({ tipo: 'subgerencia', subgerenciaId: 'SG-TEC', numeroDocumento: null });
    // 1008 (no risk level) and 1009 (no company contract) hold contracts there but earn nothing
    // and have no vacation, so only those with periods or vacations are listed.
    const listed = sg.trabajadores.map((w: Json) => w.asociadoId);
    expect(listed.every((id: number) => workersOf('SG-TEC').includes(id))).toBe(true);
    expect(listed).toEqual(expect.arrayContaining([LIMITED.workerId, QUOTED.workerId]));
    const one = (await book({ numeroDocumento: W.catalina })).body.data;
    expect(one.alcance).toEqual({ tipo: 'trabajador', subgerenciaId: null, numeroDocumento: W.catalina });
    // Asked for by document, the worker is there even with nothing to register.
    expect(one.trabajadores).toEqual([expect.objectContaining({ asociadoId: 1005, fechaIngreso: null, periodos: [], vacaciones: [] })]);
  });

  it('keeps to the periods and vacations that share a day with the range, and to what stood at the end of the cut-off day', async () => {
    const r = await book({ numeroDocumento: W.maria, fechaDesde: '2026-11-01', fechaHasta: '2026-12-31' });
    const w = r.body.data.trabajadores[0];
    expect(w.periodos.map((p: Json) => p.numero)).toEqual([3]);
    expect(w.vacaciones.map((v: Json) => v.vacCodigoPila)).toEqual([booked.approved]);
    const early = (await book({ numeroDocumento: W.maria, fechaHasta: '2025-12-31' })).body.data.trabajadores[0];
    expect(early.periodos.map((p: Json) => p.numero)).toEqual([1, 2]);
    expect(early.vacaciones.every((v: Json) => v.vacFechaInicio <= '2025-12-31')).toBe(true);
    // Everything here was written on the service's today: the day before, none of it stood.
    const before = (await book({ numeroDocumento: W.maria, fechaCorte: '2026-11-20' })).body.data;
    expect(before.fechaCorte).toBe('2026-11-20');
    expect(before.trabajadores[0].vacaciones).toEqual([]);
    expect(before.trabajadores[0].totales.diasPendientes).toBe(before.trabajadores[0].totales.diasCausados);
  });
});

function pick(o: Json, keys: string[]) {
  return Object.fromEntries(keys.map((k) => [k, o[k]]));
}

/** The CSV or XLSX table as objects keyed by the header. */
const keyed = (rows: unknown[][]) =>
  rows.slice(1).map((row) => Object.fromEntries((rows[0] as string[]).map((h, i) => [h, row[i] ?? null])));

/** The lines of a worker in the JSON register, as the table writes them. */
async function expectTableMatches(table: Record<string, unknown>[], num: (v: unknown) => number | null) {
  const json = (await book()).body.data.trabajadores as Json[];
  expect(table.filter((l) => l.registro === 'trabajador').map((l) => num(l.asociadoId))).toEqual(json.map((w) => w.asociadoId));
  for (const w of json) {
    const mine = table.filter((l) => num(l.asociadoId) === w.asociadoId);
    expect(mine.every((l) => l.numeroDocumento === w.numeroDocumento && l.nombres === w.nombres && l.apellidos === w.apellidos)).toBe(true);
    const head = mine.find((l) => l.registro === 'trabajador')!;
    expect([head.fechaIngreso || null, num(head.diasCausados), num(head.diasPendientes)]).toEqual([
      w.fechaIngreso,
      w.totales.diasCausados,
      w.totales.diasPendientes,
    ]);
    expect(
      mine
        .filter((l) => l.registro === 'periodo')
        .map((l) => [
          num(l.contratoId),
          num(l.periodo),
          l.periodoDesde,
          l.causadoEl || null,
          num(l.diasCausados),
          num(l.diasDisfrutados),
          num(l.diasCompensados),
          num(l.diasPendientes),
          l.prescribeEl || null,
        ]),
    ).toEqual(
      w.periodos.map((p: Json) => [
        p.contratoId,
        p.numero,
        p.desde,
        p.causadoEl,
        p.diasCausados,
        p.diasDisfrutados,
        p.diasCompensados,
        p.diasPendientes,
        p.prescribeEl,
      ]),
    );
    expect(
      mine
        .filter((l) => l.registro === 'vacaciones')
        .map((l) => [
          l.vacCodigoPila,
          l.vacFechaInicio,
          l.vacFechaFinal,
          num(l.vacDiasVacaciones),
          num(l.vacDiasCalendario),
          num(l.vacValorTotal),
          l.estado,
          l.modalidad,
        ]),
    ).toEqual(
      w.vacaciones.map((v: Json) => [
        v.vacCodigoPila,
        v.vacFechaInicio,
        v.vacFechaFinal,
        v.vacDiasVacaciones,
        v.vacDiasCalendario,
        v.vacValorTotal,
        v.estado,
        v.modalidad,
      ]),
    );
  }
}

describe('GET /api/vacaciones/libro as CSV and XLSX', () => {
  it('writes one CSV line per worker, period and vacation, quoted where needed, with the figures of the JSON register', async () => {
    const r = await book({ formato: 'csv' });
    expect(r.status, r.text).toBe(200);
    expect(r.headers.get('content-type')).toMatch(/^text\/csv/);
    expect(r.headers.get('content-disposition')).toBe(`attachment; filename="libro-vacaciones-${TODAY}.csv"`);
    expect(r.text).toContain('"Ana ""La Flaca"", María"');
    const rows = parse(r.text, { bom: true, relax_column_count: false }) as string[][];
    expect(rows[0]).toEqual([...BOOK_COLUMNS]);
    const num = (v: unknown) => (v === '' || v === null || v === undefined ? null : Number(v));
    await expectTableMatches(keyed(rows), num);
    expect(keyed(rows).find((l) => l.numeroDocumento === QUOTED.document)).toMatchObject({
      nombres: QUOTED.nombres,
      apellidos: QUOTED.apellidos,
    });
  });

  it('keeps text a spreadsheet would run as a formula as text in the CSV', async () => {
    const r = await book({ formato: 'csv', numeroDocumento: FORMULA.document });
    expect(r.status, r.text).toBe(200);
    const rows = keyed(parse(r.text, { bom: true }) as string[][]);
    expect(rows.length).toBeGreaterThan(0);
    for (const row of rows) {
      expect(row).toMatchObject({ nombres: `'${FORMULA.nombres}`, apellidos: `'${FORMULA.apellidos}` });
      for (const cell of Object.values(row)) expect(String(cell)).not.toMatch(/^[=+\-@\t\r]/);
    }
  });

  it('writes the same table as an XLSX workbook a spreadsheet library reads back', async () => {
    const res = await fetch(`${srv.url}/api/vacaciones/libro?${new URLSearchParams({ emailResponsable: ADMIN, formato: 'xlsx' })}`, {
      headers: { 'x-api-key': `Bearer ${srv.keys.acceptance}` },
    });
    expect(res.status).toBe(200);
    expect(res.headers.get('content-type')).toBe('application/vnd.openxmlformats-officedocument.spreadsheetml.sheet');
    const wb = new ExcelJS.Workbook();
    await wb.xlsx.load(Buffer.from(await res.arrayBuffer()) as never);
    const sheet = wb.getWorksheet('Libro de vacaciones')!;
    const rows: unknown[][] = [];
    sheet.eachRow({ includeEmpty: false }, (row) => rows.push((row.values as unknown[]).slice(1)));
    expect(rows[0]).toEqual([...BOOK_COLUMNS]);
    const num = (v: unknown) => (v === null || v === undefined || v === '' ? null : Number(v));
    await expectTableMatches(keyed(rows), num);
    const csvLines = parse((await book({ formato: 'csv' })).text, { bom: true }).length;
    expect(rows.length).toBe(csvLines);
  });
});

describe('GET /api/vacaciones/libro refusals', () => {
  it('refuses bad input in the vacation envelope and changes nothing', async () => {
    expectKeyedErrors(expectVacationError(await book({ formato: 'pdf' }), 400, 'Datos requeridos faltantes'), ['formato']);
    expectKeyedErrors(expectVacationError(await book({ fechaCorte: '2026-02-30' }), 400, 'Datos requeridos faltantes'), ['fechaCorte']);
    const range = await book({ fechaDesde: '2026-12-01', fechaHasta: '2026-11-01' });
    expect(expectVacationError(range, 400, 'Datos requeridos faltantes')).toEqual({
      fechaHasta: 'fechaHasta (2026-11-01) es anterior a fechaDesde (2026-12-01)',
    });
    expectKeyedErrors(
      expectVacationError(await book({ numeroDocumento: W.maria, subgerenciaId: 'SG-OPS' }), 400, 'Datos requeridos faltantes'),
      ['subgerenciaId'],
    );
    expectKeyedErrors(expectVacationError(await c.get('/api/vacaciones/libro', {}), 400, 'Datos requeridos faltantes'), [
      'emailResponsable',
    ]);
    expectKeyedErrors(expectVacationError(await book({ numeroDocumento: '999999999' }), 404, 'Trabajador no encontrado.'), [
      'numeroDocumento',
    ]);
    expectKeyedErrors(expectVacationError(await book({ subgerenciaId: 'SG-NADA' }), 404, 'Subgerencia no encontrada'), ['subgerenciaId']);
    expectKeyedErrors(expectVacationError(await book({ emailResponsable: EMPLOYEE }), 404, 'Usuario responsable no encontrado'), [
      'emailResponsable',
    ]);
    const post = await c.post('/vacaciones/libro', { emailResponsable: ADMIN });
    expect(post.body).toEqual({ success: false, statusCode: 405, message: 'Método no permitido. Use GET' });
    expect((await call(srv.url, '/api/vacaciones/libro', { query: { emailResponsable: ADMIN } })).status).toBe(401);
    expect((await vacationsOf(W.maria)).map((v) => v.codigoPila)).toContain(booked.approved);
  });
});
