import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { workerStream } from '../../../src/events/streams.ts';
import { PANEL_CSP } from '../../../src/panel/index.ts';
import { ADMIN, W } from '../../support/http.ts';
import { PanelClient, message, startPanelService, type PanelService } from '../../support/panel.ts';

let p: PanelService;
let admin: PanelClient;

beforeAll(async () => {
  p = await startPanelService({}, { accounts: [ADMIN] });
  admin = new PanelClient(p.service);
  expect((await admin.signIn(ADMIN)).status).toBe(303);
});
afterAll(async () => {
  await p?.stop();
});

describe('addresses the router refuses', () => {
  it.each([
    ['malformed', '/panel/trabajador/%E0%A4%A', 400, 'La dirección no es válida'],
    ['malformed, in capitals', '/PANEL/vacaciones/%E0%A4%A/eliminar', 400, 'La dirección no es válida'],
    ['too long', `/panel/trabajador/${'1'.repeat(600)}`, 414, 'La dirección es demasiado larga'],
  ])('under /panel (%s) get the panel page, with its CSP', async (_label, url, status, words) => {
    const r = await admin.get(url);
    expect(r.status).toBe(status);
    expect(r.headers['content-type']).toMatch(/^text\/html/);
    expect(r.headers['content-security-policy']).toBe(PANEL_CSP);
    expect(message(r.body)).toContain(words);
    expect(r.body).toContain('<html lang="es">');
    expect(r.body).not.toMatch(/FST_|Error|at .*\.ts/);
  });

  it.each([
    ['/api/vacaciones/registro/%E0%A4%A', 400, 'La ruta solicitada no es válida'],
    [`/api/vacaciones/registro/${'1'.repeat(600)}`, 414, 'La ruta solicitada es demasiado larga'],
  ])('elsewhere keep the JSON envelope (%s)', async (url, status, words) => {
    const r = await p.service.app.inject({ url });
    expect(r.statusCode).toBe(status);
    expect(r.json()).toEqual({ success: false, statusCode: status, message: words });
    expect(r.headers['content-security-policy']).toBeUndefined();
  });
});

describe('a form posted without its CSRF token, or with a forged one', () => {
  const codeOf = (location: string | undefined) => /#(VAC_[0-9a-f_]+)$/.exec(location ?? '')![1]!;
  /** The worker's stream as stored: what a refused form must leave as it was. */
  const history = async (workerId: number) => (await p.service.store.readStream(workerStream(workerId))).map((e) => e.type);

  async function book(doc: string, start: string) {
    await admin.get(`/panel/trabajador/${doc}`);
    const r = await admin.post(`/panel/trabajador/${doc}/vacaciones`, {
      vacFechaInicio: start,
      vacDiasVacaciones: '6',
      accion: 'registrar',
    });
    expect(r.status).toBe(303);
    return codeOf(r.location);
  }

  /** Posts the form twice, with a made-up token and with none: each refused with the page that says so. */
  async function refusedBoth(url: string, form: Record<string, string> = {}) {
    for (const token of ['inventado', '']) {
      await admin.get('/panel/operacion');
      const r = await admin.post(url, { ...form, _csrf: token });
      expect(r.status, `${url} with ${token ? 'a forged' : 'no'} token`).toBe(403);
      expect(message(r.body)).toContain('El formulario caducó o no salió de este panel');
    }
  }

  it('is refused for booking, and books nothing', async () => {
    const before = await history(1002);
    await refusedBoth(`/panel/trabajador/${W.juan}/vacaciones`, {
      vacFechaInicio: '2027-01-12',
      vacDiasVacaciones: '6',
      accion: 'registrar',
    });
    expect(await history(1002)).toEqual(before);
    // The same form with its token books them.
    await book(W.juan, '2027-01-12');
    expect(await history(1002)).toEqual([...before, 'VacationCreated']);
  });

  it('is refused for approving and for deleting, which leave the record as it was', async () => {
    const code = await book(W.maria, '2026-12-01');
    const before = await history(1001);
    await refusedBoth(`/panel/vacaciones/${code}/aprobar`);
    await refusedBoth(`/panel/vacaciones/${code}/eliminar`);
    expect(await history(1001)).toEqual(before);
  });

  it('is refused for interrupting, which leaves the vacation whole', async () => {
    const code = await book(W.luisa, '2026-11-17');
    await admin.get(`/panel/trabajador/${W.luisa}`);
    expect((await admin.post(`/panel/vacaciones/${code}/aprobar`, {})).status).toBe(303);
    const before = await history(1003);
    expect(before.at(-1)).toBe('VacationApproved');
    await refusedBoth(`/panel/vacaciones/${code}/interrumpir`, { fechaInterrupcion: '2026-11-20', motivo: 'licencia' });
    expect(await history(1003)).toEqual(before);
  });

  it('is refused for signing out, which leaves the session open', async () => {
    await refusedBoth('/panel/salir');
    expect((await admin.get('/panel/operacion')).status).toBe(200);
  });
});
