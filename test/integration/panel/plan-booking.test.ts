import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { acceptInvite, createInvite } from '../../../src/panel/accounts.ts';
import { ADMIN, AUDITOR } from '../../support/http.ts';
import { PANEL_PASSWORD, PanelClient, message, startPanelService, type PanelService } from '../../support/panel.ts';
import { dataset } from '../../support/people.ts';

let p: PanelService;
let admin: PanelClient;
let auditor: PanelClient;

beforeAll(async () => {
  p = await startPanelService(
    {},
    {
      accounts: [ADMIN],
      // Three more workers of Operaciones who owe days in 2027, beside the fixture's, and one hired
      // in October 2026 whose first period is earned only in 2027.
      fixture: (data) => {
        const more = dataset([
          ...[7001, 7002, 7003].map((id) => ({ id, unit: 'SG-OPS', start: '2024-06-01', end: null })),
          { id: 7004, unit: 'SG-OPS', start: '2026-10-01', end: null },
        ]);
        data.asociados.push(...more.asociados);
        data.contratos.push(...more.contratos);
        data.nomina.push(...more.nomina);
      },
    },
  );
  const made = await createInvite(p.service.db, AUDITOR, new Date(), { role: 'auditor', units: [] });
  await acceptInvite(p.service.db, made.token, PANEL_PASSWORD);
  admin = new PanelClient(p.service);
  auditor = new PanelClient(p.service);
  expect((await admin.signIn(ADMIN)).status).toBe(303);
  expect((await auditor.signIn(AUDITOR)).status).toBe(303);
});
afterAll(async () => {
  await p?.stop();
});

const PLAN = '/panel/plan?subgerencia=SG-OPS&anio=2027';
const created = async () =>
  Number((await p.service.db.query<{ n: string }>(`SELECT count(*)::text AS n FROM events WHERE type = 'VacationCreated'`)).rows[0]!.n);

/** The visible text of a page, tags taken out and spaces folded. */
const text = (body: string) =>
  body
    .replace(/<[^>]+>/g, ' ')
    .replace(/&nbsp;/g, ' ')
    .replace(/\s+/g, ' ');

/** The lines of the plan's form as the page gives them: document, days and start (DD/MM/AAAA) of each row. */
function linesOf(body: string) {
  const rows = [
    ...body.matchAll(
      /name="numeroDocumento" value="([^"]+)">\s*<input type="hidden" name="vacDiasVacaciones" value="(\d+)">\s*<input name="vacFechaInicio"[^>]*value="([^"]+)"/g,
    ),
  ];
  return rows.map((m) => ({ doc: m[1]!, days: m[2]!, start: m[3]! }));
}

const formOf = (lines: { doc: string; days: string; start: string }[]): [string, string][] => [
  ['anio', '2027'],
  ['subgerencia', 'SG-OPS'],
  ...lines.flatMap((l): [string, string][] => [
    ['numeroDocumento', l.doc],
    ['vacDiasVacaciones', l.days],
    ['vacFechaInicio', l.start],
  ]),
];

describe('Plan anual: «Reservar el plan»', () => {
  it("reviews one line of the plan's form on the worker's page, at the start HR wrote", async () => {
    const lines = linesOf((await admin.get(PLAN)).body);
    expect(lines.length).toBeGreaterThanOrEqual(2);
    const moved = lines.map((l, i) => (i === 1 ? { ...l, start: '11/01/2027' } : l));
    const r = await admin.post(`/panel/trabajador/${lines[1]!.doc}/vacaciones`, [...formOf(moved), ['accion', 'calcular']]);
    expect(r.status).toBe(422);
    expect(text(r.body)).toContain('11 ene 2027 no es un día hábil');
  });

  it('leaves out of the booking a line whose days are earned later in the year, saying from when it can be booked', async () => {
    const page = await admin.get(PLAN);
    expect(page.status).toBe(200);
    const row = text(page.body).match(/[^.]*se reserva cuando se causen los días, desde el (\d{1,2} \w{3} 2027)/);
    expect(row, "the new hire's line and its note").not.toBeNull();
    const form = linesOf(page.body);
    const hire = dataset([{ id: 7004, unit: 'SG-OPS', start: '2026-10-01', end: null }]).asociados[0]!.numeroDocumento;
    expect(page.body).toContain(`/panel/trabajador/${hire}`);
    expect(form.map((l) => l.doc)).not.toContain(hire);
    expect(text(page.body)).toContain(`Reservar el plan (${form.length === 1 ? 'una línea' : `${form.length} líneas`})`);
  });

  it('shows the art. 187 notice of a start fewer than 15 days away before booking, and books only once confirmed', async () => {
    const [line] = linesOf((await admin.get(PLAN)).body);
    // Today is 21 Nov 2026: a start on 30 Nov gives 9 days' notice.
    const soon = [{ ...line!, start: '30/11/2026' }];
    const before = await created();
    const warned = await admin.post('/panel/plan/reservar', [...formOf(soon), ['accion', 'reservar']]);
    expect(warned.status).toBe(200);
    const notice = text(/<div class="flash flash-warning" role="status" id="avisos">([\s\S]*?)<\/div>/.exec(warned.body)?.[1] ?? '');
    expect(notice).toContain('Puede reservar el plan, pero tenga en cuenta');
    expect(notice).toMatch(/15 días/);
    expect(text(warned.body)).toContain('Confirmar la reserva');
    expect(await created()).toBe(before);
    const confirmed = await admin.post('/panel/plan/reservar', [...formOf(soon), ['accion', 'confirmar']]);
    expect(confirmed.status, text(confirmed.body).slice(0, 500)).toBe(303);
    expect(await created()).toBe(before + 1);
  });

  it('books nothing when a line is refused, naming it with the reason and keeping the starts written; then books every line', async () => {
    const page = await admin.get(PLAN);
    expect(text(page.body)).toContain('Reservar el plan');
    const lines = linesOf(page.body);
    const moved = lines.map((l, i) => (i === 0 ? { ...l, start: '11/01/2027' } : l));
    const nothing = await created();
    const refused = await admin.post('/panel/plan/reservar', [...formOf(moved), ['accion', 'reservar']]);
    expect(refused.status, text(refused.body).slice(0, 500)).toBe(422);
    const alert = text(/<div class="flash flash-error" role="alert" id="rechazadas">([\s\S]*?)<\/div>/.exec(refused.body)?.[1] ?? '');
    expect(alert).toContain('No se reservó nada');
    expect(alert).toContain(`(${lines[0]!.doc}): La fecha de inicio 11 ene 2027 no es un día hábil`);
    expect(linesOf(refused.body)[0]!.start).toBe('11/01/2027');
    expect(await created()).toBe(nothing);
    expect(linesOf((await admin.get(PLAN)).body)).toEqual(lines);

    const bad = await admin.post('/panel/plan/reservar', [...formOf(moved.map((l, i) => (i === 1 ? { ...l, start: '31/02/2027' } : l)))]);
    expect(bad.status).toBe(400);
    expect(text(bad.body)).toContain('Fecha de inicio debe ser una fecha válida');

    const before = await created();
    const booked = await admin.post('/panel/plan/reservar', [...formOf(lines), ['accion', 'reservar']]);
    expect(booked.status, text(booked.body).slice(0, 800)).toBe(303);
    expect(booked.location).toBe(PLAN);
    const after = await admin.get(PLAN);
    expect(message(after.body)).toContain(`Plan reservado: se registraron ${lines.length} vacaciones, pendientes de aprobación.`);
    expect(await created()).toBe(before + lines.length);
  });

  it('offers the booking only to a role that changes data, and refuses a forged post', async () => {
    const page = await auditor.get(PLAN);
    expect(page.status).toBe(200);
    expect(text(page.body)).not.toContain('Reservar el plan');
    const forged = await auditor.post('/panel/plan/reservar', formOf([{ doc: '1020307007', days: '6', start: '01/02/2027' }]));
    expect(forged.status).toBe(403);
  });
});
