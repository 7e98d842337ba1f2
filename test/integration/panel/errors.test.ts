import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { PANEL_CSP } from '../../../src/panel/index.ts';
import { ADMIN } from '../../support/http.ts';
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
