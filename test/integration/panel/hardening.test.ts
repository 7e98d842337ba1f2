import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { FREE_FAILURES } from '../../../src/panel/accounts.ts';
import { ADMIN, AUDITOR, W } from '../../support/http.ts';
import { PanelClient, startPanelService, type PanelService } from '../../support/panel.ts';

/** The panel against a hostile visitor: what a proxy header, odd bytes or a weak password may do. */
let p: PanelService;
beforeAll(async () => {
  // One proxy in front, which appends the address it saw to X-Forwarded-For.
  p = await startPanelService({ TRUST_PROXY: '1' }, { accounts: [ADMIN, AUDITOR] });
});
afterAll(async () => {
  await p?.stop();
});

describe('TRUST_PROXY as a number of hops', () => {
  it('throttles by the address the nearest proxy saw, whatever a client writes to the left of it', async () => {
    const statuses = [];
    for (let i = 0; i < FREE_FAILURES + 2; i++) {
      const c = new PanelClient(p.service, { 'x-forwarded-for': `198.51.100.${i}, 203.0.113.7` });
      statuses.push((await c.signIn('probador@empresa.co', `mala-${i}`)).status);
    }
    expect(statuses).toEqual([...Array<number>(FREE_FAILURES).fill(401), 429, 429]);
  });
});

describe('a NUL byte anywhere in a request', () => {
  it('gets 400 from the panel before and after sign-in, never a 500', async () => {
    const anon = new PanelClient(p.service);
    await anon.get('/panel/ingresar');
    expect((await anon.post('/panel/ingresar', { email: 'a\u0000b@x.co', password: 'lo-que-sea-1234' })).status).toBe(400);
    const c = new PanelClient(p.service);
    expect((await c.signIn(ADMIN)).status).toBe(303);
    const statuses: Record<string, number> = {};
    for (const url of [
      '/panel/trabajador?q=%00',
      '/panel/trabajador/%00',
      `/panel/trabajador/${W.maria}%00`,
      '/panel/auditoria?documento=%00',
      '/panel/auditoria/exportar?documento=%00&formato=csv',
      '/panel/ocupacion?subgerencia=%00',
      '/panel/vacaciones/%00/eliminar',
    ]) {
      statuses[url] = (await c.get(url)).status;
    }
    await c.get(`/panel/trabajador/${W.maria}`);
    for (const [url, form] of [
      [`/panel/trabajador/${W.maria}/vacaciones`, { vacFechaInicio: '2026-12-01\u0000', vacDiasVacaciones: '6', accion: 'reservar' }],
      ['/panel/vacaciones/VAC_1%00/aprobar', {}],
      ['/panel/vacaciones/%00/eliminar', {}],
      ['/panel/vacaciones/%00/interrumpir', { fechaInterrupcion: '2026-12-09', motivo: 'otro' }],
    ] as const) {
      statuses[`POST ${url}`] = (await c.post(url, form)).status;
    }
    for (const [what, status] of Object.entries(statuses)) expect([400, 404], `${what} answered ${status}`).toContain(status);
  });
});
