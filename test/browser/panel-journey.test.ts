import type { Frame, Page } from 'playwright-core';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { openDb } from '../../src/db/open.ts';
import { ADMIN, AUDITOR, W } from '../support/http.ts';
import {
  NEEDS_CHROMIUM,
  expectAccessible,
  expectNoStackTrace,
  hasChromium,
  invitePath,
  openBrowser,
  screenshot,
  type Browser,
} from '../support/browser.ts';
import { PANEL_PASSWORD } from '../support/panel.ts';
import { startTestServer, type TestServer } from '../support/server.ts';

/** María's vacation from the reference data: a live, approved record every run has. */
const IMPORTED = 'VAC_1750000000000_a1b2c3d4_deadbeef';

const heading = (page: Page) => page.getByRole('heading', { level: 1 }).innerText();
const path = (page: Page) => new URL(page.url()).pathname + new URL(page.url()).search;

/**
 * Presses Tab until the focused element has this accessible text (a RegExp) or this id (a
 * string): how a person who uses only the keyboard reaches a control.
 */
async function tabTo(page: Page, target: RegExp | string, max = 120): Promise<void> {
  for (let i = 0; i < max; i++) {
    await page.keyboard.press('Tab');
    const focused = await page.evaluate(() => {
      type El = { id: string; textContent: string | null; getAttribute(n: string): string | null };
      const el = (globalThis as unknown as { document: { activeElement: El | null } }).document.activeElement;
      return {
        id: el?.id ?? '',
        // What a screen reader names it: its label when it has one (a scrolling table's box is named
        // after the table's caption, not after all the text inside), else its text.
        text: el ? (el.getAttribute('aria-label') ?? el.textContent ?? '').replace(/\s+/g, ' ').trim() : '',
      };
    });
    if (typeof target === 'string' ? focused.id === target : target.test(focused.text)) return;
  }
  throw new Error(`no element matching ${String(target)} reached with Tab`);
}

describe.skipIf(!hasChromium())(
  `the main journey in a real browser${hasChromium() ? '' : ` (skipped: ${NEEDS_CHROMIUM})`}`,
  { timeout: 180_000 },
  () => {
    let srv: TestServer;
    let b: Browser;
    const invites: string[] = [];

    beforeAll(async () => {
      srv = await startTestServer({
        beforeStart: async (env) => {
          invites.push(await invitePath(env, ADMIN), await invitePath(env, AUDITOR));
          // Someone edits a stored event of Juan's behind the service's back: Verificar finds it.
          const db = await openDb({ databaseUrl: env.DATABASE_URL ?? '', dataDir: env.DATA_DIR ?? '' });
          try {
            await db.query(`UPDATE events SET metadata = metadata || '{"editado": true}' WHERE stream = 'worker-1002' AND revision = 0`);
          } finally {
            await db.close();
          }
        },
      });
      b = await openBrowser();
      // Each person sets a password with their link.
      for (const invite of invites) {
        await b.page.goto(`${srv.url}${invite}`);
        await b.page.getByLabel('Contraseña nueva').fill(PANEL_PASSWORD);
        await b.page.getByLabel('Repita la contraseña').fill(PANEL_PASSWORD);
        await b.page.getByRole('button', { name: 'Guardar contraseña' }).click();
        await b.page.waitForURL(/\/panel\/ingresar/);
      }
    }, 240_000);
    afterAll(async () => {
      await b?.close();
      await srv?.stop();
    });

    it('with the mouse: sign in, find a worker, preview and book, see it in the grid, approve it, step through its audit trail', async () => {
      const { page } = b;
      // 1. Sign in.
      await page.goto(`${srv.url}/`);
      await page.getByLabel('Correo electrónico').fill(ADMIN);
      await page.getByLabel('Contraseña').fill(PANEL_PASSWORD);
      await page.getByRole('button', { name: 'Ingresar' }).click();
      await page.waitForURL(/\/panel$/);
      await screenshot(page, 'journey-01-signed-in');
      await expectAccessible(page);

      // 2. Find a worker by name.
      await page.getByRole('link', { name: 'Trabajador' }).click();
      await page.getByLabel('Documento o nombre').fill('gómez');
      await page.getByRole('button', { name: 'Buscar' }).click();
      await screenshot(page, 'journey-02-search');
      await expectAccessible(page);
      await page.getByRole('link', { name: 'Gómez Restrepo, María Fernanda' }).click();
      expect(await heading(page)).toBe('María Fernanda Gómez Restrepo');
      await expectAccessible(page);

      // 3. Bad input first: a message on the page, never a trace.
      await page.getByLabel('Fecha de inicio').fill('2026-12-05');
      await page.getByLabel('Días hábiles').fill('2');
      await page.getByRole('button', { name: 'Calcular' }).click();
      const problems = await page.getByRole('alert').innerText();
      expect(problems).toContain('no es un día hábil');
      expect(problems).toContain('mínimo de 6 días');
      await expectNoStackTrace(page);
      await screenshot(page, 'journey-03-rules-fail');
      await expectAccessible(page);

      // 4. Preview, then book.
      await page.getByLabel('Fecha de inicio').fill('01/12/2026');
      await page.getByLabel('Días hábiles').fill('6');
      await page.getByRole('button', { name: 'Calcular' }).click();
      await expect(page.locator('#vista-previa').innerText()).resolves.toContain('1 dic 2026 al 9 dic 2026');
      await screenshot(page, 'journey-04-preview');
      await expectAccessible(page);
      await page.getByRole('button', { name: 'Registrar' }).click();
      const booked = await page.getByRole('status').innerText();
      const code = /Código (VAC_[0-9a-f_]+)\./.exec(booked)![1]!;
      await expect(page.locator(`[id="${code}"]`).innerText()).resolves.toContain('Pendiente de aprobación');
      await screenshot(page, 'journey-05-booked');
      await expectAccessible(page);

      // 5. See it in the occupancy grid.
      await page.getByRole('link', { name: 'Ocupación', exact: true }).click();
      await page.waitForURL(/\/panel\/ocupacion$/);
      // Choosing a subgerencia and a month shows them once «Ver» is pressed.
      await page.getByLabel('Subgerencia', { exact: true }).selectOption('SG-OPS');
      await page.getByLabel('Mes', { exact: true }).selectOption('2026-12');
      await page.getByRole('button', { name: 'Ver', exact: true }).click();
      await page.waitForURL(/subgerencia=SG-OPS&mes=2026-12/);
      await expect(page.getByRole('link', { name: /^2 dic 2026: 1 persona de vacaciones/ }).count()).resolves.toBe(1);
      await expect(page.getByRole('link', { name: 'María Fernanda Gómez Restrepo' }).count()).resolves.toBe(1);
      await screenshot(page, 'journey-06-occupancy');
      await expectAccessible(page);

      // 6. Approve it.
      await page.getByRole('link', { name: 'María Fernanda Gómez Restrepo' }).click();
      await page.getByRole('button', { name: /^Aprobar las vacaciones del 1 dic 2026/ }).click();
      await expect(page.getByRole('status').innerText()).resolves.toBe(`Vacaciones ${code} aprobadas.`);
      await expect(page.locator(`[id="${code}"]`).innerText()).resolves.toContain('Aprobada');
      await screenshot(page, 'journey-07-approved');
      await expectAccessible(page);

      // 7. Step through its audit trail.
      await page.locator(`[id="${code}"]`).getByRole('link', { name: 'Ver su auditoría' }).click();
      expect(await heading(page)).toBe('Auditoría');
      const history = await page.locator('table').filter({ hasText: 'Eventos del flujo' }).innerText();
      expect(history).toContain(`Registro de vacaciones ${code}`);
      expect(history).toContain(`Aprobación de ${code}`);
      expect(history).toContain('panel web');
      await expect(page.locator('#estado-titulo').innerText()).resolves.toMatch(/^Estado después del paso \d+ de \d+$/);
      await expect(page.locator('section').innerText()).resolves.toContain('Aprobada');
      await screenshot(page, 'journey-08-audit-last');
      await expectAccessible(page);
      const last = Number(/paso (\d+) de/.exec(await page.locator('#estado-titulo').innerText())![1]);
      await page.getByRole('link', { name: /Paso anterior/ }).click();
      // The step before is a page of its own: read it only once it has replaced this one.
      await page.waitForURL(new RegExp(`paso=${last - 1}\\b`));
      await page.waitForLoadState('load');
      await expect(page.locator('section').innerText()).resolves.toContain('Pendiente de aprobación');
      await screenshot(page, 'journey-09-audit-step-back');
      await expectAccessible(page);

      // Export, both ways.
      const [csv] = await Promise.all([page.waitForEvent('download'), page.getByRole('link', { name: 'Exportar CSV' }).click()]);
      expect(csv.suggestedFilename()).toBe(`auditoria-${W.maria}.csv`);
      const [json] = await Promise.all([page.waitForEvent('download'), page.getByRole('link', { name: 'Exportar JSON' }).click()]);
      const exported = JSON.parse(await streamText(await json.createReadStream()));
      expect(exported.eventos.map((e: { tipo: string }) => e.tipo)).toEqual(
        expect.arrayContaining(['VacationCreated', 'VacationApproved']),
      );
      expect(exported.eventos.at(-1)).toMatchObject({ usuario: ADMIN, origen: 'panel', apiKey: null });
    });

    it('with the keyboard alone: the same journey', async () => {
      const page = await b.context.newPage();
      try {
        // Signed out: the session of the journey above is gone.
        await b.context.clearCookies();
        await page.goto(`${srv.url}/panel/ingresar`);
        await tabTo(page, 'email');
        await page.keyboard.type(ADMIN);
        await tabTo(page, 'password');
        await page.keyboard.type(PANEL_PASSWORD);
        await page.keyboard.press('Enter');
        await page.waitForURL(/\/panel$/);

        await tabTo(page, /^Trabajador$/);
        await page.keyboard.press('Enter');
        await page.waitForURL(/\/panel\/trabajador$/);
        await tabTo(page, 'q');
        await page.keyboard.type(W.juan);
        await page.keyboard.press('Enter');
        await page.waitForURL(new RegExp(`/panel/trabajador/${W.juan}`));
        await screenshot(page, 'keyboard-01-worker');

        await tabTo(page, 'vacFechaInicio', 200);
        await page.keyboard.type('12/01/2027');
        await tabTo(page, 'vacDiasVacaciones');
        await page.keyboard.type('6');
        await tabTo(page, /^Calcular$/);
        await page.keyboard.press('Enter');
        await page.waitForSelector('#vista-previa');
        await screenshot(page, 'keyboard-02-preview');
        await tabTo(page, /^Registrar$/, 200);
        await page.keyboard.press('Enter');
        await page.waitForSelector('[role="status"]');
        const code = /Código (VAC_[0-9a-f_]+)\./.exec(await page.getByRole('status').innerText())![1]!;

        await page.keyboard.press('Tab'); // back to the top of the page
        await tabTo(page, /^Ocupación$/);
        await page.keyboard.press('Enter');
        await page.waitForURL(/\/panel\/ocupacion/);
        // His subgerencia, Operaciones, follows the first one shown (Administración) in the list.
        // Moving through the list with the arrow keys loads nothing (WCAG 3.2.2): «Ver» does.
        const loads: string[] = [];
        const loaded = (frame: Frame) => void (frame === page.mainFrame() && loads.push(frame.url()));
        page.on('framenavigated', loaded);
        await tabTo(page, 'subgerencia');
        await page.keyboard.press('ArrowDown');
        await tabTo(page, /^Ver$/);
        await page.keyboard.press('Enter');
        await page.waitForURL(/subgerencia=SG-OPS/);
        page.off('framenavigated', loaded);
        expect(loads).toHaveLength(1);
        for (const [label, month] of [
          ['diciembre de 2026', '2026-12'],
          ['enero de 2027', '2027-01'],
        ]) {
          await tabTo(page, new RegExp(`${label} →`));
          await page.keyboard.press('Enter');
          await page.waitForURL(new RegExp(`mes=${month}`));
        }
        await expect(page.getByRole('link', { name: /^12 ene 2027: 1 persona de vacaciones/ }).count()).resolves.toBe(1);
        await screenshot(page, 'keyboard-03-occupancy');

        await tabTo(page, /Juan Carlos Rodríguez Pérez/, 300);
        await page.keyboard.press('Enter');
        await page.waitForURL(new RegExp(`/panel/trabajador/${W.juan}`));
        await tabTo(page, /^Aprobar las vacaciones del 12 ene 2027/, 300);
        await page.keyboard.press('Enter');
        await page.waitForSelector('[role="status"]');
        await expect(page.getByRole('status').innerText()).resolves.toBe(`Vacaciones ${code} aprobadas.`);

        await tabTo(page, /^Ver su auditoría$/, 300);
        await page.keyboard.press('Enter');
        await page.waitForURL(/\/panel\/auditoria/);
        await tabTo(page, /Paso anterior/, 200);
        await page.keyboard.press('Enter');
        await page.waitForURL(/paso=/);
        await expect(page.locator('section').innerText()).resolves.toContain('Pendiente de aprobación');
        // The arrow keys step too (the page's script), outside form fields.
        const before = page.url();
        await page.keyboard.press('ArrowRight');
        await page.waitForURL((u) => u.href !== before);
        await expect(page.locator('section').innerText()).resolves.toContain('Aprobada');
        await screenshot(page, 'keyboard-04-audit');
        expect(path(page)).toContain('codigo=');
      } finally {
        await page.close();
      }
    });

    it('every page passes axe; bad addresses and bad input answer with a message', async () => {
      const page = await b.context.newPage();
      try {
        for (const url of [
          '/panel/operacion',
          '/panel/auditoria',
          `/panel/auditoria?documento=${W.maria}`,
          `/panel/auditoria/verificar?documento=${W.maria}`,
          `/panel/trabajador/${W.jorge}`,
          `/panel/trabajador/${W.catalina}`,
          '/panel/ocupacion?subgerencia=SG-ADM&mes=2026-12',
        ]) {
          await page.goto(`${srv.url}${url}`);
          await expectAccessible(page);
          await expectNoStackTrace(page);
        }
        await page.goto(`${srv.url}/panel/ocupacion?subgerencia=NADA&mes=2026-99`);
        await expect(page.getByRole('alert').innerText()).resolves.toContain('no es un mes válido');
        await page.goto(`${srv.url}/panel/trabajador/000`);
        await expect(page.getByRole('alert').innerText()).resolves.toContain('No hay un trabajador con documento 000');
        await screenshot(page, 'errors-01-unknown-worker');
        await expectAccessible(page);
        await page.goto(`${srv.url}/panel/vacaciones/VAC_no_existe/eliminar`);
        await expect(page.getByRole('alert').innerText()).resolves.toContain('No existe un registro');
        await expectNoStackTrace(page);

        // The delete confirmation and the interruption form of a record.
        await page.goto(`${srv.url}/panel/vacaciones/${IMPORTED}/eliminar`);
        await expect(page.getByRole('button', { name: 'Sí, eliminar' }).count()).resolves.toBe(1);
        await expectAccessible(page);
        await page.goto(`${srv.url}/panel/vacaciones/${IMPORTED}/interrumpir`);
        await expect(page.getByLabel('Primer día no disfrutado').count()).resolves.toBe(1);
        await expectAccessible(page);
        // The panel's own 404.
        expect((await page.goto(`${srv.url}/panel/no-existe`))?.status()).toBe(404);
        await expectAccessible(page);
        // Verificar showing a broken chain.
        await page.goto(`${srv.url}/panel/auditoria/verificar?documento=${W.juan}`);
        await expect(page.getByRole('alert').innerText()).resolves.toMatch(/^Alterado/);
        await screenshot(page, 'errors-02-broken-chain');
        await expectAccessible(page);
        // A form whose token was tampered with: the error page.
        await page.goto(`${srv.url}/panel/operacion`);
        await page.locator('form.signout input[name="_csrf"]').evaluate((el) => el.setAttribute('value', 'inventado'));
        await page.getByRole('button', { name: 'Cerrar sesión' }).click();
        await expect(page.getByRole('alert').innerText()).resolves.toContain('El formulario caducó');
        await screenshot(page, 'errors-03-form-refused');
        await expectAccessible(page);
        await expectNoStackTrace(page);

        // Someone without the delete permission asks for the confirmation page: 403.
        await b.context.clearCookies();
        await page.goto(`${srv.url}/panel/ingresar`);
        await page.getByLabel('Correo electrónico').fill(AUDITOR);
        await page.getByLabel('Contraseña').fill(PANEL_PASSWORD);
        await page.getByRole('button', { name: 'Ingresar' }).click();
        await page.waitForURL(/\/panel$/);
        expect((await page.goto(`${srv.url}/panel/vacaciones/${IMPORTED}/eliminar`))?.status()).toBe(403);
        await expect(page.getByRole('alert').innerText()).resolves.toContain('no tiene el permiso');
        await expectAccessible(page);
      } finally {
        await page.close();
      }
    });
  },
);

async function streamText(s: NodeJS.ReadableStream): Promise<string> {
  let out = '';
  for await (const chunk of s) out += String(chunk);
  return out;
}
