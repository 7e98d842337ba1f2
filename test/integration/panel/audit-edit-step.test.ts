import { afterAll, beforeAll, expect, it } from 'vitest';
import { ADMIN, W } from '../../support/http.ts';
import { PanelClient, startPanelService, type PanelService } from '../../support/panel.ts';

let p: PanelService;
let admin: PanelClient;

/** The visible text of a page, tags taken out and spaces folded. */
const text = (body: string) => body.replace(/<[^>]+>/g, ' ').replace(/\s+/g, ' ');
const codeIn = (body: string, label: string) => new RegExp(`${label} (VAC_[0-9a-f_]+)\\.`).exec(text(body))?.[1];

beforeAll(async () => {
  p = await startPanelService({}, { accounts: [ADMIN] });
  admin = new PanelClient(p.service);
  expect((await admin.signIn(ADMIN)).status).toBe(303);
});
afterAll(async () => {
  await p?.stop();
});

it("shows an edit in Auditoría as one step of the worker's history, its three events under «Detalle técnico»", async () => {
  await admin.get(`/panel/trabajador/${W.maria}`);
  const booked = await admin.post(`/panel/trabajador/${W.maria}/vacaciones`, {
    vacFechaInicio: '01/12/2026',
    vacDiasVacaciones: '6',
    accion: 'registrar',
  });
  const old = codeIn((await admin.get(booked.location!)).body, 'Código')!;
  await admin.get(`/panel/vacaciones/${old}/editar`);
  const edited = await admin.post(`/panel/vacaciones/${old}/editar`, { vacFechaInicio: '02/12/2026', vacDiasVacaciones: '7' });
  expect(edited.status).toBe(303);
  const fresh = codeIn((await admin.get(edited.location!)).body, 'Código nuevo')!;

  const page = await admin.get(`/panel/auditoria?documento=${W.maria}`);
  const table = page.body.slice(page.body.indexOf('Cada paso de sus vacaciones'), page.body.indexOf('Detalle técnico'));
  const history = text(table);
  expect(history).toContain(`Edición de ${old}: ahora ${fresh}`);
  expect(history).not.toContain('Inicio de edición');
  expect(history).not.toContain(`Baja de ${old}`);
  const steps = [...table.matchAll(/aria-label="Ver el estado después del paso/g)].length;
  expect(steps).toBeGreaterThan(0);
  expect(text(page.body)).toContain(`Estado después del paso ${steps} de ${steps}`);
  const detail = text(page.body.slice(page.body.indexOf('Detalle técnico')));
  expect(detail).toMatch(new RegExp(`Paso ${steps}: evento VacationEditStarted .*, evento VacationDeleted .*, evento VacationCreated`));

  // Asked for either record, the edit is the same one step.
  for (const code of [old, fresh]) {
    const one = text((await admin.get(`/panel/auditoria?documento=${W.maria}&codigo=${code}`)).body);
    expect(one).toContain(`Edición de ${old}: ahora ${fresh}`);
  }
});
