import type { Page } from 'playwright-core';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { ADMIN, W } from '../support/http.ts';
import {
  NEEDS_CHROMIUM,
  panelInBrowser,
  expectAccessible,
  expectNoStackTrace,
  hasChromium,
  screenshotsAt,
  signInAs,
  type Browser,
} from '../support/browser.ts';
import { PANEL_PASSWORD } from '../support/panel.ts';
import { ROSA, panelExtraFile } from '../support/panel-corners.ts';
import { runCli, type TestServer } from '../support/server.ts';

/** Juan's record from the reference data: imported, never approved. */
const JUANS_PENDING = 'VAC_1760000000000_11223344_0badf00d';

const heading = (page: Page) => page.getByRole('heading', { level: 1 }).innerText();
const section = (page: Page, id: string) => page.locator(`h2#${id} ~ *`).first();

describe.skipIf(!hasChromium())(
  `Inicio in a real browser${hasChromium() ? '' : ` (skipped: ${NEEDS_CHROMIUM})`}`,
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

    it('opens on what needs doing: who is away, what waits for approval (approved from there), whose periods pile up or prescribe', async () => {
      const { page } = b;
      await signInAs(page, srv.url, ADMIN, PANEL_PASSWORD);
      expect(await heading(page)).toBe('Inicio');
      // The company's periods are figured by a sweep that starts with the service: its first is quick here.
      await expect
        .poll(async () => (await page.reload(), page.locator('main').innerText()), { timeout: 20_000 })
        .toContain('Periodos de toda la empresa revisados el ');
      await expect(page.locator('main').innerText()).resolves.toContain('Hoy es 21 de noviembre de 2026.');
      await expect(section(page, 'hoy').innerText()).resolves.toBe('Nadie está de vacaciones hoy.');
      await expectAccessible(page);
      await screenshotsAt(page, 'home-01-nobody-away');

      // Juan's imported record waits for approval; nobody is away yet.
      const pending = page.locator('table').filter({ hasText: 'Vacaciones por aprobar' });
      await expect(pending.innerText()).resolves.toContain('Juan Carlos Rodríguez Pérez');
      await expect(pending.getByRole('link', { name: 'Juan Carlos Rodríguez Pérez' }).getAttribute('href')).resolves.toBe(
        `/panel/trabajador/${W.juan}#${JUANS_PENDING}`,
      );

      // Rosa holds five earned periods with days pending, and the one of 2023 prescribes within 90 days.
      const periods = page.locator('main');
      await expect(periods.innerText()).resolves.toContain(`${ROSA.name}: 5 periodos con días pendientes (máximo 2)`);
      await expect(periods.innerText()).resolves.toContain(`${ROSA.name}: prescriben el 31 de enero de 2027`);
      await expect(page.getByRole('link', { name: ROSA.name }).first().getAttribute('href')).resolves.toBe(
        `/panel/trabajador/${ROSA.document}#periodos`,
      );
      // Her periods' years to be enjoyed passed without 6 continuous days enjoyed (CST art. 190).
      await expect(periods.innerText()).resolves.toMatch(new RegExp(`${ROSA.name}: \\d+ periodos sin 6 días continuos disfrutados`));
      // Nobody else in the fixture, whose contracts began in 2024, is named.
      await expect(page.locator('ul.links li').count()).resolves.toBe(3);

      // María books a week that includes today (a Saturday): she is away today and this week.
      await page.goto(`${srv.url}/panel/trabajador/${W.maria}`);
      await page.getByLabel('Fecha de inicio').fill('2026-11-17');
      await page.getByLabel('Días hábiles').fill('6');
      await page.getByRole('button', { name: 'Registrar' }).click();
      await page.waitForSelector('[role="status"]');
      await page.getByRole('link', { name: 'Inicio' }).click();
      await page.waitForURL(/\/panel$/);
      const today = page.locator('table').filter({ hasText: 'de vacaciones hoy' });
      await expect(today.innerText()).resolves.toMatch(
        /María Fernanda Gómez Restrepo\s+Operaciones\s+17 nov 2026\s+24 nov 2026\s+Pendiente/,
      );
      await expect(page.locator('table').filter({ hasText: 'de vacaciones esta semana' }).innerText()).resolves.toContain('María Fernanda');
      await expect(page.locator('.card').first().innerText()).resolves.toMatch(/^1\s+de vacaciones hoy$/);
      await expectAccessible(page);
      await screenshotsAt(page, 'home-02-away-and-pending');

      // Approved from the home page: back on it, with the news, María now approved and off the list.
      await page
        .getByRole('button', { name: 'Aprobar las vacaciones de María Fernanda Gómez Restrepo del 17 nov 2026 al 24 nov 2026' })
        .click();
      await page.waitForURL(/\/panel$/);
      await expect(page.getByRole('status').innerText()).resolves.toMatch(/^Vacaciones VAC_\w+ aprobadas\.$/);
      await expect(today.innerText()).resolves.toContain('Aprobada');
      await expect(pending.innerText()).resolves.not.toContain('María Fernanda');
      await expectAccessible(page);
      await expectNoStackTrace(page);
      await screenshotsAt(page, 'home-03-approved');
    });

    it('refuses an approval posted without the form token, and keeps the record pending', async () => {
      const cookies = await b.context.cookies();
      const r = await fetch(`${srv.url}/panel/vacaciones/${JUANS_PENDING}/aprobar`, {
        method: 'POST',
        redirect: 'manual',
        headers: {
          'content-type': 'application/x-www-form-urlencoded',
          cookie: cookies.map((c) => `${c.name}=${c.value}`).join('; '),
        },
        body: new URLSearchParams({ volver: '/panel' }).toString(),
      });
      expect(r.status).toBe(403);
      await b.page.goto(`${srv.url}/panel`);
      await expect(b.page.locator('table').filter({ hasText: 'Vacaciones por aprobar' }).innerText()).resolves.toContain('Juan Carlos');
    });
  },
);
