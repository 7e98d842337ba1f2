import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { ADMIN } from '../../support/http.ts';
import { PanelClient, startPanelService, type PanelService } from '../../support/panel.ts';

/** Names a reference file may carry: markup, quotes and ampersands, shown as text and never run. */
const FIRST = `<script>alert("nombre")</script> & 'Ñandú'`;
const LAST = `O'Brien "<b>negrita</b>" & Cía`;
const UNIT_ID = `SG <&>"'#?`;
const UNIT_NAME = `<img src=x onerror=alert(1)> "Dirección" & 'Cía'`;
const DOC = '7700000099';
const escaped = (s: string) =>
  s.replace(/&/g, '&amp;').replace(/</g, '&lt;').replace(/>/g, '&gt;').replace(/"/g, '&quot;').replace(/'/g, '&#39;');
/** An attribute's value as the browser reads it. */
const attribute = (s: string) =>
  s
    .replace(/&#39;/g, "'")
    .replace(/&quot;/g, '"')
    .replace(/&lt;/g, '<')
    .replace(/&gt;/g, '>')
    .replace(/&amp;/g, '&');
/** What would run, or change the page, if it came through as markup. */
const RAW = [/<script>alert/, /<img src=x/, /<b>negrita/, /onerror=alert\(1\)>/];

let p: PanelService;
let admin: PanelClient;
let code: string;

beforeAll(async () => {
  p = await startPanelService(
    {},
    {
      accounts: [ADMIN],
      fixture: (data) => {
        data.subgerencias.push({ id: UNIT_ID, nombre: UNIT_NAME });
        data.asociados.push({ id: 1099, tipoDocumento: 'CC', numeroDocumento: DOC, nombres: FIRST, apellidos: LAST });
        data.contratos.push({
          ...data.contratos.find((c: { id: number }) => c.id === 10001),
          id: 10099,
          asociadoId: 1099,
          subgerenciaId: UNIT_ID,
        });
        for (const sheet of data.nomina.filter((n: { contratoId: number }) => n.contratoId === 10001))
          data.nomina.push({ ...sheet, asociadoId: 1099, contratoId: 10099 });
      },
    },
  );
  admin = new PanelClient(p.service);
  expect((await admin.signIn(ADMIN)).status).toBe(303);
  await admin.get(`/panel/trabajador/${DOC}`);
  const booked = await admin.post(`/panel/trabajador/${DOC}/vacaciones`, {
    vacFechaInicio: '2026-12-01',
    vacDiasVacaciones: '6',
    accion: 'registrar',
  });
  expect(booked.status).toBe(303);
  code = /#(VAC_[0-9a-f_]+)$/.exec(booked.location!)![1]!;
});
afterAll(async () => {
  await p?.stop();
});

const unit = encodeURIComponent(UNIT_ID);

describe("a worker's names and a subgerencia's name with markup in them", () => {
  it.each([
    ['the search results', () => `/panel/trabajador?q=${encodeURIComponent('<script>')}`, [FIRST, LAST]],
    ['the worker page', () => `/panel/trabajador/${DOC}`, [FIRST, LAST, UNIT_NAME]],
    ['the occupancy grid of their subgerencia', () => `/panel/ocupacion?subgerencia=${unit}&mes=2026-12`, [FIRST, LAST, UNIT_NAME]],
    ['the occupancy grid of the subgerencia next to theirs', () => '/panel/ocupacion?subgerencia=SG-ADM&mes=2026-12', [UNIT_NAME]],
    ['the audit trail', () => `/panel/auditoria?documento=${DOC}`, [FIRST, LAST]],
    ['the verification', () => `/panel/auditoria/verificar?documento=${DOC}`, [FIRST, LAST]],
    ['the delete confirmation', () => `/panel/vacaciones/${code}/eliminar`, [DOC]],
    ['the interruption form', () => `/panel/vacaciones/${code}/interrumpir`, [DOC]],
  ])('are shown as text on %s', async (_page, path, shown) => {
    const r = await admin.get(path());
    expect(r.status, r.body.slice(0, 500)).toBe(200);
    for (const raw of RAW) expect(r.body).not.toMatch(raw);
    for (const s of shown) expect(r.body).toContain(escaped(s));
  });

  it('keep their subgerencia reachable: its id goes into every link URL-encoded', async () => {
    const r = await admin.get(`/panel/ocupacion?subgerencia=${unit}&mes=2026-12`);
    expect(r.body).not.toContain('No existe la subgerencia');
    expect(r.body).toContain(`<option value="${escaped(UNIT_ID)}" selected>`);
    const day = attribute(/<a class="day" href="([^"]+)"/.exec(r.body)![1]!);
    expect(new URL(day, 'http://x').searchParams.get('subgerencia')).toBe(UNIT_ID);
    const other = await admin.get('/panel/ocupacion?subgerencia=SG-ADM&mes=2026-12');
    const link = [...other.body.matchAll(/<a href="([^"]+)">Subgerencia (?:anterior|siguiente): ([^<]+)<\/a>/g)].find(
      (m) => m[2] === escaped(UNIT_NAME),
    );
    expect(link).toBeDefined();
    expect(new URL(attribute(link![1]!), 'http://x').searchParams.get('subgerencia')).toBe(UNIT_ID);
  });
});
