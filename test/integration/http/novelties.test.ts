import { parse } from 'csv-parse/sync';
import ExcelJS from 'exceljs';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { loadConfig } from '../../../src/config/config.ts';
import { noveltiesOk } from '../../../src/http/integration-schemas.ts';
import { NOVELTY_COLUMNS } from '../../../src/http/novelty-formats.ts';
import { FIRST_WORKER } from '../../../src/projections/reports/novelties.ts';
import { noveltyPage } from '../../../src/projections/reports/novelty-queries.ts';
import { createLogger } from '../../../src/logger.ts';
import { importReferenceData } from '../../../src/reference/import.ts';
import { createApiKey } from '../../../src/security/api-keys.ts';
import { createService, type Service } from '../../../src/service.ts';
import { freshDb, hasServer, NEEDS_SERVER, type TestDb } from '../../support/db.ts';
import { ADMIN, W, addVacation, client, vacationForm, type Client, type Json } from '../../support/http.ts';
import { fortnightSheets } from '../../support/law-data.ts';
import { bookDecember } from '../../support/month-records.ts';
import { loadFixture } from '../../support/server.ts';

/** A worker whose names a spreadsheet would take for formulas. */
const FORMULA = { workerId: 1020, document: '1020307200', contractId: 10020 } as const;

function data() {
  const d = loadFixture();
  // No limit of people away at once: the workers here may be away together.
  for (const k of d.contratosEmpresa) if (k.vacaciones) k.vacaciones.numeroPersonasVacaciones = null;
  d.asociados.push({
    id: FORMULA.workerId,
    tipoDocumento: 'CC',
    numeroDocumento: FORMULA.document,
    nombres: '=HYPERLINK("http://x.example","y")',
    apellidos: '@SUM(1+1)',
  });
  d.contratos.push({
    id: FORMULA.contractId,
    asociadoId: FORMULA.workerId,
    contratoEmpresaId: 10,
    subgerenciaId: 'SG-TEC',
    fechaInicio: '2024-01-01',
    fechaFin: '2027-12-31',
    liquidado: false,
    esAdicional: false,
    salarioBase: 3_000_000,
    nivelRiesgo: 1,
  });
  d.nomina.push(...fortnightSheets(FORMULA.workerId, FORMULA.contractId, '2024-01-01', '2026-10-31', 3_000_000));
  return d;
}

describe.skipIf(!hasServer())(`GET /api/vacaciones/novedades${hasServer() ? '' : ` (skipped: ${NEEDS_SERVER})`}`, () => {
  let t: TestDb;
  let key: string;
  let service: Service | undefined;
  let c: Client;
  let baseUrl = '';
  const codes: Record<string, string> = {};
  /** Juan's record as it stood on 2026-11-20, before its interruption. */
  let juanBefore: Json;

  async function start(today: string) {
    await service?.close();
    const config = loadConfig({ DATABASE_URL: t.url!, VACACIONES_TODAY: today, LOG_LEVEL: 'silent', PORT: '0' });
    service = await createService(config, createLogger(config));
    baseUrl = await service.app.listen({ port: 0, host: '127.0.0.1' });
    c = client(baseUrl, key);
  }
  const approve = async (code: string) => {
    const r = await c.post('/api/vacaciones/approve', { codigoPila: code, emailUserResponsable: ADMIN });
    expect(r.status, r.text).toBe(200);
  };
  const listOf = async (doc: string, extra: Record<string, string> = {}) =>
    (await c.get('/api/vacaciones', { numeroDocumento: doc, emailResponsable: ADMIN, ...extra })).body.vacaciones as Json[];
  const novelties = (query: Record<string, string>) => c.get('/api/vacaciones/novedades', { emailResponsable: ADMIN, ...query });

  beforeAll(async () => {
    t = await freshDb();
    await importReferenceData(t.db, data());
    key = (await createApiKey(t.db, { name: 'nomina' })).key;
    // On 2026-11-20: Juan's vacation from 17 November, approved, reaching into December.
    await start('2026-11-20');
    codes.juan = (await addVacation(c, vacationForm(W.juan, '2026-11-17', 15))).codigo_pila;
    await approve(codes.juan);
    juanBefore = (await listOf(W.juan))[0];
    // On 2026-11-21: it is interrupted, and the month's other records come.
    await start('2026-11-21');
    const cut = await c.post('/api/vacaciones/interrupt', {
      codigoPila: codes.juan,
      fechaInterrupcion: '2026-11-24',
      motivo: 'incapacidad',
      emailUserResponsable: ADMIN,
    });
    expect(cut.status, cut.text).toBe(200);
    Object.assign(codes, await bookDecember(c));
    codes.formula = (await addVacation(c, vacationForm(FORMULA.document, '2026-12-24', 8))).codigo_pila;
  }, 60_000);
  afterAll(async () => {
    await service?.close().catch(() => {});
    await t?.drop();
  });

  it("gives one line per live record touching the month, each its amortization's part of the month, adding up to the totals", async () => {
    const r = await novelties({ periodo: '2026-12' });
    expect(r.status, r.text).toBe(200);
    expect(noveltiesOk.safeParse(r.body).error).toBeUndefined();
    const d = r.body.data;
    expect(d).toMatchObject({ periodo: '2026-12', alCorte: null, alcance: { subgerenciaId: null, numeroDocumento: null } });
    const lines = d.trabajadores.flatMap((w: Json) => w.novedades.map((n: Json) => ({ ...n, doc: w.numeroDocumento })));
    // Deleted and replaced records are absent; Juan's interrupted vacation no longer reaches December.
    expect(lines.map((l: Json) => l.codigoPila).sort()).toEqual([codes.maria, codes.formula, codes.money, codes.edited].sort());
    for (const l of lines) {
      const record = (await listOf(l.doc)).find((v) => v.codigoPila === l.codigoPila);
      const part = record.amortizations.find((a: Json) => a.periodo === '2026-12');
      expect([l.diasHabiles, l.diasCalendario, l.valor]).toEqual([part.diasHabiles, part.diasCalendario, part.valor]);
    }
    const formula = lines.find((l: Json) => l.codigoPila === codes.formula);
    // Clipped to the month: the rest of the vacation is January's.
    expect(formula).toMatchObject({ fechaDesde: '2026-12-24', fechaHasta: '2026-12-31', estado: 'registrada', aprobada: false });
    expect(formula.novedadPila).toEqual({ tipo: 'VAC-LR', inicio: '2026-12-24', fin: '2026-12-31' });
    expect(formula.vacFechaFinal > '2026-12-31').toBe(true);
    expect(lines.find((l: Json) => l.codigoPila === codes.money)).toMatchObject({ modalidad: 'compensadas en dinero', novedadPila: null });
    expect(lines.find((l: Json) => l.codigoPila === codes.edited)).toMatchObject({ reemplazaA: codes.old });
    expect(lines.find((l: Json) => l.codigoPila === codes.maria)).toMatchObject({ estado: 'aprobada', aprobada: true });
    const add = (xs: Json[], k: string) => xs.reduce((n, x) => n + x[k], 0);
    for (const w of d.trabajadores) {
      expect(w.totales).toEqual({
        novedades: w.novedades.length,
        diasHabiles: add(w.novedades, 'diasHabiles'),
        diasCalendario: add(w.novedades, 'diasCalendario'),
        valor: add(w.novedades, 'valor'),
      });
    }
    expect(d.totales).toEqual({
      trabajadores: d.trabajadores.length,
      novedades: lines.length,
      diasHabiles: add(lines, 'diasHabiles'),
      diasCalendario: add(lines, 'diasCalendario'),
      valor: add(lines, 'valor'),
    });
  });

  it('counts only the days enjoyed of an interrupted record, and shows what was known at a cut-off', async () => {
    const nov = (await novelties({ periodo: '2026-11', numeroDocumento: W.juan })).body.data;
    const juanNow = (await listOf(W.juan))[0];
    expect(nov.trabajadores[0].novedades).toEqual([
      expect.objectContaining({
        codigoPila: codes.juan,
        estado: 'interrumpida',
        fechaInterrupcion: '2026-11-24',
        diasHabiles: 5,
        fechaHasta: '2026-11-23',
        valor: juanNow.amortizations.find((a: Json) => a.periodo === '2026-11').valor,
      }),
    ]);
    // On 2026-11-20 the vacation ran into December, with the plan it had then; nothing else was recorded yet.
    for (const alCorte of ['2026-11-20', '2026-11-20T23:30:00-05:00']) {
      const then = (await novelties({ periodo: '2026-12', alCorte })).body.data;
      expect(then.alCorte).toBe('2026-11-20');
      const before = juanBefore.amortizations.find((a: Json) => a.periodo === '2026-12');
      expect(then.trabajadores.map((w: Json) => w.novedades)).toEqual([
        [expect.objectContaining({ codigoPila: codes.juan, estado: 'aprobada', diasHabiles: before.diasHabiles, valor: before.valor })],
      ]);
      expect(then.totales).toMatchObject({ trabajadores: 1, novedades: 1, valor: before.valor });
    }
  });

  it('pages by cursor to the same lines, and refuses a cursor it did not give for that month', async () => {
    const whole = (await novelties({ periodo: '2026-12' })).body.data;
    const paged: Json[] = [];
    let desde: string | undefined;
    for (let i = 0; i < 10; i++) {
      const r = await novelties({ periodo: '2026-12', limite: '1', ...(desde ? { desde } : {}) });
      expect(r.status, r.text).toBe(200);
      // Every page holds a worker: the last one says so by its null cursor, not by an empty page after it.
      expect(r.body.data.trabajadores).toHaveLength(1);
      paged.push(...r.body.data.trabajadores);
      expect(r.body.data.totales).toEqual(whole.totales);
      desde = r.body.data.siguiente ?? undefined;
      if (!desde) break;
    }
    expect(paged).toEqual(whole.trabajadores);
    const next = (await novelties({ periodo: '2026-12', limite: '1' })).body.data.siguiente;
    for (const [query, field] of [
      [{ periodo: '2026-11', desde: next }, 'desde'],
      [{ periodo: '2026-12', desde: 'no-es-un-cursor' }, 'desde'],
      [{ periodo: '2026-13' }, 'periodo'],
      [{ periodo: '2026-12', alCorte: 'ayer' }, 'alCorte'],
    ] as const) {
      const r = await novelties(query);
      expect(r.status, r.text).toBe(400);
      expect(Object.keys(r.body.errors)).toEqual([field]);
    }
  });

  it('finds the same lines walking the register one worker at a time as in one walk, now and at a cut-off', async () => {
    for (const f of [
      { month: '2026-12', asOf: null },
      { month: '2026-11', asOf: '2026-11-20' },
    ]) {
      const whole = await noveltyPage(t.db, f, FIRST_WORKER, 100);
      expect(whole.length).toBeGreaterThan(0);
      // Ranges of one worker, most of them without a novelty in the month: the walk goes on past them.
      expect(await noveltyPage(t.db, f, FIRST_WORKER, 100, 1)).toEqual(whole);
      const workers = [...new Set(whole.map((r) => r.record.workerId))];
      const firstTwo = await noveltyPage(t.db, f, FIRST_WORKER, 2, 1);
      expect(firstTwo).toEqual(whole.filter((r) => workers.slice(0, 2).includes(r.record.workerId)));
    }
  });

  it('writes the month as CSV, formula-safe, and as XLSX, with the same lines and totals as JSON', async () => {
    const json = (await novelties({ periodo: '2026-12' })).body.data;
    const csv = await novelties({ periodo: '2026-12', formato: 'csv' });
    expect(csv.status).toBe(200);
    expect(csv.headers.get('content-type')).toMatch(/^text\/csv/);
    const rows = parse(csv.text.replace(/^\uFEFF/, ''), { columns: true }) as Record<string, string>[];
    expect(Object.keys(rows[0]!)).toEqual([...NOVELTY_COLUMNS]);
    const lines = rows.filter((r) => r.registro === 'novedad');
    expect(lines.map((r) => [r.codigoPila, Number(r.valor)])).toEqual(
      json.trabajadores.flatMap((w: Json) => w.novedades.map((n: Json) => [n.codigoPila, n.valor])),
    );
    const formula = rows.filter((r) => r.numeroDocumento === FORMULA.document);
    expect(formula.map((r) => [r.nombres, r.apellidos])).toEqual(formula.map(() => ['\'=HYPERLINK("http://x.example","y")', "'@SUM(1+1)"]));
    expect(rows.filter((r) => r.registro === 'total trabajador')).toHaveLength(json.trabajadores.length);
    const total = rows.at(-1)!;
    expect([total.registro, Number(total.valor), Number(total.diasHabiles)]).toEqual([
      'total',
      json.totales.valor,
      json.totales.diasHabiles,
    ]);

    const xlsx = await fetch(
      `${baseUrl}/api/vacaciones/novedades?${new URLSearchParams({ emailResponsable: ADMIN, periodo: '2026-12', formato: 'xlsx' })}`,
      {
        headers: { 'x-api-key': `Bearer ${key}` },
      },
    );
    expect(xlsx.status).toBe(200);
    const book = new ExcelJS.Workbook();
    await book.xlsx.load(Buffer.from(await xlsx.arrayBuffer()) as never);
    const sheet = book.worksheets[0]!;
    expect(sheet.rowCount).toBe(rows.length + 1);
    expect(sheet.getRow(sheet.rowCount).getCell(NOVELTY_COLUMNS.indexOf('valor') + 1).value).toBe(json.totales.valor);
  });

  it('gives every page the totals of the month as they stand: a record added since counts at once', async () => {
    const before = (await novelties({ periodo: '2026-12' })).body.data.totales;
    expect((await novelties({ periodo: '2026-12', limite: '1' })).body.data.totales).toEqual(before);
    await addVacation(c, vacationForm(FORMULA.document, '2026-12-07', 6));
    const after = (await novelties({ periodo: '2026-12' })).body.data.totales;
    expect(after.novedades).toBe(before.novedades + 1);
    expect(after.diasHabiles).toBe(before.diasHabiles + 6);
    expect((await novelties({ periodo: '2026-12', limite: '1' })).body.data.totales).toEqual(after);
  });
});
