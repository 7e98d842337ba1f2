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

const text = (s: string) => s.replace(/\s/g, ' ');
const shown = (pesos: number) =>
  new Intl.NumberFormat('es-CO', { style: 'currency', currency: 'COP', maximumFractionDigits: 0 }).format(pesos).replace(/\s/g, ' ');

describe.skipIf(!hasChromium())(
  `Vacaciones colectivas in a real browser${hasChromium() ? '' : ` (skipped: ${NEEDS_CHROMIUM})`}`,
  { timeout: 180_000 },
  () => {
    let srv: TestServer;
    let b: Browser;
    const api = (path: string, form: Record<string, string>) =>
      call(srv.url, path, { key: srv.keys.acceptance!, method: 'POST', form: { emailUserResponsable: ADMIN, ...form } });

    beforeAll(async () => {
      ({ srv, b } = await panelInBrowser());
    }, 240_000);
    afterAll(async () => {
      await b?.close();
      await srv?.stop();
    });

    it('previews a closure with the figures of the API and the art. 187 warning, books it at once, and approves it together', async () => {
      const { page } = b;
      await page.goto(`${srv.url}/panel/colectivas`);
      expect(await page.getByRole('heading', { level: 1 }).innerText()).toBe('Vacaciones colectivas');
      await page.getByLabel('Operaciones').check();
      await page.getByLabel('Fecha de inicio').fill('30/11/2026');
      await page.getByLabel('Días hábiles').fill('6');
      await page.getByRole('button', { name: 'Ver vista previa' }).click();

      const expected = await api('/api/vacaciones/colectivas', {
        subgerenciaId: 'SG-OPS',
        fechaInicio: '2026-11-30',
        dias: '6',
        vista: 'previa',
      });
      expect(expected.status, expected.text).toBe(200);
      const preview = page.locator('#vista-previa');
      const body = text(await preview.innerText());
      // Today is 21 Nov 2026: a start nine days ahead is booked with the law's warning, shown before booking.
      expect(body).toContain('menos de 15 días');
      expect(body).toContain('30 nov 2026');
      expect(body).toContain(shown(expected.body.data.totales.valorTotal));
      const rows = preview.locator('table').filter({ hasText: 'Trabajadores que salen' }).locator('tbody tr');
      await expect(rows.count()).resolves.toBe(expected.body.data.trabajadores.length);
      for (const e of expected.body.data.excluidos) expect(body).toContain(e.documentoAsociado);
      await expectAccessible(page);
      await expectNoStackTrace(page);
      await screenshotsAt(page, 'closures-01-preview');

      await page.getByRole('button', { name: /^Reservar para/ }).click();
      await page.waitForURL(/\/panel\/colectivas\/COL_/);
      const id = decodeURIComponent(page.url().split('/').at(-1)!);
      await expect(page.getByRole('status').innerText()).resolves.toContain(`Vacaciones colectivas ${id} registradas`);
      const detail = text(await page.locator('main').innerText());
      expect(detail).toContain('Programada');
      expect(detail).toContain('Subgerencias SG-OPS');
      const codes = await page.locator('table').filter({ hasText: 'Código PILA' }).locator('tbody code').allInnerTexts();
      expect(codes).toHaveLength(expected.body.data.trabajadores.length);
      await expectAccessible(page);
      await screenshotsAt(page, 'closures-02-booked');

      await page.getByRole('button', { name: /^Aprobar los/ }).click();
      await expect(page.getByRole('status').innerText()).resolves.toContain(`se aprobaron ${codes.length} registros`);
      await expect(page.locator('main').innerText()).resolves.toContain('Aprobada');
      for (const code of codes) {
        const r = await call(srv.url, `/api/vacaciones/registro/${code}`, {
          key: srv.keys.acceptance!,
          query: { emailResponsable: ADMIN },
        });
        expect(r.status, r.text).toBe(200);
        expect(r.body.vacacion.approved).toBe(true);
      }
      // Auditoría shows the closure as one decision, leading to its page.
      await page.goto(`${srv.url}/panel/auditoria`);
      const item = page.getByRole('link', { name: `Del 30 nov 2026, 6 días hábiles, ${codes.length} registros` });
      await expect(item.count()).resolves.toBe(1);
      await expect(page.locator('main').innerText()).resolves.toContain('aprobada, programada el');
      await item.click();
      await expect(page.locator('main').innerText()).resolves.toContain(id);
      // The list shows it once, as one item.
      await page.goto(`${srv.url}/panel/colectivas`);
      await expect(
        page.locator('table').filter({ hasText: 'Vacaciones colectivas programadas' }).locator('tbody tr').count(),
      ).resolves.toBe(1);
    });

    it('says what is wrong with the form in Spanish, naming the field, and books nothing', async () => {
      const { page } = b;
      await page.goto(`${srv.url}/panel/colectivas`);
      await page.getByLabel('Administración').check();
      await page.getByLabel('Fecha de inicio').fill('26/12/2026');
      await page.getByLabel('Días hábiles').fill('6');
      await page.getByRole('button', { name: 'Ver vista previa' }).click();
      const alert = text(await page.getByRole('alert').innerText());
      expect(alert).toContain('Fecha de inicio');
      expect(alert).toContain('no es un día hábil');
      await expect(page.locator('#vista-previa').count()).resolves.toBe(0);
      await expectNoStackTrace(page);
    });

    it('lets an auditor read the closures but not program or decide one', async () => {
      const { page } = b;
      await b.context.clearCookies();
      await setPassword(page, srv.url, await invitePath(srv.env, AUDITOR, ['--rol', 'auditor']), PANEL_PASSWORD);
      await signInAs(page, srv.url, AUDITOR, PANEL_PASSWORD);
      await page.goto(`${srv.url}/panel/colectivas`);
      await expect(page.locator('main').innerText()).resolves.toContain('no programarlas');
      await expect(page.getByRole('button', { name: 'Ver vista previa' }).count()).resolves.toBe(0);
      await page.locator('table a').first().click();
      await expect(page.getByRole('button', { name: /^Aprobar/ }).count()).resolves.toBe(0);
      await expectAccessible(page);
    });
  },
);
