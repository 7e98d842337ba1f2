import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { ADMIN, call } from '../support/http.ts';
import {
  NEEDS_CHROMIUM,
  panelInBrowser,
  expectAccessible,
  expectNoStackTrace,
  hasChromium,
  screenshotsAt,
  type Browser,
} from '../support/browser.ts';
import type { TestServer } from '../support/server.ts';

const text = (s: string) => s.replace(/\s/g, ' ');
const dayMonthYear = (d: string) => `${d.slice(8, 10)}/${d.slice(5, 7)}/${d.slice(0, 4)}`;

describe.skipIf(!hasChromium())(
  `Plan anual in a real browser${hasChromium() ? '' : ` (skipped: ${NEEDS_CHROMIUM})`}`,
  { timeout: 180_000 },
  () => {
    let srv: TestServer;
    let b: Browser;

    beforeAll(async () => {
      ({ srv, b } = await panelInBrowser());
    }, 240_000);
    afterAll(async () => {
      await b?.close();
      await srv?.stop();
    });

    it('books nothing of the plan when a line is refused, saying which and why, and keeps the start HR wrote', async () => {
      const { page } = b;
      await page.goto(`${srv.url}/panel/plan?subgerencia=SG-OPS&anio=2027`);
      const starts = page.locator('#plan-reserva input[name="vacFechaInicio"]');
      const shown = await starts.count();
      expect(shown).toBeGreaterThan(0);
      const proposed = await starts.first().inputValue();
      await starts.first().fill('11/01/2027');
      await page.getByRole('button', { name: /^Reservar el plan/ }).click();
      const refused = page.locator('#rechazadas');
      await expect(refused.innerText()).resolves.toContain('No se reservó nada');
      await expect(refused.innerText()).resolves.toContain('11 ene 2027 no es un día hábil');
      // The start HR wrote stays in its field, to be mended.
      await expect(starts.first().inputValue()).resolves.toBe('11/01/2027');
      await expectAccessible(page);
      await expectNoStackTrace(page);
      await screenshotsAt(page, 'plan-02-rechazado');

      // Nothing was booked: every line is still proposed, the one moved too (the test below books it).
      const api = await call(srv.url, '/api/vacaciones/plan', {
        key: srv.keys.acceptance!,
        query: { emailResponsable: ADMIN, anio: '2027', subgerenciaId: 'SG-OPS' },
      });
      expect(api.body.data.lineas).toHaveLength(shown);
      expect(api.body.data.lineas.map((l: { vacFechaInicio: string }) => dayMonthYear(l.vacFechaInicio))).toContain(proposed);
    });

    it("shows the API's plan of a subgerencia, and books a line at a date HR moved, through the worker's preview", async () => {
      const { page } = b;
      const api = await call(srv.url, '/api/vacaciones/plan', {
        key: srv.keys.acceptance!,
        query: { emailResponsable: ADMIN, anio: '2027', subgerenciaId: 'SG-OPS' },
      });
      expect(api.status, api.text).toBe(200);
      const plan = api.body.data;
      expect(plan.lineas.length).toBeGreaterThan(0);

      await page.goto(`${srv.url}/panel/plan`);
      expect(await page.getByRole('heading', { level: 1 }).innerText()).toBe('Plan anual');
      await page.getByLabel('Subgerencia').selectOption('SG-OPS');
      await page.getByLabel('Año').selectOption('2027');
      await page.getByRole('button', { name: 'Ver el plan' }).click();
      const cards = text(await page.locator('.cards').innerText());
      expect(cards).toContain(`${plan.totales.colocados} trabajadores con fecha propuesta`);
      expect(cards).toContain(`${plan.totales.sinColocar} sin colocar`);
      const rows = page.locator('table').filter({ hasText: 'Plan de Operaciones en 2027' }).locator('tbody tr');
      await expect(rows.count()).resolves.toBe(plan.lineas.length);
      await expectAccessible(page);
      await expectNoStackTrace(page);
      await screenshotsAt(page, 'plan-01-subgerencia');

      // HR moves a line to a holiday: the worker's page says why not, in the booking's words.
      const line = [...plan.lineas].sort((x: { vacFechaFinal: string }, y: { vacFechaFinal: string }) =>
        x.vacFechaFinal < y.vacFechaFinal ? -1 : 1,
      )[0];
      const row = rows.filter({ hasText: line.nombre });
      const field = () => page.getByLabel(`Inicio para ${line.nombre}`);
      const [d, m, y] = (await field().inputValue()).split('/');
      expect(`${y}-${m}-${d}`).toBe(line.vacFechaInicio);
      await field().fill('11/01/2027');
      await row.getByRole('button', { name: 'Revisar' }).click();
      await page.waitForURL(new RegExp(`/panel/trabajador/${line.documentoAsociado}/vacaciones$`));
      await expect(page.getByRole('alert').innerText()).resolves.toContain('11 ene 2027 no es un día hábil');

      // Then a business day later than proposed: previewed with its figures, then booked.
      await page.goBack();
      const moved = new Date(`${line.vacFechaInicio}T00:00:00Z`);
      do moved.setUTCDate(moved.getUTCDate() + 1);
      while ([0, 6].includes(moved.getUTCDay()) || moved.toISOString().startsWith('2027-01-11'));
      const iso = moved.toISOString().slice(0, 10);
      await field().fill(`${iso.slice(8, 10)}/${iso.slice(5, 7)}/${iso.slice(0, 4)}`);
      await row.getByRole('button', { name: 'Revisar' }).click();
      await page.waitForURL(new RegExp(`/panel/trabajador/${line.documentoAsociado}/vacaciones$`));
      const preview = text(await page.locator('#vista-previa').innerText());
      expect(preview).toContain(`${line.vacDiasVacaciones} hábiles`);
      await page.getByRole('button', { name: 'Registrar' }).click();
      await expect(page.getByRole('status').first().innerText()).resolves.toContain('Vacaciones registradas');
      const booked = await call(srv.url, '/api/vacaciones', {
        key: srv.keys.acceptance!,
        query: { emailResponsable: ADMIN, numeroDocumento: line.documentoAsociado },
      });
      expect(booked.body.vacaciones.map((v: { startDate: string }) => v.startDate)).toContain(iso);
    });
  },
);
