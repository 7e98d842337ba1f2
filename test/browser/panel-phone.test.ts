import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { ADMIN, W } from '../support/http.ts';
import {
  NEEDS_CHROMIUM,
  panelInBrowser,
  expectAccessible,
  expectNoStackTrace,
  expectTouchTargets,
  hasChromium,
  screenshotsAt,
  signInAs,
  type Browser,
} from '../support/browser.ts';
import { PANEL_PASSWORD } from '../support/panel.ts';
import { type TestServer } from '../support/server.ts';

/** María's vacation from the reference data: a live, approved record every run has. */
const IMPORTED = 'VAC_1750000000000_a1b2c3d4_deadbeef';

/** Every page of the panel in one of its states, as its address. */
const PAGES: [name: string, path: string][] = [
  ['inicio', '/panel'],
  ['calendario', '/panel/calendario?mes=2026-12'],
  ['ocupacion', '/panel/ocupacion?subgerencia=SG-OPS&mes=2026-12'],
  ['buscar', '/panel/trabajador?q=g'],
  ['trabajador', `/panel/trabajador/${W.maria}`],
  ['trabajador-sin-contrato', `/panel/trabajador/${W.catalina}`],
  ['interrumpir', `/panel/vacaciones/${IMPORTED}/interrumpir`],
  ['eliminar', `/panel/vacaciones/${IMPORTED}/eliminar`],
  ['auditoria', '/panel/auditoria'],
  ['auditoria-trabajador', `/panel/auditoria?documento=${W.maria}`],
  ['auditoria-verificar', `/panel/auditoria/verificar?documento=${W.maria}`],
  ['operacion', '/panel/operacion'],
];

describe.skipIf(!hasChromium())(`the panel on a phone${hasChromium() ? '' : ` (skipped: ${NEEDS_CHROMIUM})`}`, { timeout: 300_000 }, () => {
  let srv: TestServer;
  let b: Browser;

  beforeAll(async () => {
    ({ srv, b } = await panelInBrowser({ signIn: false }));
  }, 240_000);
  afterAll(async () => {
    await b?.close();
    await srv?.stop();
  });

  it('the sign-in page fits 390 px, with targets a finger can hit', async () => {
    await b.page.goto(`${srv.url}/panel/ingresar`);
    await screenshotsAt(b.page, 'phone-ingresar');
    await b.page.setViewportSize({ width: 390, height: 900 });
    await expectTouchTargets(b.page);
    await b.page.setViewportSize({ width: 1280, height: 900 });
  });

  it('no page scrolls sideways at 390 px (wide tables scroll in their own box), every target is 44 px high, axe finds nothing', async () => {
    const { page } = b;
    await signInAs(page, srv.url, ADMIN, PANEL_PASSWORD);
    // A booking previewed: the worker page's widest state.
    await page.goto(`${srv.url}/panel/trabajador/${W.maria}`);
    await page.getByLabel('Fecha de inicio').fill('01/12/2026');
    await page.getByLabel('Días hábiles').fill('6');
    await page.getByRole('button', { name: 'Calcular' }).click();
    await expect(page.locator('#vista-previa').innerText()).resolves.toContain('1 dic 2026 al 9 dic 2026');
    // What was typed stays as it was typed.
    await expect(page.getByLabel('Fecha de inicio').inputValue()).resolves.toBe('01/12/2026');
    await screenshotsAt(page, 'phone-trabajador-vista-previa');
    for (const [name, path] of PAGES) {
      await page.goto(`${srv.url}${path}`);
      await expectNoStackTrace(page);
      await screenshotsAt(page, `phone-${name}`);
      await page.setViewportSize({ width: 390, height: 900 });
      await expectTouchTargets(page);
      await expectAccessible(page);
      await page.setViewportSize({ width: 1280, height: 900 });
    }
  });
});
