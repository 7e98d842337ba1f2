import type { Page } from 'playwright-core';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { W } from '../support/http.ts';
import { NEEDS_CHROMIUM, panelInBrowser, expectAccessible, hasChromium, screenshotsAt, type Browser } from '../support/browser.ts';
import { type TestServer } from '../support/server.ts';

const MARIA = 'María Fernanda Gómez Restrepo';
const JUAN = 'Juan Carlos Rodríguez Pérez';

/** Books through the worker page's form, as a person would. */
async function book(page: Page, base: string, doc: string, start: string, days: number): Promise<void> {
  await page.goto(`${base}/panel/trabajador/${doc}`);
  await page.getByLabel('Fecha de inicio').fill(start);
  await page.getByLabel('Días hábiles').fill(String(days));
  await page.getByRole('button', { name: 'Registrar' }).click();
  await expect(page.getByRole('status').innerText()).resolves.toContain('Vacaciones registradas');
}

type Styled = { getPropertyValue(p: string): string };
const style = (page: Page, selector: string, prop: string) =>
  page
    .locator(selector)
    .first()
    .evaluate(
      (el, p) => (globalThis as unknown as { getComputedStyle(e: unknown): Styled }).getComputedStyle(el).getPropertyValue(p),
      prop,
    );

describe.skipIf(!hasChromium())(
  `Calendario in a real browser${hasChromium() ? '' : ` (skipped: ${NEEDS_CHROMIUM})`}`,
  { timeout: 240_000 },
  () => {
    let srv: TestServer;
    let b: Browser;

    beforeAll(async () => {
      ({ srv, b } = await panelInBrowser());
      // María pending from 1 December, Juan approved from 2 December: Operaciones (at most 2 away) is full 2–9 December.
      await book(b.page, srv.url, W.maria, '2026-12-01', 6);
      await book(b.page, srv.url, W.juan, '2026-12-02', 6);
      await b.page.getByRole('button', { name: /^Aprobar las vacaciones del 2 dic 2026/ }).click();
      await expect(b.page.getByRole('status').innerText()).resolves.toContain('aprobadas');
    }, 300_000);
    afterAll(async () => {
      await b?.close();
      await srv?.stop();
    });

    it('draws a line per person and a bar per vacation, pending and approved apart by colour and pattern, holidays, weekends and full days marked', async () => {
      const { page } = b;
      await page.getByRole('link', { name: 'Calendario' }).click();
      await page.waitForURL(/\/panel\/calendario$/);
      // Today's month, 21 November: nobody is away, and today is marked in the head.
      await expect(page.locator('#cal-resumen').innerText()).resolves.toBe('Nadie de la empresa está de vacaciones en noviembre de 2026.');
      await page.getByRole('link', { name: 'diciembre de 2026 →' }).click();
      await page.waitForURL(/mes=2026-12/);
      await expect(page.locator('#cal-resumen').innerText()).resolves.toBe(
        '2 personas de vacaciones en diciembre de 2026; se muestran 1 a 2.',
      );
      const lines = page.locator('.lines > li:not(.unit)');
      await expect(lines.locator('.who').allInnerTexts()).resolves.toEqual([MARIA, JUAN]);
      await expect(page.locator('.unit h2').allInnerTexts()).resolves.toEqual(['Operaciones']);

      // Each bar says whose, which days and where it stands; its span covers its days.
      const maria = lines.nth(0).locator('a.bar');
      await expect(maria.locator('.visually-hidden').innerText()).resolves.toBe(
        `${MARIA}: del 1 dic 2026 al 9 dic 2026, 6 días hábiles, pendiente de aprobación`,
      );
      await expect(maria.getAttribute('class')).resolves.toBe('bar pendiente gs-1 ge-10');
      await expect(lines.nth(1).locator('a.bar').getAttribute('class')).resolves.toBe('bar aprobada gs-2 ge-11');
      // Not by colour alone: the pending bar is striped and dashed, the approved one solid.
      expect(await style(page, 'a.bar.pendiente', 'background-image')).toContain('repeating-linear-gradient');
      expect(await style(page, 'a.bar.pendiente', 'border-top-style')).toBe('dashed');
      expect(await style(page, 'a.bar.aprobada', 'background-image')).toBe('none');
      expect(await style(page, 'a.bar.aprobada', 'border-top-style')).toBe('solid');

      // 8 and 25 December are holidays; Saturdays and Sundays are shaded; the full days are named.
      const head = page.locator('.line.head .day');
      await expect(head.nth(7).getAttribute('class')).resolves.toContain('hol');
      await expect(head.nth(24).getAttribute('class')).resolves.toContain('hol');
      await expect(head.nth(4).getAttribute('class')).resolves.toContain('wk');
      await expect(head.nth(2).getAttribute('class')).resolves.not.toMatch(/wk|hol/);
      await expect(page.locator('.limit-days').innerText()).resolves.toBe(
        'Días en el límite: 2 dic 2026, 3 dic 2026, 4 dic 2026, 5 dic 2026, 6 dic 2026, 7 dic 2026, 8 dic 2026, 9 dic 2026.',
      );
      await expect(page.locator('.unit .count.full').count()).resolves.toBe(8);
      await expect(page.locator('.unit .hint').innerText()).resolves.toBe('2 personas de vacaciones; máximo 2 personas a la vez');

      // Details on hover.
      await expect(maria.locator('.tip').isVisible()).resolves.toBe(false);
      await maria.hover();
      await expect(maria.locator('.tip').isVisible()).resolves.toBe(true);
      await expectAccessible(page);
      await screenshotsAt(page, 'calendar-01-month');

      // Back on today's month, today is marked.
      await page.getByRole('link', { name: '← noviembre de 2026' }).click();
      await expect(page.locator('.line.head .day.today').count()).resolves.toBe(0);
    });

    it('moves with the keyboard from bar to bar, showing each one’s details on focus', async () => {
      const { page } = b;
      await page.goto(`${srv.url}/panel/calendario?mes=2026-12`);
      await page.locator('a.bar').first().focus();
      type Focus = { activeElement: { querySelector(s: string): { textContent: string } | null } | null };
      const focused = () =>
        page.evaluate(
          () => (globalThis as unknown as { document: Focus }).document.activeElement?.querySelector('.visually-hidden')?.textContent ?? '',
        );
      expect(await focused()).toContain(MARIA);
      await expect(page.locator('a.bar').first().locator('.tip').isVisible()).resolves.toBe(true);
      await page.keyboard.press('ArrowDown');
      expect(await focused()).toContain(JUAN);
      await expect(page.locator('a.bar').nth(1).locator('.tip').isVisible()).resolves.toBe(true);
      await page.keyboard.press('ArrowUp');
      expect(await focused()).toContain(MARIA);
      await page.keyboard.press('Enter');
      await page.waitForURL(new RegExp(`/panel/trabajador/${W.maria}#VAC_`));
    });

    it('filters by subgerencias and shows a quarter', async () => {
      const { page } = b;
      await page.goto(`${srv.url}/panel/calendario?mes=2026-12`);
      await page.getByLabel('Tecnología').check();
      await page.getByRole('button', { name: 'Ver', exact: true }).click();
      await page.waitForURL(/sg=SG-TEC/);
      await expect(page.locator('#cal-resumen').innerText()).resolves.toBe(
        'Nadie de estas subgerencias está de vacaciones en diciembre de 2026.',
      );
      await page.getByLabel('Operaciones').check();
      await page.getByLabel('Periodo', { exact: true }).selectOption('trimestre');
      await page.getByRole('button', { name: 'Ver', exact: true }).click();
      await page.waitForURL(/vista=trimestre/);
      expect(new URL(page.url()).searchParams.getAll('sg')).toEqual(['SG-OPS', 'SG-TEC']);
      // The quarter of December: October to December, 92 days, today (21 November) marked.
      await expect(page.locator('.line.head .day').count()).resolves.toBe(92);
      await expect(
        page
          .locator('.line.head .day')
          .nth(31 + 20)
          .getAttribute('class'),
      ).resolves.toContain('today');
      await expect(page.locator('#cal-resumen').innerText()).resolves.toContain('el trimestre de octubre de 2026 a diciembre de 2026');
      await expect(page.getByLabel('Operaciones').isChecked()).resolves.toBe(true);
      await expectAccessible(page);
      await screenshotsAt(page, 'calendar-02-quarter');
      // A subgerencia that does not exist is named, and the rest shown.
      await page.goto(`${srv.url}/panel/calendario?sg=NADA&mes=2026-13`);
      await expect(page.getByRole('alert').innerText()).resolves.toBe(
        'No existe la subgerencia «NADA». «2026-13» no es un mes válido; se muestra noviembre de 2026.',
      );
      await expectAccessible(page);
    });
  },
);
