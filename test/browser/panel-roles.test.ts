import type { Page } from 'playwright-core';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { AUDITOR, W } from '../support/http.ts';
import {
  NEEDS_CHROMIUM,
  expectAccessible,
  expectNoStackTrace,
  hasChromium,
  invitePath,
  panelInBrowser,
  screenshotsAt,
  setPassword,
  signInAs,
  type Browser,
} from '../support/browser.ts';
import { PANEL_PASSWORD } from '../support/panel.ts';
import { panelExtraFile } from '../support/panel-corners.ts';
import { runCli, type TestServer } from '../support/server.ts';

/** Juan's record from the extra reference data (SG-OPS): imported, never approved. */
const JUANS_PENDING = 'VAC_1760000000000_11223344_0badf00d';

const heading = (page: Page) => page.getByRole('heading', { level: 1 }).innerText();

/** A form posted as a page of the panel would post it: the session's cookies and the page's CSRF token. */
async function forgedPost(b: Browser, base: string, path: string, form: Record<string, string>): Promise<number> {
  const token = await b.page.locator('input[name="_csrf"]').first().getAttribute('value');
  const cookies = await b.context.cookies();
  const r = await fetch(`${base}${path}`, {
    method: 'POST',
    redirect: 'manual',
    headers: { 'content-type': 'application/x-www-form-urlencoded', cookie: cookies.map((c) => `${c.name}=${c.value}`).join('; ') },
    body: new URLSearchParams({ _csrf: token ?? '', ...form }).toString(),
  });
  return r.status;
}

describe.skipIf(!hasChromium())(
  `Roles in a real browser${hasChromium() ? '' : ` (skipped: ${NEEDS_CHROMIUM})`}`,
  { timeout: 180_000 },
  () => {
    let srv: TestServer;
    let b: Browser;

    beforeAll(async () => {
      ({ srv, b } = await panelInBrowser({
        signIn: false,
        beforeStart: async (env) => {
          const r = await runCli(env, ['import', panelExtraFile()]);
          if (r.code !== 0) throw new Error(r.stderr);
        },
      }));
    }, 240_000);
    afterAll(async () => {
      await b?.close();
      await srv?.stop();
    });

    it('an auditor reads everything and sees no form that changes data; a forged approval is refused and changes nothing', async () => {
      const { page } = b;
      await setPassword(page, srv.url, await invitePath(srv.env, AUDITOR, ['--rol', 'auditor']), PANEL_PASSWORD);
      await signInAs(page, srv.url, AUDITOR, PANEL_PASSWORD);
      await expect(page.locator('header').innerText()).resolves.toContain('Auditor');
      await page.goto(`${srv.url}/panel/trabajador/${W.juan}`);
      await expect(page.getByRole('heading', { name: 'Calcular y registrar vacaciones' }).count()).resolves.toBe(0);
      await expect(page.getByRole('button', { name: /^Aprobar/ }).count()).resolves.toBe(0);
      await expect(page.getByRole('link', { name: /Libro de vacaciones \(XLSX\)/ }).count()).resolves.toBe(1);
      await expectAccessible(page);
      await screenshotsAt(page, 'roles-01-auditor-worker');

      expect(await forgedPost(b, srv.url, `/panel/vacaciones/${JUANS_PENDING}/aprobar`, {})).toBe(403);
      await page.goto(`${srv.url}/panel`);
      await expect(page.locator('table').filter({ hasText: 'Vacaciones por aprobar' }).innerText()).resolves.toContain('Juan Carlos');
      await expect(page.getByRole('button', { name: /^Aprobar/ }).count()).resolves.toBe(0);
    });

    it("a jefe de área is refused another subgerencia's worker, and approves their own from the home page", async () => {
      const { page } = b;
      // The role changes with a new invitation: first a jefe of SG-ADM, then of SG-OPS (Juan's).
      await b.context.clearCookies();
      await setPassword(page, srv.url, await invitePath(srv.env, AUDITOR, ['--rol', 'jefe', '--subgerencia', 'SG-ADM']), PANEL_PASSWORD);
      await signInAs(page, srv.url, AUDITOR, PANEL_PASSWORD);
      await expect(page.locator('header').innerText()).resolves.toContain('Jefe de área');
      await expect(page.locator('main').innerText()).resolves.not.toContain('Juan Carlos');
      await page.goto(`${srv.url}/panel/trabajador/${W.juan}`);
      expect(await heading(page)).toBe('Acceso denegado');
      await expect(page.getByRole('alert').innerText()).resolves.toContain('no pertenece a las subgerencias a su cargo');
      await expectAccessible(page);
      await expectNoStackTrace(page);
      await screenshotsAt(page, 'roles-02-jefe-refused');
      expect(await forgedPost(b, srv.url, `/panel/vacaciones/${JUANS_PENDING}/aprobar`, { volver: '/panel' })).toBe(403);

      await b.context.clearCookies();
      await setPassword(page, srv.url, await invitePath(srv.env, AUDITOR, ['--rol', 'jefe', '--subgerencia', 'SG-OPS']), PANEL_PASSWORD);
      await signInAs(page, srv.url, AUDITOR, PANEL_PASSWORD);
      const pending = page.locator('table').filter({ hasText: 'Vacaciones por aprobar' });
      await expect(pending.innerText()).resolves.toContain('Juan Carlos');
      await expectAccessible(page);
      await screenshotsAt(page, 'roles-03-jefe-home');
      await pending.getByRole('button', { name: /^Aprobar las vacaciones de Juan Carlos/ }).click();
      await expect(page.getByRole('status').innerText()).resolves.toBe(`Vacaciones ${JUANS_PENDING} aprobadas.`);
      await page.goto(`${srv.url}/panel/trabajador/${W.juan}`);
      await expect(page.getByRole('heading', { name: 'Calcular y registrar vacaciones' }).count()).resolves.toBe(0);
      await screenshotsAt(page, 'roles-04-jefe-worker');
    });
  },
);
