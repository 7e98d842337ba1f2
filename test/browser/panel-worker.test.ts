import { readFileSync } from 'node:fs';
import type { Page } from 'playwright-core';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { W } from '../support/http.ts';
import {
  NEEDS_CHROMIUM,
  panelInBrowser,
  expectAccessible,
  expectNoStackTrace,
  hasChromium,
  screenshotsAt,
  type Browser,
} from '../support/browser.ts';
import { type TestServer } from '../support/server.ts';

const worker = (page: Page, base: string, doc: string, query = '') => page.goto(`${base}/panel/trabajador/${doc}${query}`);
const codeIn = async (page: Page) => /Código (?:nuevo )?(VAC_[0-9a-f_]+)\./.exec(await page.getByRole('status').innerText())![1]!;

describe.skipIf(!hasChromium())(
  `the worker page in a real browser${hasChromium() ? '' : ` (skipped: ${NEEDS_CHROMIUM})`}`,
  { timeout: 240_000 },
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

    it('shows the accrual periods with their dates, the balance on a chosen date and a settlement preview', async () => {
      const { page } = b;
      await worker(page, srv.url, W.maria);
      await expect(page.locator('#periodos').innerText()).resolves.toBe('Periodos y saldo hoy');
      const periods = page.locator('table').filter({ hasText: 'Periodos de causación' });
      // Hired on 1 February 2024: earned on 31 January 2025, enforceable a year later, prescribing three years after that.
      await expect(periods.locator('tbody tr').first().innerText()).resolves.toMatch(
        /^1 \(contrato 10001\)\s+1 feb 2024\s+31 ene 2025\s+15\s+10\s+0\s+5\s+31 ene 2026\s+31 ene 2029$/,
      );
      await expect(periods.locator('tbody tr').last().innerText()).resolves.toContain('en curso');

      // The balance on an earlier date, typed day-month-year.
      await page.getByLabel('Saldo a la fecha').fill('31/01/2026');
      await page.getByRole('button', { name: 'Ver el saldo' }).click();
      await expect(page.locator('#periodos').innerText()).resolves.toBe('Periodos y saldo al 31 de enero de 2026');
      await expect(page.getByLabel('Saldo a la fecha').inputValue()).resolves.toBe('31/01/2026');

      // Leaving at the end of the year.
      await page.getByLabel('Fecha de retiro').fill('31/12/2026');
      await page.getByRole('button', { name: 'Ver la liquidación' }).click();
      const settlement = page.locator('section').filter({ hasText: 'Retiro el 31 de diciembre de 2026' });
      await expect(settlement.innerText()).resolves.toMatch(
        /Días pendientes\s+[\d,]+\s+Valor\s+\$\s[\d.]+ \(salario \$\s2\.847\.000, contrato 10001\)/,
      );
      await expectAccessible(page);
      await screenshotsAt(page, 'worker-01-periods-settlement');
      // A date that is none says so.
      await worker(page, srv.url, W.maria, '?retiro=31/02/2026');
      await expect(page.getByRole('alert').innerText()).resolves.toContain('«31/02/2026» no es una fecha');
    });

    it('downloads the worker’s register as CSV and XLSX', async () => {
      const { page } = b;
      await worker(page, srv.url, W.maria);
      const [csv] = await Promise.all([
        page.waitForEvent('download'),
        page.getByRole('link', { name: 'Libro de vacaciones (CSV)' }).click(),
      ]);
      expect(csv.suggestedFilename()).toBe(`libro-vacaciones-${W.maria}-2026-11-21.csv`);
      const text = readFileSync((await csv.path())!, 'utf8');
      expect(text).toContain(W.maria);
      expect(text).toContain('VAC_1750000000000_a1b2c3d4_deadbeef');
      const [xlsx] = await Promise.all([
        page.waitForEvent('download'),
        page.getByRole('link', { name: 'Libro de vacaciones (XLSX)' }).click(),
      ]);
      expect(xlsx.suggestedFilename()).toBe(`libro-vacaciones-${W.maria}-2026-11-21.xlsx`);
      expect(
        readFileSync((await xlsx.path())!)
          .subarray(0, 2)
          .toString(),
      ).toBe('PK');
    });

    it('warns in the preview, before anything is booked, of a start fewer than 15 days ahead (CST art. 187)', async () => {
      const { page } = b;
      await worker(page, srv.url, W.luisa);
      await page.getByLabel('Fecha de inicio').fill('30/11/2026');
      await page.getByLabel('Días hábiles').fill('6');
      await page.getByRole('button', { name: 'Calcular' }).click();
      const notice = page.locator('#avisos');
      await expect(notice.innerText()).resolves.toContain(
        'El inicio (30 nov 2026) está a menos de 15 días de hoy (21 nov 2026): el CST art. 187 pide avisar con 15 días de anticipación.',
      );
      await expectAccessible(page);
      await screenshotsAt(page, 'worker-05-notice');
      // A start far enough ahead carries no notice.
      await page.getByLabel('Fecha de inicio').fill('14/12/2026');
      await page.getByRole('button', { name: 'Calcular' }).click();
      await expect(page.locator('#vista-previa').isVisible()).resolves.toBe(true);
      await expect(notice.count()).resolves.toBe(0);
    });

    it('edits a record not approved, folding the replaced one away', async () => {
      const { page } = b;
      await worker(page, srv.url, W.maria);
      await page.getByLabel('Fecha de inicio').fill('01/12/2026');
      await page.getByLabel('Días hábiles').fill('6');
      await page.getByRole('button', { name: 'Registrar' }).click();
      const first = await codeIn(page);
      await page.getByRole('link', { name: 'Editar o cambiar de fecha las vacaciones del 1 dic 2026 al 9 dic 2026' }).click();
      await expect(page.getByLabel('Fecha de inicio').inputValue()).resolves.toBe('01/12/2026');
      await expect(page.getByLabel('Días hábiles').inputValue()).resolves.toBe('6');
      await expectAccessible(page);
      await screenshotsAt(page, 'worker-02-edit');
      await page.getByLabel('Fecha de inicio').fill('02/12/2026');
      await page.getByRole('button', { name: 'Guardar cambios' }).click();
      await expect(page.getByRole('status').innerText()).resolves.toMatch(
        /^Vacaciones editadas: ahora del 2 dic 2026 al 10 dic 2026, pendientes/,
      );
      const second = await codeIn(page);
      expect(second).not.toBe(first);
      // The replaced record is folded away until asked for.
      await expect(page.locator(`[id="${first}"]`).isVisible()).resolves.toBe(false);
      await page.getByText('Reemplazadas o eliminadas (1)').click();
      await expect(page.locator(`[id="${first}"]`).innerText()).resolves.toContain('Reemplazada por una edición');
      // The PILA code shows its end; the whole code a press away.
      const pila = page.locator(`[id="${second}"] details.pila`).first();
      await expect(pila.locator('summary code').innerText()).resolves.toBe(`…${second.slice(-8)}`);
      await pila.locator('summary').click();
      await expect(pila.innerText()).resolves.toContain(second);
      await expectAccessible(page);
      // An approved record has no edit link, and its edit address refuses.
      await page.getByRole('button', { name: /^Aprobar las vacaciones del 2 dic 2026/ }).click();
      await expect(page.getByRole('link', { name: /^Editar o cambiar de fecha las vacaciones del 2 dic 2026/ }).count()).resolves.toBe(0);
      expect((await page.goto(`${srv.url}/panel/vacaciones/${second}/editar`))?.status()).toBe(409);
    });

    it('books the continuation of an interrupted vacation, naming the interrupted record', async () => {
      const { page } = b;
      await worker(page, srv.url, W.juan);
      await page.getByLabel('Fecha de inicio').fill('17/11/2026');
      await page.getByLabel('Días hábiles').fill('10');
      await page.getByRole('button', { name: 'Registrar' }).click();
      const interrupted = await codeIn(page);
      await page.getByRole('button', { name: /^Aprobar las vacaciones del 17 nov 2026/ }).click();
      await page.getByRole('link', { name: /^Interrumpir las vacaciones del 17 nov 2026/ }).click();
      await page.getByLabel('Primer día no disfrutado').fill('23/11/2026');
      await page.getByRole('button', { name: 'Interrumpir' }).click();
      await expect(page.getByRole('status').innerText()).resolves.toContain('6 días hábiles volvieron al saldo');
      await page.getByLabel('Continúa las vacaciones interrumpidas').selectOption(interrupted);
      await page.getByLabel('Fecha de inicio').fill('14/12/2026');
      await page.getByLabel('Días hábiles').fill('6');
      await page.getByRole('button', { name: 'Registrar' }).click();
      const continuation = await codeIn(page);
      await expect(page.locator(`[id="${continuation}"]`).innerText()).resolves.toContain('Continúa');
      await expectNoStackTrace(page);
      await expectAccessible(page);
      await screenshotsAt(page, 'worker-03-continuation');
    });

    it('offers no booking form where no contract governs', async () => {
      const { page } = b;
      for (const doc of [W.catalina, W.andres]) {
        await worker(page, srv.url, doc);
        await expect(page.getByLabel('Fecha de inicio').count()).resolves.toBe(0);
        await expect(page.locator('main').innerText()).resolves.toContain(
          'No se pueden registrar vacaciones: ningún contrato del trabajador está vigente hoy.',
        );
        await expectAccessible(page);
      }
      await screenshotsAt(page, 'worker-04-no-contract');
    });
  },
);
