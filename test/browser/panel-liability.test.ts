import ExcelJS from 'exceljs';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { ADMIN, AUDITOR, call } from '../support/http.ts';
import {
  NEEDS_CHROMIUM,
  panelInBrowser,
  expectAccessible,
  expectNoStackTrace,
  hasChromium,
  invitePath,
  screenshotsAt,
  setPassword,
  signInAs,
  type Browser,
} from '../support/browser.ts';
import { PANEL_PASSWORD } from '../support/panel.ts';
import type { TestServer } from '../support/server.ts';

/** "$ 1.423.500" as the panel writes pesos (es-CO, no decimals), spaces of any kind alike. */
const shown = (pesos: number) =>
  new Intl.NumberFormat('es-CO', { style: 'currency', currency: 'COP', maximumFractionDigits: 0 }).format(pesos).replace(/\s/g, ' ');
const text = (s: string) => s.replace(/\s/g, ' ');

describe.skipIf(!hasChromium())(
  `Pasivo in a real browser${hasChromium() ? '' : ` (skipped: ${NEEDS_CHROMIUM})`}`,
  { timeout: 180_000 },
  () => {
    let srv: TestServer;
    let b: Browser;
    const api = (path: string, query: Record<string, string>) =>
      call(srv.url, path, { key: srv.keys.acceptance!, query: { emailResponsable: ADMIN, ...query } });

    beforeAll(async () => {
      ({ srv, b } = await panelInBrowser());
    }, 240_000);
    afterAll(async () => {
      await b?.close();
      await srv?.stop();
    });

    it("puts today's liability on Inicio, as the liability report gives it, linked to the Pasivo page", async () => {
      const { page } = b;
      const owed = await api('/api/vacaciones/pasivo', { alCorte: '2026-11-21' });
      expect(owed.status, owed.text).toBe(200);
      // The home page's figure is kept by the sweep that starts with the service: its first is quick here.
      await expect
        .poll(async () => (await page.goto(`${srv.url}/panel`), text(await page.locator('.cards').innerText())), { timeout: 20_000 })
        .toContain(`${shown(owed.body.data.totales.valor)} de pasivo vacacional hoy`);
      await page.getByRole('link', { name: /de pasivo vacacional hoy/ }).click();
      expect(await page.getByRole('heading', { level: 1 }).innerText()).toBe('Pasivo vacacional');
    });

    it("shows the last month's liability and its movement by subgerencia, the API's figures, with downloads for people", async () => {
      const { page } = b;
      await page.goto(`${srv.url}/panel/pasivo`);
      expect(await page.getByRole('heading', { level: 1 }).innerText()).toBe('Pasivo vacacional');
      // Today is 21 November 2026: the month shown is October's close.
      const close = await api('/api/vacaciones/pasivo', { alCorte: '2026-10-31' });
      expect(close.status, close.text).toBe(200);
      const totals = close.body.data.totales;
      const main = text(await page.locator('main').innerText());
      expect(main).toContain('al cierre del 31 de octubre de 2026');
      expect(main).toContain(`${shown(totals.valor)} de pasivo vacacional`);
      const table = page.locator('table').filter({ hasText: 'Pasivo vacacional por subgerencia' });
      for (const s of totals.porSubgerencia) {
        await expect(
          table
            .locator('tbody tr')
            .filter({ hasText: shown(s.valor) })
            .count(),
        ).resolves.toBeGreaterThan(0);
      }
      await expect(table.locator('tfoot').innerText().then(text)).resolves.toContain(shown(totals.valor));
      const movement = await api('/api/vacaciones/pasivo/movimiento', { periodo: '2026-10' });
      const m = movement.body.data.totales;
      const foot = text(await page.locator('table').filter({ hasText: 'Movimiento del pasivo' }).locator('tfoot').innerText());
      for (const k of ['apertura', 'causado', 'tomado', 'revaluacion', 'cierre']) expect(foot).toContain(shown(m[k]));
      expect(m.cierre).toBe(totals.valor - totals.anticipado);
      await expectAccessible(page);
      await expectNoStackTrace(page);
      await screenshotsAt(page, 'liability-01-october');

      // The Excel download carries Spanish headers and the same total.
      const [download] = await Promise.all([
        page.waitForEvent('download'),
        page.getByRole('link', { name: 'Pasivo por trabajador (Excel)' }).click(),
      ]);
      expect(download.suggestedFilename()).toBe('pasivo-vacaciones-2026-10-31.xlsx');
      const book = new ExcelJS.Workbook();
      await book.xlsx.readFile((await download.path())!);
      const sheet = book.worksheets[0]!;
      const header = sheet.getRow(1).values as unknown[];
      expect(header).toContain('Documento');
      expect(header).toContain('Pasivo');
      const last = sheet.getRow(sheet.rowCount).values as unknown[];
      expect(last).toContain('Total');
      expect(last).toContain(totals.valor);

      // A month that has not ended is a projection; a month that is not one is said so.
      await page.goto(`${srv.url}/panel/pasivo?mes=2026-12`);
      await expect(page.locator('main').innerText()).resolves.toContain('proyección');
      const bad = await page.goto(`${srv.url}/panel/pasivo?mes=2026-13`);
      expect(bad?.status()).toBe(400);
      await expect(page.getByRole('alert').innerText()).resolves.toContain('«2026-13» no es un mes válido');
    });

    it("gives an area head their subgerencias' figures only", async () => {
      const { page } = b;
      await b.context.clearCookies();
      await setPassword(page, srv.url, await invitePath(srv.env, AUDITOR, ['--rol', 'jefe', '--subgerencia', 'SG-OPS']), PANEL_PASSWORD);
      await signInAs(page, srv.url, AUDITOR, PANEL_PASSWORD);
      await page.goto(`${srv.url}/panel/pasivo?mes=2026-10`);
      const ops = await api('/api/vacaciones/pasivo', { alCorte: '2026-10-31', subgerenciaId: 'SG-OPS' });
      const main = text(await page.locator('main').innerText());
      expect(main).toContain(`${shown(ops.body.data.totales.valor)} de pasivo vacacional`);
      const rows = await page.locator('table').first().locator('tbody tr').count();
      expect(rows).toBe(1);
      await screenshotsAt(page, 'liability-02-jefe');
    });
  },
);
