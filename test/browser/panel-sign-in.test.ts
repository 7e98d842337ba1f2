import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { ADMIN, AUDITOR } from '../support/http.ts';
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
import { startTestServer, type TestServer } from '../support/server.ts';

const PASSWORD = 'vacaciones-de-prueba-1';

describe.skipIf(!hasChromium())(
  `the panel in a real browser: invitation, sign-in, sign-out${hasChromium() ? '' : ` (skipped: ${NEEDS_CHROMIUM})`}`,
  { timeout: 90_000 },
  () => {
    let srv: TestServer;
    let b: Browser;
    const invites: Record<string, string> = {};

    beforeAll(async () => {
      srv = await startTestServer({
        // On PGlite the CLI cannot open the database while the server holds it: invite first.
        beforeStart: async (env) => {
          invites.admin = await invitePath(env, ADMIN);
          invites.auditor = await invitePath(env, AUDITOR);
        },
      });
      b = await openBrowser();
    }, 120_000);
    afterAll(async () => {
      await b?.close();
      await srv?.stop();
    });

    it('the service root leads to the panel, which asks to sign in', async () => {
      const { page } = b;
      await page.goto(`${srv.url}/`);
      expect(new URL(page.url()).pathname).toBe('/panel/ingresar');
      await expect(page.getByRole('heading', { level: 1 }).innerText()).resolves.toBe('Ingresar al panel');
      expect(await page.locator('html').getAttribute('lang')).toBe('es');
      await screenshot(page, 'sign-in-01-form');
      await expectAccessible(page);
    });

    it('an invitation link sets the password once; a short or mismatched one is refused on the page', async () => {
      const { page } = b;
      await page.goto(`${srv.url}${invites.admin}`);
      await expect(page.getByRole('heading', { level: 1 }).innerText()).resolves.toBe('Crear contraseña');
      await expectAccessible(page);
      await page.getByLabel('Contraseña nueva').fill('corta');
      await page.getByLabel('Repita la contraseña').fill('corta');
      await page.getByRole('button', { name: 'Guardar contraseña' }).click();
      await expect(page.getByRole('alert').innerText()).resolves.toContain('al menos 12 caracteres');
      await screenshot(page, 'sign-in-02-invitation-refused');
      await expectAccessible(page);
      await page.getByLabel('Contraseña nueva').fill(PASSWORD);
      await page.getByLabel('Repita la contraseña').fill(`${PASSWORD}x`);
      await page.getByRole('button', { name: 'Guardar contraseña' }).click();
      await expect(page.getByRole('alert').innerText()).resolves.toContain('no coincide');
      await expectNoStackTrace(page);
      await page.getByLabel('Contraseña nueva').fill(PASSWORD);
      await page.getByLabel('Repita la contraseña').fill(PASSWORD);
      await page.getByRole('button', { name: 'Guardar contraseña' }).click();
      expect(new URL(page.url()).pathname).toBe('/panel/ingresar');
      await expect(page.getByRole('status').innerText()).resolves.toContain('Contraseña guardada');
      await screenshot(page, 'sign-in-03-password-set');

      await page.goto(`${srv.url}${invites.admin}`);
      await expect(page.getByRole('alert').innerText()).resolves.toContain('no es válido');
      await expectAccessible(page);
    });

    it('a wrong password and an unknown e-mail get the same words, which name neither part', async () => {
      const { page } = b;
      const attempt = async (email: string, password: string) => {
        await page.goto(`${srv.url}/panel/ingresar`);
        await page.getByLabel('Correo electrónico').fill(email);
        await page.getByLabel('Contraseña').fill(password);
        await page.getByRole('button', { name: 'Ingresar' }).click();
        return page.getByRole('alert').innerText();
      };
      const wrongPassword = await attempt(ADMIN, 'no-es-la-clave-123');
      await screenshot(page, 'sign-in-04-wrong-password');
      await expectNoStackTrace(page);
      const unknownEmail = await attempt('nadie@empresa.co', PASSWORD);
      const notYetInvited = await attempt(AUDITOR, PASSWORD);
      expect(wrongPassword).toBe('Correo o contraseña incorrectos.');
      expect(unknownEmail).toBe(wrongPassword);
      expect(notYetInvited).toBe(wrongPassword);
      await expectAccessible(page);
    });

    it('signs in with the keyboard alone, reaches Operación, and signs out', async () => {
      const { page } = b;
      await page.goto(`${srv.url}/panel/operacion`);
      expect(new URL(page.url()).pathname).toBe('/panel/ingresar');
      await page.getByLabel('Correo electrónico').focus();
      await page.keyboard.type(ADMIN);
      await page.keyboard.press('Tab');
      await page.keyboard.type(PASSWORD);
      await page.keyboard.press('Enter');
      await page.waitForURL(/\/panel\/operacion$/);
      await expect(page.getByRole('heading', { level: 1 }).innerText()).resolves.toBe('Operación');
      await expect(page.locator('main').innerText()).resolves.toContain('La base de datos y el almacén de eventos responden.');
      await expect(page.getByRole('row', { name: /Registros de vacaciones/ }).innerText()).resolves.toMatch(/en marcha/);
      await screenshot(page, 'sign-in-05-operacion');
      await expectAccessible(page);

      const cookies = await b.context.cookies(`${srv.url}/panel/operacion`);
      const session = cookies.find((c) => c.name === 'vacaciones_panel')!;
      expect(session).toMatchObject({ httpOnly: true, sameSite: 'Strict', path: '/panel', secure: false });

      await page.getByRole('button', { name: 'Cerrar sesión' }).click();
      expect(new URL(page.url()).pathname).toBe('/panel/ingresar');
      await page.goto(`${srv.url}/panel/operacion`);
      expect(new URL(page.url()).pathname).toBe('/panel/ingresar');
      await screenshot(page, 'sign-in-06-signed-out');
    });

    it('a page that does not exist says so in Spanish, without a trace', async () => {
      const { page } = b;
      const r = await page.goto(`${srv.url}/panel/no-existe`);
      expect(r?.status()).toBe(404);
      await expect(page.getByRole('heading', { level: 1 }).innerText()).resolves.toBe('Página no encontrada');
      await expectNoStackTrace(page);
    });
  },
);
