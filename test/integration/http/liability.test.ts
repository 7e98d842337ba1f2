import { parse } from 'csv-parse/sync';
import ExcelJS from 'exceljs';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { loadConfig } from '../../../src/config/config.ts';
import { liabilityOk, liabilityMovementOk } from '../../../src/http/liability-schemas.ts';
import { createLogger } from '../../../src/logger.ts';
import { importReferenceData } from '../../../src/reference/import.ts';
import { createApiKey } from '../../../src/security/api-keys.ts';
import { createService, type Service } from '../../../src/service.ts';
import { freshDb, hasServer, NEEDS_SERVER, type TestDb } from '../../support/db.ts';
import { ADMIN, W, addVacation, client, vacationForm, type Client, type Json } from '../../support/http.ts';
import { bookDecember } from '../../support/month-records.ts';
import { loadFixture } from '../../support/server.ts';

const TODAY = '2026-12-02';

/** Pesos of `days` (two decimals) at a monthly salary: days × salary / 30, half up. */
const pesos = (days: number, salary: number) => {
  const hundredths = Math.round(Math.abs(days) * 100);
  const v = Math.floor((hundredths * salary * 2 + 3000) / 6000);
  return days < 0 ? -v : v;
};

const sum = (xs: Json[], k: string) => xs.reduce((s, x) => s + x[k], 0);

describe.skipIf(!hasServer())(`GET /api/vacaciones/pasivo${hasServer() ? '' : ` (skipped: ${NEEDS_SERVER})`}`, () => {
  let t: TestDb;
  let key: string;
  let service: Service | undefined;
  let c: Client;
  let base: string;
  const codes: Record<string, string> = {};

  async function start(today: string) {
    await service?.close();
    const config = loadConfig({ DATABASE_URL: t.url!, VACACIONES_TODAY: today, LOG_LEVEL: 'silent', PORT: '0' });
    service = await createService(config, createLogger(config));
    base = await service.app.listen({ port: 0, host: '127.0.0.1' });
    c = client(base, key);
  }
  const liability = (query: Record<string, string>) => c.get('/api/vacaciones/pasivo', { emailResponsable: ADMIN, ...query });
  const movement = (query: Record<string, string>) => c.get('/api/vacaciones/pasivo/movimiento', { emailResponsable: ADMIN, ...query });

  /** Every worker of the liability, following the cursor, and the first page's totals. */
  async function allPages(get: typeof liability, query: Record<string, string>) {
    const workers: Json[] = [];
    let totals: Json = null;
    let desde: string | undefined;
    for (let pages = 0; ; pages++) {
      const r = await get({ ...query, limite: '3', ...(desde ? { desde } : {}) });
      expect(r.status, r.text).toBe(200);
      if (pages === 0) totals = r.body.data.totales;
      else expect(r.body.data.totales).toBeNull();
      workers.push(...r.body.data.trabajadores);
      desde = r.body.data.siguiente ?? undefined;
      if (!desde) return { workers, totals };
      expect(pages).toBeLessThan(50);
    }
  }

  beforeAll(async () => {
    t = await freshDb();
    const d = loadFixture();
    for (const k of d.contratosEmpresa) if (k.vacaciones) k.vacaciones.numeroPersonasVacaciones = null;
    await importReferenceData(t.db, d);
    key = (await createApiKey(t.db, { name: 'contabilidad' })).key;
    await start('2026-11-20');
    // Juan from 17 November, 15 business days: on the 20th four have passed.
    codes.juan = (await addVacation(c, vacationForm(W.juan, '2026-11-17', 15))).codigo_pila;
    await start(TODAY);
    Object.assign(codes, await bookDecember(c));
  }, 60_000);
  afterAll(async () => {
    await service?.close().catch(() => {});
    await t?.drop();
  });

  it('values each worker to the peso and adds the totals up from the workers, page by page', async () => {
    const one = await liability({ alCorte: '2026-11-30', limite: '5000' });
    expect(one.status, one.text).toBe(200);
    expect(liabilityOk.safeParse(one.body).error).toBeUndefined();
    const all = one.body.data.trabajadores as Json[];
    expect(all.length).toBeGreaterThan(3);
    const paged = await allPages(liability, { alCorte: '2026-11-30' });
    expect(paged.workers).toEqual(all);
    expect(paged.totals).toEqual(one.body.data.totales);
    for (const w of all) {
      expect(w.salarioDiario).toBeCloseTo(w.salarioMensual / 30, 2);
      const signed = pesos(w.diasPendientes, w.salarioMensual);
      expect(w.valor).toBe(Math.max(signed, 0));
      expect(w.anticipado).toBe(Math.max(-signed, 0));
    }
    const totals = one.body.data.totales;
    expect(totals.trabajadores).toBe(all.length);
    expect(totals.valor).toBe(sum(all, 'valor'));
    expect(totals.anticipado).toBe(sum(all, 'anticipado'));
    for (const s of totals.porSubgerencia) {
      const of = all.filter((w) => w.subgerenciaId === s.subgerenciaId);
      expect([s.trabajadores, s.valor]).toEqual([of.length, sum(of, 'valor')]);
    }
    expect(sum(totals.porContratoEmpresa, 'valor')).toBe(totals.valor);
    // The settled worker and the one without contracts owe nothing.
    expect(all.map((w) => w.numeroDocumento)).not.toContain(W.andres);
    expect(all.map((w) => w.numeroDocumento)).not.toContain(W.catalina);
  });

  it('counts a vacation only as its days pass, where the balance takes it all at once', async () => {
    const on = async (date: string) => (await liability({ alCorte: date, numeroDocumento: W.juan })).body.data.trabajadores[0];
    const before = await on('2026-11-16');
    const during = await on('2026-11-20');
    expect(before.diasDisfrutados).toBe(0);
    expect(during.diasDisfrutados).toBe(4);
    // Nothing accrues between (payroll is run by fortnights): the four days are the whole difference.
    expect(during.diasCausados).toBe(before.diasCausados);
    expect(during.diasPendientes).toBeCloseTo(before.diasPendientes - 4, 2);
  });

  it('agrees, worker by worker, with the balance of a worker who has taken nothing', async () => {
    // Luisa's only record was deleted.
    const r = await liability({ alCorte: TODAY, numeroDocumento: W.luisa });
    expect(r.status, r.text).toBe(200);
    const [w] = r.body.data.trabajadores;
    const periods = await c.get('/api/vacaciones/periodos', { numeroDocumento: W.luisa, emailResponsable: ADMIN, fechaCorte: TODAY });
    expect(periods.status, periods.text).toBe(200);
    expect(w.diasPendientes).toBe(periods.body.data.totales.diasPendientes);
    expect(w.diasDisfrutados + w.diasCompensados).toBe(0);
  });

  it('says, on the line of a worker whose contract accrues nothing, why: the words the periods refuse with', async () => {
    const { workers } = await allPages(liability, { alCorte: TODAY });
    const { workers: moved } = await allPages(movement, { periodo: '2026-11' });
    const flagged: string[] = [];
    for (const w of workers) {
      const periods = await c.get('/api/vacaciones/periodos', { numeroDocumento: w.numeroDocumento, emailResponsable: ADMIN });
      const want = periods.status === 422 ? periods.body.errors[0] : null;
      expect(w.observacion, w.numeroDocumento).toBe(want);
      expect(moved.find((m) => m.asociadoId === w.asociadoId)?.observacion ?? null).toBe(want);
      if (want !== null) flagged.push(w.numeroDocumento);
    }
    // Santiago's contract has no risk level and Jorge's company contract no vacation rules.
    expect(flagged).toEqual(expect.arrayContaining([W.santiago, W.jorge]));
    const csv = await c.get('/api/vacaciones/pasivo', {
      emailResponsable: ADMIN,
      alCorte: TODAY,
      formato: 'csv',
      numeroDocumento: W.santiago,
    });
    const [row] = parse(csv.text, { columns: true, bom: true }) as Record<string, string>[];
    expect(row!.observacion).toBe(workers.find((w) => w.numeroDocumento === W.santiago).observacion);
  });

  it('shows days taken in advance as a prepaid amount, apart, never netted', async () => {
    // Luisa, with 15 days earned, takes 20 from 14 December, 5 of them in advance: by its end she is ahead.
    codes.luisa = (await addVacation(c, vacationForm(W.luisa, '2026-12-14', 20, { vacPagado: '1' }))).codigo_pila;
    const r = await liability({ alCorte: '2027-01-20', numeroDocumento: W.luisa });
    expect(r.status, r.text).toBe(200);
    expect(r.body.data.proyeccion).toBe(true);
    const [w] = r.body.data.trabajadores;
    expect(w.diasPendientes).toBe(-5);
    expect(w.valor).toBe(0);
    expect(w.anticipado).toBe(-pesos(w.diasPendientes, w.salarioMensual));
    expect(r.body.data.totales).toMatchObject({
      valor: 0,
      anticipado: w.anticipado,
      diasPendientes: 0,
      diasAnticipados: -w.diasPendientes,
    });
    const del = await c.post('/api/vacaciones/delete', { codigoPila: codes.luisa, emailUserResponsable: ADMIN });
    expect(del.status, del.text).toBe(200);
  });

  it('moves from the opening to the closing of the month, line by line, to the peso', async () => {
    const m = await movement({ periodo: '2026-12', limite: '5000' });
    expect(m.status, m.text).toBe(200);
    expect(liabilityMovementOk.safeParse(m.body).error).toBeUndefined();
    const opening = (await liability({ alCorte: '2026-11-30', limite: '5000' })).body.data.trabajadores as Json[];
    const closing = (await liability({ alCorte: '2026-12-31', limite: '5000' })).body.data.trabajadores as Json[];
    const net = (ws: Json[], doc: string) => {
      const w = ws.find((x) => x.numeroDocumento === doc);
      return w ? w.valor - w.anticipado : 0;
    };
    const lines = m.body.data.trabajadores as Json[];
    for (const l of lines) {
      expect(l.apertura).toBe(net(opening, l.numeroDocumento));
      expect(l.cierre).toBe(net(closing, l.numeroDocumento));
      expect(l.cierre).toBe(l.apertura + l.causado - l.tomado + l.revaluacion);
    }
    const maria = lines.find((l) => l.numeroDocumento === W.maria)!;
    // Six days enjoyed from 1 December and six paid in money from the 14th.
    expect(maria.diasTomados).toBe(12);
    expect(Math.abs(maria.revaluacion)).toBeLessThanOrEqual(2);
    const totals = m.body.data.totales;
    for (const k of ['apertura', 'causado', 'tomado', 'revaluacion', 'cierre']) expect(totals[k]).toBe(sum(lines, k));
    const paged = await allPages(movement, { periodo: '2026-12' });
    expect(paged.workers).toEqual(lines);
  });

  it('writes the same figures as CSV and XLSX, with the totals after the workers', async () => {
    const json = (await liability({ alCorte: '2026-12-31', limite: '5000' })).body.data;
    const csv = await liability({ alCorte: '2026-12-31', formato: 'csv' });
    expect(csv.status, csv.text).toBe(200);
    expect(csv.headers.get('content-type')).toMatch(/^text\/csv/);
    const rows = parse(csv.text, { bom: true }) as string[][];
    const header = rows[0]!;
    const col = (name: string) => header.indexOf(name);
    const workers = rows.filter((r) => r[col('registro')] === 'trabajador');
    expect(workers.map((r) => r[col('numeroDocumento')])).toEqual(json.trabajadores.map((w: Json) => w.numeroDocumento));
    const total = rows.find((r) => r[col('registro')] === 'total')!;
    expect(Number(total[col('valor')])).toBe(json.totales.valor);
    const query = new URLSearchParams({ emailResponsable: ADMIN, alCorte: '2026-12-31', formato: 'xlsx' });
    const xlsx = await fetch(`${base}/api/vacaciones/pasivo?${query}`, { headers: { 'x-api-key': `Bearer ${key}` } });
    expect(xlsx.status).toBe(200);
    const book = new ExcelJS.Workbook();
    await book.xlsx.load(Buffer.from(await xlsx.arrayBuffer()) as never);
    const sheet = book.worksheets[0]!;
    expect(sheet.rowCount).toBe(rows.length);
    const last = sheet.getRow(sheet.rowCount).values as unknown[];
    expect(last).toContain(json.totales.valor);
  });

  it('narrows to a subgerencia and a company contract, counting each worker where the date places them', async () => {
    const all = (await liability({ alCorte: TODAY, limite: '5000' })).body.data;
    for (const s of all.totales.porSubgerencia) {
      const r = await liability({ alCorte: TODAY, subgerenciaId: s.subgerenciaId });
      expect(r.status, r.text).toBe(200);
      expect(r.body.data.totales.valor).toBe(s.valor);
      expect(r.body.data.trabajadores.every((w: Json) => w.subgerenciaId === s.subgerenciaId)).toBe(true);
    }
    const k = all.totales.porContratoEmpresa.find((x: Json) => x.contratoEmpresaId !== null);
    const r = await liability({ alCorte: TODAY, contratoEmpresaId: String(k.contratoEmpresaId) });
    expect(r.body.data.totales.valor).toBe(k.valor);
  });

  it('refuses bad input with 400 or 404 naming the parameter, in Spanish', async () => {
    const cases: [Record<string, string>, number, string][] = [
      [{ alCorte: '2026-02-30' }, 400, 'alCorte'],
      [{ alCorte: 'ayer' }, 400, 'alCorte'],
      [{}, 400, 'alCorte'],
      [{ alCorte: TODAY, numeroDocumento: '999999999' }, 404, 'numeroDocumento'],
      [{ alCorte: TODAY, subgerenciaId: 'SG-NADA' }, 404, 'subgerenciaId'],
      [{ alCorte: TODAY, contratoEmpresaId: '999999' }, 404, 'contratoEmpresaId'],
      [{ alCorte: TODAY, desde: 'bm90LWEtY3Vyc29y' }, 400, 'desde'],
    ];
    for (const [query, status, field] of cases) {
      const r = await liability(query);
      expect(r.status, `${JSON.stringify(query)}: ${r.text}`).toBe(status);
      expect(r.body.success).toBe(false);
      expect(Object.keys(r.body.errors ?? {})).toContain(field);
    }
    // A cursor of another cut-off, or of the movement, is not one of this report.
    const page = await liability({ alCorte: TODAY, limite: '1' });
    const foreign = await liability({ alCorte: '2026-11-30', desde: page.body.data.siguiente });
    expect(foreign.status).toBe(400);
    const m = await movement({ periodo: '2026-12', limite: '1' });
    expect((await liability({ alCorte: TODAY, desde: m.body.data.siguiente })).status).toBe(400);
    for (const periodo of ['2026-13', '2026-1', 'diciembre']) {
      const r = await movement({ periodo });
      expect(r.status).toBe(400);
      expect(Object.keys(r.body.errors)).toContain('periodo');
    }
  });
});
