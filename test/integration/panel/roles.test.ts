import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { PanelAccountError, acceptInvite, createInvite, listAccounts } from '../../../src/panel/accounts.ts';
import { ADMIN, AUDITOR, W } from '../../support/http.ts';
import { PANEL_PASSWORD, PanelClient, message, startPanelService, type PanelService } from '../../support/panel.ts';

const JEFA = 'jefa.operaciones@empresa.co';

let p: PanelService;
let admin: PanelClient;
let auditor: PanelClient;
let jefa: PanelClient;

/** The visible text of a page, tags taken out and spaces folded. */
const text = (body: string) => body.replace(/<[^>]+>/g, ' ').replace(/\s+/g, ' ');
const codeIn = (body: string) => /Código (VAC_[0-9a-f_]+)\./.exec(text(body))?.[1];

async function book(c: PanelClient, doc: string, start: string, days: number) {
  await c.get(`/panel/trabajador/${doc}`);
  const r = await c.post(`/panel/trabajador/${doc}/vacaciones`, {
    vacFechaInicio: start,
    vacDiasVacaciones: String(days),
    accion: 'registrar',
  });
  expect(r.status, text(r.body).slice(text(r.body).indexOf('No se pueden'), text(r.body).indexOf('No se pueden') + 300)).toBe(303);
  const page = await c.get(r.location!);
  return codeIn(page.body)!;
}

/** Whether the record shows as approved in the administrator's view of its worker. */
async function approved(doc: string, code: string): Promise<boolean> {
  const page = await admin.get(`/panel/trabajador/${doc}`);
  const item = page.body.slice(page.body.indexOf(`id="${code}"`));
  return /Aprobada<\/dt>/.test(item.slice(0, item.indexOf('</li>')));
}

async function invite(email: string, access: Parameters<typeof createInvite>[3]) {
  const made = await createInvite(p.service.db, email, new Date(), access);
  await acceptInvite(p.service.db, made.token, PANEL_PASSWORD);
}

beforeAll(async () => {
  p = await startPanelService(
    {},
    {
      accounts: [ADMIN],
      fixture: (data) => {
        // Paula's contract (SG-ADM) gets an end date, so that another subgerencia has a vacation to approve.
        for (const c of data.contratos as { asociadoId: number; fechaFin: string | null }[])
          if (c.asociadoId === 1007) c.fechaFin = '2027-12-31';
        (data.usuarios as unknown[]).push({
          id: 9,
          email: JEFA,
          nombre: 'Jefa de Operaciones',
          administrador: true,
          permisos: ['vacaciones:eliminar'],
        });
      },
    },
  );
  await invite(AUDITOR, { role: 'auditor', units: [] });
  await invite(JEFA, { role: 'jefe', units: ['SG-OPS'] });
  admin = new PanelClient(p.service);
  auditor = new PanelClient(p.service);
  jefa = new PanelClient(p.service);
  for (const [c, email] of [
    [admin, ADMIN],
    [auditor, AUDITOR],
    [jefa, JEFA],
  ] as const) {
    expect((await c.signIn(email)).status).toBe(303);
  }
});
afterAll(async () => {
  await p?.stop();
});

describe('panel invite --rol', () => {
  it('refuses a jefe without subgerencias, an unknown subgerencia, and subgerencias for another role', async () => {
    await expect(createInvite(p.service.db, JEFA, new Date(), { role: 'jefe', units: [] })).rejects.toThrow(PanelAccountError);
    await expect(createInvite(p.service.db, JEFA, new Date(), { role: 'jefe', units: ['SG-NADA'] })).rejects.toThrow(/SG-NADA/);
    await expect(createInvite(p.service.db, AUDITOR, new Date(), { role: 'auditor', units: ['SG-OPS'] })).rejects.toThrow(/--subgerencia/);
  });

  it('lists each account with its role and, for a jefe, their subgerencias', async () => {
    const accounts = await listAccounts(p.service.db);
    expect(accounts.map((a) => [a.email, a.role, a.units])).toEqual(
      expect.arrayContaining([
        [ADMIN, 'administrador', []],
        [AUDITOR, 'auditor', []],
        [JEFA, 'jefe', ['SG-OPS']],
      ]),
    );
  });
});

describe('auditor', () => {
  it('reads a worker and downloads the register, without any form that changes data', async () => {
    const page = await auditor.get(`/panel/trabajador/${W.maria}`);
    expect(page.status).toBe(200);
    expect(text(page.body)).toContain('Auditor');
    expect(page.body).not.toContain('Calcular y registrar vacaciones');
    expect(page.body).not.toContain('/aprobar"');
    expect((await auditor.get(`/panel/trabajador/${W.maria}/libro.xlsx`)).status).toBe(200);
    expect((await auditor.get(`/panel/auditoria?documento=${W.maria}`)).status).toBe(200);
  });

  it('is refused a forged booking, approval, deletion and interruption, which change nothing', async () => {
    const code = await book(admin, W.luisa, '2026-11-17', 6);
    await auditor.get('/panel');
    const booking = await auditor.post(`/panel/trabajador/${W.luisa}/vacaciones`, {
      vacFechaInicio: '2026-12-14',
      vacDiasVacaciones: '2',
      accion: 'registrar',
    });
    expect(booking.status).toBe(403);
    expect(message(booking.body)).toContain('auditor');
    for (const action of ['aprobar', 'eliminar', 'interrumpir']) {
      const r = await auditor.post(`/panel/vacaciones/${code}/${action}`, {});
      expect(r.status, action).toBe(403);
    }
    expect((await auditor.get(`/panel/vacaciones/${code}/editar`)).status).toBe(403);
    expect(await approved(W.luisa, code)).toBe(false);
    const list = await admin.get(`/panel/trabajador/${W.luisa}`);
    expect(list.body).toContain(`id="${code}"`);
    expect(list.body).not.toContain('14 dic 2026');
  });
});

describe('jefe de área', () => {
  it("sees their subgerencia's workers with an approve button and no booking form; another subgerencia's worker is refused", async () => {
    const own = await jefa.get(`/panel/trabajador/${W.maria}`);
    expect(own.status).toBe(200);
    expect(own.body).not.toContain('Calcular y registrar vacaciones');
    const other = await jefa.get(`/panel/trabajador/${W.paula}`);
    expect(other.status).toBe(403);
    expect(message(other.body)).toContain('no pertenece a las subgerencias a su cargo');
    expect((await jefa.get(`/panel/trabajador/${W.paula}/libro.csv`)).status).toBe(403);
    const audit = await jefa.get(`/panel/auditoria?documento=${W.paula}`);
    expect(text(audit.body)).not.toContain('Historia');
  });

  it("approves their subgerencia's vacation and is refused a forged approval of another's, which stays pending", async () => {
    const own = await book(admin, W.juan, '2026-12-01', 6);
    const other = await book(admin, W.paula, '2026-12-01', 6);
    const page = await jefa.get(`/panel/trabajador/${W.juan}`);
    expect(page.body).toContain(`/panel/vacaciones/${own}/aprobar`);
    expect((await jefa.post(`/panel/vacaciones/${own}/aprobar`, {})).status).toBe(303);
    expect(await approved(W.juan, own)).toBe(true);
    const forged = await jefa.post(`/panel/vacaciones/${other}/aprobar`, {});
    expect(forged.status).toBe(403);
    expect(await approved(W.paula, other)).toBe(false);
  });

  it('is refused booking and deleting, even in their own subgerencia', async () => {
    const code = await book(admin, W.maria, '2027-01-12', 6);
    await jefa.get('/panel');
    const booking = await jefa.post(`/panel/trabajador/${W.maria}/vacaciones`, {
      vacFechaInicio: '2026-12-14',
      vacDiasVacaciones: '2',
      accion: 'registrar',
    });
    expect(booking.status).toBe(403);
    expect((await jefa.post(`/panel/vacaciones/${code}/eliminar`, {})).status).toBe(403);
    expect((await admin.get(`/panel/trabajador/${W.maria}`)).body).toContain(`id="${code}"`);
  });
});
