import { spawnSync } from 'node:child_process';
import { existsSync, mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { loadConfig } from '../../../src/config/config.ts';
import { isValidDate } from '../../../src/domain/index.ts';
import { electronicPayrollOk } from '../../../src/http/electronic-payroll-schemas.ts';
import { createLogger } from '../../../src/logger.ts';
import { importReferenceData } from '../../../src/reference/import.ts';
import { createApiKey } from '../../../src/security/api-keys.ts';
import { createService, type Service } from '../../../src/service.ts';
import { freshDb, hasServer, NEEDS_SERVER, type TestDb } from '../../support/db.ts';
import { ADMIN, W, addVacation, client, vacationForm, type Client, type Json } from '../../support/http.ts';
import { bookDecember } from '../../support/month-records.ts';
import { loadFixture } from '../../support/server.ts';

const NS = 'dian:gov:co:facturaelectronica:NominaIndividual';
const XSD = fileURLToPath(new URL('../../../src/app/dian/vacaciones.xsd', import.meta.url));
const XMLLINT = ['/usr/bin/xmllint', '/usr/local/bin/xmllint'].find((p) => existsSync(p));
const NO_XMLLINT = 'xmllint is missing (Debian package libxml2-utils, which .ci/run installs)';

/** Runs xmllint on files; its exit status and what it said. */
function xmllint(args: string[]): { status: number | null; out: string } {
  const r = spawnSync(XMLLINT!, args, { encoding: 'utf8' });
  return { status: r.status, out: `${r.stdout}${r.stderr}` };
}

/** A fragment placed where the DIAN's document holds it: NominaIndividual/Devengados/Vacaciones. */
const wrapped = (fragment: string) =>
  `<?xml version="1.0" encoding="UTF-8"?>\n<NominaIndividual xmlns="${NS}">\n<Devengados>\n${fragment}\n</Devengados>\n</NominaIndividual>\n`;

interface XmlWorker {
  numeroDocumento: string;
  fragment: string;
  comunes: Record<string, string>[];
  compensadas: Record<string, string>[];
}

const attrsOf = (tag: string) => Object.fromEntries([...tag.matchAll(/(\w+)="([^"]*)"/g)].map((m) => [m[1]!, m[2]!]));

/** The answer's workers and their fragments, read from the XML as a payroll system would take them out. */
function workersOf(xml: string): XmlWorker[] {
  return [...xml.matchAll(/<Trabajador ([^>]*)>\s*(<Vacaciones [\s\S]*?<\/Vacaciones>)\s*<\/Trabajador>/g)].map((m) => {
    const fragment = m[2]!;
    const tags = (name: string) => [...fragment.matchAll(new RegExp(`<${name}\\b([^>]*)/>`, 'g'))].map((t) => attrsOf(t[1]!));
    return {
      numeroDocumento: attrsOf(m[1]!).numeroDocumento!,
      fragment,
      comunes: tags('VacacionesComunes'),
      compensadas: tags('VacacionesCompensadas'),
    };
  });
}

/** What a record gives as VacacionesComunes in JSON: its dates, business days and value, as read back from the API. */
const comunesOf = (v: Json) => ({
  FechaInicio: v.startDate,
  FechaFin: v.endDate,
  Cantidad: v.businessDays,
  Pago: `${v.totalValue}.00`,
  codigoPila: v.codigoPila,
});

describe.skipIf(!hasServer())(`GET /api/vacaciones/nomina-electronica${hasServer() ? '' : ` (skipped: ${NEEDS_SERVER})`}`, () => {
  let t: TestDb;
  let key: string;
  let service: Service | undefined;
  let c: Client;
  let dir: string;
  const codes: Record<string, string> = {};
  /** Juan's record as it was paid, before its interruption. */
  let juanPaid: Json;

  async function start(today: string) {
    await service?.close();
    const config = loadConfig({ DATABASE_URL: t.url!, VACACIONES_TODAY: today, LOG_LEVEL: 'silent', PORT: '0' });
    service = await createService(config, createLogger(config));
    c = client(await service.app.listen({ port: 0, host: '127.0.0.1' }), key);
  }
  const approve = async (code: string) => {
    const r = await c.post('/api/vacaciones/approve', { codigoPila: code, emailUserResponsable: ADMIN });
    expect(r.status, r.text).toBe(200);
  };
  const recordsOf = async (doc: string) =>
    (await c.get('/api/vacaciones', { numeroDocumento: doc, emailResponsable: ADMIN })).body.vacaciones as Json[];
  const fragments = (query: Record<string, string>) => c.get('/api/vacaciones/nomina-electronica', { emailResponsable: ADMIN, ...query });

  beforeAll(async () => {
    dir = mkdtempSync(join(tmpdir(), 'dian-'));
    t = await freshDb();
    const d = loadFixture();
    // No limit of people away at once: the workers here may be away together.
    for (const k of d.contratosEmpresa) if (k.vacaciones) k.vacaciones.numeroPersonasVacaciones = null;
    await importReferenceData(t.db, d);
    key = (await createApiKey(t.db, { name: 'nomina' })).key;
    // On 2026-11-20: Juan's vacation from 17 November, 15 days, approved: paid with November's payroll.
    await start('2026-11-20');
    codes.juan = (await addVacation(c, vacationForm(W.juan, '2026-11-17', 15))).codigo_pila;
    await approve(codes.juan);
    juanPaid = (await recordsOf(W.juan)).find((v) => v.codigoPila === codes.juan);
    // On 2026-11-21 it is interrupted, its days left are booked from 25 November, and December's records come.
    await start('2026-11-21');
    const cut = await c.post('/api/vacaciones/interrupt', {
      codigoPila: codes.juan,
      fechaInterrupcion: '2026-11-24',
      motivo: 'incapacidad',
      emailUserResponsable: ADMIN,
    });
    expect(cut.status, cut.text).toBe(200);
    codes.rest = (await addVacation(c, vacationForm(W.juan, '2026-11-25', 10, { codigoPilaInterrumpido: codes.juan }))).codigo_pila;
    Object.assign(codes, await bookDecember(c));
  }, 60_000);
  afterAll(async () => {
    await service?.close().catch(() => {});
    await t?.drop();
    if (dir) rmSync(dir, { recursive: true, force: true });
  });

  /** The month as XML and as JSON, checked to say the same thing, attribute by attribute. */
  async function month(query: Record<string, string>) {
    const xml = await fragments({ ...query, formato: 'xml' });
    expect(xml.status, xml.text).toBe(200);
    expect(xml.headers.get('content-type')).toMatch(/^application\/xml/);
    const json = await fragments({ ...query, formato: 'json' });
    expect(json.status, json.text).toBe(200);
    expect(electronicPayrollOk.safeParse(json.body).error).toBeUndefined();
    const workers = workersOf(xml.text);
    const data = json.body.data;
    expect(workers.map((w) => w.numeroDocumento)).toEqual(data.trabajadores.map((w: Json) => w.numeroDocumento));
    expect(data.totalTrabajadores).toBe(workers.length);
    const strip = (xs: Json[]) =>
      xs.map(({ codigoPila: _c, ...attrs }: Json) => Object.fromEntries(Object.entries(attrs).map(([k, v]) => [k, String(v)])));
    workers.forEach((w, i) => {
      expect(w.comunes).toEqual(strip(data.trabajadores[i].Vacaciones.VacacionesComunes));
      expect(w.compensadas).toEqual(strip(data.trabajadores[i].Vacaciones.VacacionesCompensadas));
    });
    const byDoc = new Map<string, Json>(data.trabajadores.map((w: Json) => [w.numeroDocumento, w.Vacaciones]));
    const codesOf = (doc: string) => {
      const v = byDoc.get(doc);
      return v ? [...v.VacacionesComunes, ...v.VacacionesCompensadas].map((x: Json) => x.codigoPila) : [];
    };
    return { xml: xml.text, workers, data, byDoc, codesOf };
  }

  it.skipIf(!XMLLINT)(
    `validates every fragment of every month, placed in a NominaIndividual, against the XSD${XMLLINT ? '' : ` (skipped: ${NO_XMLLINT})`}`,
    async () => {
      let checked = 0;
      for (const periodo of ['2025-06', '2025-09', '2026-10', '2026-11', '2026-12', '2027-01']) {
        for (const alCorte of ['2026-11-20', '2026-11-21']) {
          const { xml, workers } = await month({ periodo, alCorte });
          // The whole answer is well-formed XML, and the fragments are all of what it holds.
          const whole = join(dir, `all-${periodo}-${alCorte}.xml`);
          writeFileSync(whole, xml);
          expect(xmllint(['--noout', whole]).status).toBe(0);
          expect(workers.length).toBe((xml.match(/<Trabajador /g) ?? []).length);
          const files = workers.map((w, i) => {
            const f = join(dir, `${periodo}-${alCorte}-${i}.xml`);
            writeFileSync(f, wrapped(w.fragment));
            return f;
          });
          for (const w of workers) {
            for (const v of [...w.comunes, ...w.compensadas]) {
              expect(v.Cantidad).toMatch(/^[1-9]\d*$/);
              expect(v.Pago).toMatch(/^\d+\.\d{2}$/);
            }
            for (const v of w.comunes) {
              for (const d of [v.FechaInicio!, v.FechaFin!]) expect(isValidDate(d) && /^\d{4}-\d{2}-\d{2}$/.test(d), d).toBe(true);
              expect(v.FechaInicio!.slice(0, 7)).toBe(periodo);
            }
          }
          if (files.length === 0) continue;
          const r = xmllint(['--noout', '--schema', XSD, ...files]);
          expect(r.status, r.out).toBe(0);
          checked += files.length;
        }
      }
      // November holds Juan at both cut-offs, December Maria and Camilo once they were booked.
      expect(checked).toBeGreaterThanOrEqual(4);
    },
  );

  it.skipIf(!XMLLINT)(
    `the XSD refuses what the schema does not allow, so the check can fail${XMLLINT ? '' : ` (skipped: ${NO_XMLLINT})`}`,
    () => {
      for (const bad of [
        `<Vacaciones xmlns="${NS}"><VacacionesComunes FechaInicio="2026-12-01" FechaFin="2026-12-09" Cantidad="6.5" Pago="569400.00"/></Vacaciones>`,
        `<Vacaciones xmlns="${NS}"><VacacionesComunes FechaInicio="2026-12-01" FechaFin="2026-12-09" Cantidad="6"/></Vacaciones>`,
        `<Vacaciones xmlns="${NS}"><VacacionesCompensadas Cantidad="6" Pago="1.000,00"/></Vacaciones>`,
        `<Vacaciones xmlns="${NS}"><VacacionesComunes FechaInicio="01/12/2026" Cantidad="6" Pago="569400.00"/></Vacaciones>`,
        `<Vacaciones xmlns=""><VacacionesCompensadas Cantidad="6" Pago="569400.00"/></Vacaciones>`,
      ]) {
        const f = join(dir, 'bad.xml');
        writeFileSync(f, wrapped(bad));
        expect(xmllint(['--noout', '--schema', XSD, f]).status, bad).not.toBe(0);
      }
    },
  );

  it('reports an interrupted vacation as it was paid, and not its continuation', async () => {
    const now = await recordsOf(W.juan);
    const interrupted = now.find((v) => v.codigoPila === codes.juan);
    // The register now holds the days enjoyed: the fragment must not take them.
    expect(interrupted.businessDays).toBeLessThan(juanPaid.businessDays);
    for (const alCorte of ['2026-11-20', '2026-11-21']) {
      const nov = await month({ periodo: '2026-11', numeroDocumento: W.juan, alCorte });
      expect(nov.data.alcance).toEqual({ subgerenciaId: null, numeroDocumento: W.juan });
      expect(nov.byDoc.get(W.juan)).toEqual({
        VacacionesComunes: [comunesOf(juanPaid)],
        VacacionesCompensadas: [],
      });
    }
    expect(now.find((v) => v.codigoPila === codes.rest)).toMatchObject({ continues: codes.juan, startDate: '2026-11-25' });
    const all = await month({ periodo: '2026-11' });
    expect(all.codesOf(W.juan)).toEqual([codes.juan]);
  });

  it('reports December: enjoyed and compensated apart, the replacement of an edit, nothing deleted or replaced', async () => {
    const dec = await month({ periodo: '2026-12' });
    expect(dec.data.alCorte).toBe('2026-11-21');
    const maria = (await recordsOf(W.maria)).filter((v) => [codes.maria, codes.money].includes(v.codigoPila));
    const enjoyed = maria.find((v) => v.codigoPila === codes.maria);
    const money = maria.find((v) => v.codigoPila === codes.money);
    expect(dec.byDoc.get(W.maria)).toEqual({
      VacacionesComunes: [comunesOf(enjoyed)],
      VacacionesCompensadas: [{ Cantidad: money.businessDays, Pago: `${money.totalValue}.00`, codigoPila: codes.money }],
    });
    expect(dec.codesOf(W.camilo)).toEqual([codes.edited]);
    const camilo = dec.byDoc.get(W.camilo).VacacionesComunes[0];
    expect(camilo).toMatchObject({ FechaInicio: '2026-12-09', Cantidad: 7 });
    const all = [...dec.byDoc.keys()].flatMap(dec.codesOf);
    expect(all).not.toContain(codes.deleted);
    expect(all).not.toContain(codes.old);
    // The XML places the same figures, Pago with its two decimals.
    const xmlMaria = dec.workers.find((w) => w.numeroDocumento === W.maria)!;
    expect(xmlMaria.compensadas).toEqual([{ Cantidad: String(money.businessDays), Pago: `${money.totalValue}.00` }]);
    expect(xmlMaria.fragment.startsWith(`<Vacaciones xmlns="${NS}">`)).toBe(true);

    // On 2026-11-20 none of December's records existed yet.
    const before = await month({ periodo: '2026-12', alCorte: '2026-11-20T23:30:00-05:00' });
    expect(before.data.alCorte).toBe('2026-11-20');
    for (const code of [codes.maria, codes.money, codes.edited, codes.old])
      expect([...before.byDoc.keys()].flatMap(before.codesOf)).not.toContain(code);
  });

  it('narrows to a subgerencia or a worker', async () => {
    const whole = await month({ periodo: '2026-12' });
    const one = await month({ periodo: '2026-12', numeroDocumento: W.maria });
    expect(one.data.trabajadores).toEqual(whole.data.trabajadores.filter((w: Json) => w.numeroDocumento === W.maria));
    const sg = await month({ periodo: '2026-12', subgerenciaId: 'SG-OPS' });
    expect(sg.data.alcance).toEqual({ subgerenciaId: 'SG-OPS', numeroDocumento: null });
    expect(sg.data.trabajadores.length).toBeGreaterThan(0);
    expect(sg.data.trabajadores.length).toBeLessThanOrEqual(whole.data.trabajadores.length);
    expect(sg.xml).toContain('subgerenciaId="SG-OPS"');
  });

  it('refuses bad input with 400 or 404 in the envelope, in Spanish, naming the parameter', async () => {
    for (const [query, status, field] of [
      [{ periodo: '2026-13' }, 400, 'periodo'],
      [{ periodo: '2026-1' }, 400, 'periodo'],
      [{ periodo: 'diciembre' }, 400, 'periodo'],
      [{}, 400, 'periodo'],
      [{ periodo: '2026-12', alCorte: 'ayer' }, 400, 'alCorte'],
      [{ periodo: '2026-12', alCorte: '2026-02-30' }, 400, 'alCorte'],
      [{ periodo: '2026-12', formato: 'csv' }, 400, 'formato'],
      [{ periodo: '2026-12', numeroDocumento: '999999999' }, 404, 'numeroDocumento'],
      [{ periodo: '2026-12', subgerenciaId: 'SG-NADA' }, 404, 'subgerenciaId'],
    ] as const) {
      const r = await fragments(query);
      expect(r.status, `${JSON.stringify(query)}: ${r.text}`).toBe(status);
      expect(r.body).toMatchObject({ success: false, statusCode: status });
      expect(Object.keys(r.body.errors)).toEqual([field]);
      expect(r.body.message).toMatch(/[a-záéíóú]/);
      expect(String(r.body.errors[field])).not.toMatch(/invalid|expected|required/i);
    }
    expect((await fragments({ periodo: '2026-12', formato: 'csv' })).body.errors).toEqual({ formato: 'formato debe ser xml o json' });
    const nobody = await fragments({ periodo: '2026-12', emailResponsable: 'nadie@empresa.co' });
    expect(nobody.status).toBe(404);
    expect(Object.keys(nobody.body.errors)).toEqual(['emailResponsable']);
  });
});
