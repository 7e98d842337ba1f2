import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { decode } from '../../../src/events/codec.ts';
import { workerStream } from '../../../src/events/streams.ts';
import { createApiKey } from '../../../src/security/api-keys.ts';
import { PANEL_ERRORS } from '../../../src/panel/respond.ts';
import { ADMIN, AUDITOR, W } from '../../support/http.ts';
import { PanelClient, message, startPanelService, type PanelService } from '../../support/panel.ts';

let p: PanelService;
let admin: PanelClient;
let auditor: PanelClient;
let apiKey: string;

beforeAll(async () => {
  p = await startPanelService({}, { accounts: [ADMIN, AUDITOR] });
  admin = new PanelClient(p.service);
  auditor = new PanelClient(p.service);
  expect((await admin.signIn(ADMIN)).status).toBe(303);
  expect((await auditor.signIn(AUDITOR)).status).toBe(303);
  apiKey = (await createApiKey(p.service.db, { name: 'panel-views' })).key;
});
afterAll(async () => {
  await p?.stop();
});

/** The visible text of a page, tags taken out and spaces folded. */
const text = (body: string) =>
  body
    .replace(/<[^>]+>/g, ' ')
    .replace(/&nbsp;/g, ' ')
    .replace(/\s+/g, ' ');
const codeIn = (body: string) => /Código (VAC_[0-9a-f_]+)\./.exec(text(body))?.[1];

async function book(c: PanelClient, doc: string, start: string, days: number, accion = 'registrar') {
  await c.get(`/panel/trabajador/${doc}`);
  return c.post(`/panel/trabajador/${doc}/vacaciones`, { vacFechaInicio: start, vacDiasVacaciones: String(days), accion });
}

describe('Trabajador', () => {
  it('finds a worker by document (straight to the page) and by the start of a name, without accents or case', async () => {
    const byDoc = await admin.get(`/panel/trabajador?q=${W.maria}`);
    expect(byDoc.status).toBe(303);
    expect(byDoc.location).toBe(`/panel/trabajador/${W.maria}`);
    const byName = await admin.get(`/panel/trabajador?q=${encodeURIComponent('gomez')}`);
    expect(byName.status).toBe(200);
    expect(text(byName.body)).toContain('Gómez Restrepo, María Fernanda');
    const byFullName = await admin.get(`/panel/trabajador?q=${encodeURIComponent('MARIA FERNANDA GOM')}`);
    expect(text(byFullName.body)).toContain('Gómez Restrepo, María Fernanda');
    const none = await admin.get('/panel/trabajador?q=zzz');
    expect(message(none.body)).toContain('Ningún trabajador');
    const unknown = await admin.get('/panel/trabajador/999');
    expect(unknown.status).toBe(404);
    expect(message(unknown.body)).toContain('No hay un trabajador con documento 999');
  });

  it("shows the worker's contracts and the same days the consult answers", async () => {
    const consult = await p.service.app.inject({
      url: `/api/vacaciones/consultdatavacations?numeroDocumento=${W.maria}&emailResponsable=${ADMIN}`,
      headers: { 'x-api-key': `Bearer ${apiKey}` },
    });
    const c = consult.json() as { diasLaboradosNomina: number; vacacionesDisponibles: number };
    const page = text((await admin.get(`/panel/trabajador/${W.maria}`)).body);
    expect(page).toContain('María Fernanda Gómez Restrepo');
    expect(page).toContain('Contrato cliente A');
    expect(page).toContain(`${c.diasLaboradosNomina} días laborados en nómina`);
    expect(page).toContain(`${String(c.vacacionesDisponibles).replace('.', ',')} días disponibles`);
  });

  it("counts a worker's consults in Auditoría in words that fit one and several, the latest first", async () => {
    const consult = () =>
      p.service.app.inject({
        url: `/api/vacaciones/consultdatavacations?numeroDocumento=${W.juan}&emailResponsable=${ADMIN}`,
        headers: { 'x-api-key': `Bearer ${apiKey}` },
      });
    const caption = async () => {
      const body = (await admin.get(`/panel/auditoria?documento=${W.juan}`)).body;
      return text(/<caption>([^<]*)<\/caption>/.exec(body.slice(body.indexOf('Consultas y ediciones fallidas')))?.[1] ?? '').trim();
    };
    expect((await consult()).statusCode).toBe(200);
    expect(await caption()).toBe('Un registro entre los últimos 200 de su auditoría');
    expect((await consult()).statusCode).toBe(200);
    expect(await caption()).toBe('2 registros entre los últimos 200 de su auditoría, del más reciente al más antiguo');
  });

  it('a preview lists every failing rule in Spanish and books nothing', async () => {
    // A Sunday, and fewer days than the company contract's minimum of 6.
    const live = async () =>
      (await p.service.db.query<{ n: number }>(`SELECT count(*)::int AS n FROM rm_vacations WHERE document_number = $1`, [W.juan])).rows[0]!
        .n;
    const before = await live();
    const r = await book(admin, W.juan, '2026-12-06', 2, 'calcular');
    expect(r.status).toBe(422);
    const t = text(r.body);
    expect(t).toContain('No se pueden registrar estas vacaciones');
    expect(t).toContain('no es un día hábil');
    expect(t).toContain('no cumplen el mínimo de 6 días disfrutados');
    expect(await live()).toBe(before);
  });

  it('bad input is a message on the page, never a trace', async () => {
    await admin.get(`/panel/trabajador/${W.maria}`);
    const r = await admin.post(`/panel/trabajador/${W.maria}/vacaciones`, {
      vacFechaInicio: '2026-02-30',
      vacDiasVacaciones: 'muchos',
      accion: 'calcular',
    });
    expect(r.status).toBe(400);
    const t = text(r.body);
    expect(t).toContain('Fecha de inicio debe ser una fecha válida');
    expect(t).toContain('Días hábiles debe ser un número entero entre 1 y 360');
    expect(t).not.toMatch(/ZodError|at .*\.ts:\d|node_modules|Stack/);
  });

  it('interrupts an approved vacation in course from its form, then shows it interrumpida, ending on the last day enjoyed', async () => {
    const booked = await book(admin, W.luisa, '2026-11-17', 6);
    const code = codeIn((await admin.get(booked.location!)).body)!;
    // Not approved yet: nothing to interrupt.
    expect((await admin.get(`/panel/trabajador/${W.luisa}`)).body).not.toContain(`/panel/vacaciones/${code}/interrumpir`);
    await admin.post(`/panel/vacaciones/${code}/aprobar`, {});
    expect((await admin.get(`/panel/trabajador/${W.luisa}`)).body).toContain(`/panel/vacaciones/${code}/interrumpir`);
    const form = await admin.get(`/panel/vacaciones/${code}/interrumpir`);
    expect(form.status).toBe(200);
    expect(text(form.body)).toContain('Primer día no disfrutado');

    const sunday = await admin.post(`/panel/vacaciones/${code}/interrumpir`, { fechaInterrupcion: '2026-11-22', motivo: 'licencia' });
    expect(sunday.status).toBe(303);
    expect(message((await admin.get(sunday.location!)).body)).toBe(
      'La fecha de interrupción 2026-11-22 no es un día hábil para el trabajador',
    );
    const bad = await admin.post(`/panel/vacaciones/${code}/interrumpir`, { fechaInterrupcion: '2026-11-20', motivo: 'vacaciones' });
    expect(message((await admin.get(bad.location!)).body)).toBe(
      'motivo debe ser incapacidad, licencia, calamidad, necesidad del servicio u otro',
    );

    const done = await admin.post(`/panel/vacaciones/${code}/interrumpir`, { fechaInterrupcion: '2026-11-20', motivo: 'licencia' });
    expect(done.status).toBe(303);
    const after = await admin.get(done.location!);
    expect(message(after.body)).toBe(`Vacaciones ${code} interrumpidas el 20 nov 2026: 3 días hábiles volvieron al saldo.`);
    const page = text(after.body);
    expect(page).toMatch(/17 nov 2026 – 19 nov 2026 Interrumpida/);
    expect(page).toContain('Interrumpida desde el 20 nov 2026 (licencia); los días no disfrutados volvieron al saldo');
    expect(page).toContain('3 hábiles, 3 calendario');
    expect(after.body).not.toContain(`/panel/vacaciones/${code}/interrumpir`);
    const events = (await p.service.store.readStream(workerStream(1003))).map((e) => ({
      type: decode(e)!.event.type,
      meta: e.metadata as Record<string, unknown>,
    }));
    expect(events.filter((e) => e.type === 'VacationInterrupted').map((e) => e.meta)).toEqual([
      expect.objectContaining({ userEmail: ADMIN, source: 'panel' }),
    ]);

    // The audit trail's state after the last step, and the occupancy grid, say the same.
    const audit = await admin.get(`/panel/auditoria?documento=${W.luisa}&codigo=${code}`);
    const row = /<tr class="chosen">(.*?)<\/tr>/s.exec(audit.body)![1]!;
    expect(text(row)).toContain('Interrumpida desde el 20 nov 2026');
    expect(text(row)).not.toContain('Aprobada');
    const occupancy = await admin.get('/panel/ocupacion?subgerencia=SG-OPS&mes=2026-11');
    expect(text(occupancy.body)).toContain(`Luisa Martínez Ospina ${W.luisa} 17 nov 2026 19 nov 2026 Interrumpida desde el 20 nov 2026`);
  });

  it('interrupts a vacation on its first day and shows it interrumpida with no day enjoyed', async () => {
    const booked = await book(admin, W.luisa, '2026-11-20', 6);
    const code = codeIn((await admin.get(booked.location!)).body)!;
    await admin.post(`/panel/vacaciones/${code}/aprobar`, {});
    const form = text((await admin.get(`/panel/vacaciones/${code}/interrumpir`)).body);
    expect(form).toContain('Un día hábil del 20 nov 2026 al 27 nov 2026, ambos incluidos: el primero si no disfrutó ninguno.');
    const done = await admin.post(`/panel/vacaciones/${code}/interrumpir`, { fechaInterrupcion: '2026-11-20', motivo: 'incapacidad' });
    expect(done.status).toBe(303);
    const after = await admin.get(done.location!);
    expect(message(after.body)).toBe(`Vacaciones ${code} interrumpidas el 20 nov 2026: 6 días hábiles volvieron al saldo.`);
    const page = text(after.body);
    expect(page).toContain('Interrumpida desde el 20 nov 2026 (incapacidad); los días no disfrutados volvieron al saldo');
    expect(page).toContain('0 hábiles, 0 calendario');
  });

  it('previews, then books in the name of the signed-in person, who approves it', async () => {
    const preview = await book(admin, W.maria, '2026-12-01', 6, 'calcular');
    expect(preview.status).toBe(200);
    expect(text(preview.body)).toContain('Vista previa: las vacaciones cumplen todas las reglas');
    expect(text(preview.body)).toMatch(/1 dic 2026 al 9 dic 2026/);

    const booked = await book(admin, W.maria, '2026-12-01', 6);
    expect(booked.status).toBe(303);
    const after = await admin.get(booked.location!);
    const code = codeIn(after.body)!;
    expect(code).toMatch(/^VAC_/);
    expect(text(after.body)).toMatch(/1 dic 2026 – 9 dic 2026 Pendiente de aprobación/);

    await admin.post(`/panel/vacaciones/${code}/aprobar`, {});
    const approved = await admin.get(`/panel/trabajador/${W.maria}`);
    expect(message(approved.body)).toBe(`Vacaciones ${code} aprobadas.`);
    expect(text(approved.body)).toMatch(/1 dic 2026 – 9 dic 2026 Aprobada/);

    const events = (await p.service.store.readStream(workerStream(1001))).map((e) => ({
      type: decode(e)!.event.type,
      meta: e.metadata as Record<string, unknown>,
    }));
    const mine = events.filter((e) => e.type === 'VacationCreated' || e.type === 'VacationApproved').slice(-2);
    expect(mine.map((e) => e.type)).toEqual(['VacationCreated', 'VacationApproved']);
    for (const e of mine) expect(e.meta).toMatchObject({ userId: 1, userEmail: ADMIN, apiKeyName: null, source: 'panel' });
  });

  it('shows delete buttons only to whoever may delete, and deletes after a confirmation', async () => {
    const booked = await book(admin, W.camilo, '2026-12-14', 6);
    const code = codeIn((await admin.get(booked.location!)).body)!;
    expect((await admin.get(`/panel/trabajador/${W.camilo}`)).body).toContain(`/panel/vacaciones/${code}/eliminar`);
    const seenByAuditor = await auditor.get(`/panel/trabajador/${W.camilo}`);
    expect(seenByAuditor.body).not.toContain('/eliminar');
    expect(seenByAuditor.body).toContain(`/panel/vacaciones/${code}/aprobar`);
    expect((await auditor.get(`/panel/vacaciones/${code}/eliminar`)).status).toBe(403);
    await auditor.post(`/panel/vacaciones/${code}/eliminar`, {});
    expect(message((await auditor.get(`/panel/trabajador/${W.camilo}`)).body)).toContain('no tiene el permiso');

    const confirm = await admin.get(`/panel/vacaciones/${code}/eliminar`);
    expect(text(confirm.body)).toContain(`¿Eliminar las vacaciones ${code}`);
    const done = await admin.post(`/panel/vacaciones/${code}/eliminar`, {});
    expect(done.status).toBe(303);
    const after = await admin.get(done.location!);
    expect(message(after.body)).toBe(`Vacaciones ${code} eliminadas.`);
    expect(text(after.body)).toMatch(/14 dic 2026 – 21 dic 2026 Eliminada/);
    const deleted = (await p.service.store.readStream(workerStream(1010)))
      .map((e) => ({ type: decode(e)!.event.type, meta: e.metadata as Record<string, unknown> }))
      .at(-1)!;
    expect(deleted).toMatchObject({ type: 'VacationDeleted', meta: { userEmail: ADMIN, source: 'panel' } });
  });
});

describe('Ocupación', () => {
  it('counts people away per day against the limit, marks full days, names them, and moves between months', async () => {
    // Two more people of SG-OPS away on 2027-01-12..: with the company contract's limit of 2, full.
    for (const [doc, start] of [
      [W.juan, '2027-01-12'],
      [W.camilo, '2027-01-13'],
    ] as const) {
      const r = await book(admin, doc, start, 6);
      expect(r.status, text(r.body).slice(0, 2000)).toBe(303);
    }
    const r = await admin.get('/panel/ocupacion?subgerencia=SG-OPS&mes=2027-01');
    expect(r.status).toBe(200);
    const t = text(r.body);
    expect(t).toContain('Máximo de personas de vacaciones al mismo tiempo: 2');
    expect(r.body).toMatch(
      /class="at-limit[^"]*">\s*<a class="day" href="[^"]*dia=2027-01-13" aria-label="13 ene 2027: 2 personas de vacaciones, en el límite"/,
    );
    expect(r.body).toMatch(/aria-label="12 ene 2027: 1 persona de vacaciones"/);
    expect(t).toContain('Juan Carlos Rodríguez Pérez');
    expect(r.body).toContain('mes=2026-12');
    expect(r.body).toContain('mes=2027-02');
    const oneDay = text((await admin.get('/panel/ocupacion?subgerencia=SG-OPS&mes=2027-01&dia=2027-01-12')).body);
    expect(oneDay).toContain('De vacaciones el 12 ene 2027');
    expect(oneDay).toContain('1 registro');

    const other = await admin.get('/panel/ocupacion?subgerencia=SG-TEC&mes=2027-01');
    expect(text(other.body)).toContain('Nadie de la subgerencia está de vacaciones este mes');
    const bad = await admin.get('/panel/ocupacion?subgerencia=NO-EXISTE&mes=2027-13');
    expect(bad.status).toBe(400);
    expect(message(bad.body)).toContain('No existe la subgerencia «NO-EXISTE»');
    expect(message(bad.body)).toContain('«2027-13» no es un mes válido');
  });
});

describe('Auditoría', () => {
  it("steps through a worker's stream, exports it, and verifies its hash chains, naming where one breaks", async () => {
    const page = text((await admin.get(`/panel/auditoria?documento=${W.maria}`)).body);
    expect(page).toMatch(/Estado después del paso (\d+) de \1/);
    expect(page).toContain('Aprobación de VAC_');
    const first = text((await admin.get(`/panel/auditoria?documento=${W.maria}&paso=1`)).body);
    expect(first).toMatch(/Estado después del paso 1 de \d+/);
    expect(first).toContain('Es el primer paso');

    const csv = await admin.get(`/panel/auditoria/exportar?documento=${W.maria}&formato=csv`);
    expect(csv.headers['content-type']).toMatch(/^text\/csv/);
    expect(csv.headers['content-disposition']).toBe(
      `attachment; filename="auditoria-${W.maria}.csv"; filename*=UTF-8''auditoria-${W.maria}.csv`,
    );
    const lines = csv.body
      .replace(/^\ufeff/, '')
      .trim()
      .split('\r\n');
    expect(lines[0]!.split(';').slice(0, 5)).toEqual(['Paso', 'Fecha y hora (Bogotá)', 'Qué', 'Quién', 'Por dónde']);
    expect(lines.some((l) => l.includes(';Aprobación de VAC_') && l.includes(`;${ADMIN};panel web;`))).toBe(true);
    // The JSON keeps every event as stored, for programs; the CSV one line per action, for people.
    const json = JSON.parse((await admin.get(`/panel/auditoria/exportar?documento=${W.maria}&formato=json`)).body);
    expect(json.eventos.length).toBeGreaterThanOrEqual(lines.length - 1);
    expect(json.eventos.map((e: { tipo: string }) => e.tipo)).toContain('VacationApproved');

    const ok = await admin.get(`/panel/auditoria/verificar?documento=${W.maria}`);
    expect(message(ok.body)).toMatch(/^Íntegro/);
    // Someone edits a stored event behind the service's back.
    await p.service.db.query(
      `UPDATE events SET data = jsonb_set(data, '{businessDays}', '99') WHERE stream = 'worker-1001' AND revision = 1`,
    );
    const broken = await admin.get(`/panel/auditoria/verificar?documento=${W.maria}`);
    expect(message(broken.body)).toMatch(/^Alterado/);
    // The same verification as `audit verify --documento` and GET /api/auditoria/verificar.
    expect(text(broken.body)).toMatch(/worker-1001 rota en la revisión 1 ?: el evento de la revisión 1 no corresponde a su hash/);
    expect(text(broken.body)).toMatch(/audit-worker-1001 íntegra/);
  });
});

describe('parameters the database cannot take', () => {
  it.each(['calendario', 'ocupacion'])(
    '/panel/%s with a month outside the years served is a 400 page naming it, the current month shown',
    async (view) => {
      for (const mes of ['0000-01', '9999-12', '1899-12']) {
        const r = await admin.get(`/panel/${view}?mes=${mes}`);
        expect(r.status, r.body.slice(0, 300)).toBe(400);
        expect(r.headers['content-type']).toMatch(/^text\/html/);
        expect(message(r.body)).toContain(`«${mes}» no es un mes válido`);
        expect(text(r.body)).toContain('noviembre de 2026');
      }
    },
  );

  it('a worker page with a balance or leaving date outside the years served says it is not a date', async () => {
    const r = await admin.get(`/panel/trabajador/${W.maria}?fecha=9999-12-31&retiro=0000-01-01`);
    expect(r.status).toBe(200);
    expect(r.body).toContain('«9999-12-31» no es una fecha');
    expect(r.body).toContain('«0000-01-01» no es una fecha');
  });
});

describe('a JSON body nested past the limit', () => {
  it('posted to /panel/ingresar before any session is the panel’s 400 page, not a 500', async () => {
    // Within the body limit: a list 30,000 deep is some 60 KB.
    const depth = 30_000;
    const r = await p.service.app.inject({
      method: 'POST',
      url: '/panel/ingresar',
      headers: { 'content-type': 'application/json' },
      payload: '['.repeat(depth) + ']'.repeat(depth),
    });
    expect(r.statusCode, r.body.slice(0, 300)).toBe(400);
    expect(r.headers['content-type']).toMatch(/^text\/html/);
    expect(message(r.body)).toBe(PANEL_ERRORS.badRequest);
  });
});
