import { existsSync, mkdirSync, mkdtempSync, readFileSync, rmSync } from 'node:fs';
import { createRequire } from 'node:module';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { chromium, type BrowserContext, type Page } from 'playwright-core';
import { expect } from 'vitest';
import { ROOT, runCli, startTestServer, type TestServer } from './server.ts';
import { ADMIN } from './http.ts';
import { PANEL_PASSWORD } from './panel.ts';

/** Debian's chromium package: `.ci/run` installs it when it is missing. */
export const CHROMIUM = '/usr/bin/chromium';
export const hasChromium = () => existsSync(CHROMIUM);
export const NEEDS_CHROMIUM = `needs ${CHROMIUM} (apt-get install -y chromium)`;

/** Where each step's screenshot is kept (git ignores it). */
export const SCREENSHOTS = join(ROOT, 'test-results', 'panel');

/** Flags for a closed network: nothing of the browser's own reaches out. */
const FLAGS = [
  '--headless',
  '--no-sandbox',
  '--disable-gpu',
  '--disable-quic',
  '--no-first-run',
  '--disable-background-networking',
  '--disable-component-update',
  '--disable-sync',
  // The browser's own words (date fields, its messages) in the panel's language.
  '--lang=es-CO',
];

export interface Browser {
  context: BrowserContext;
  page: Page;
  close(): Promise<void>;
}

/**
 * Chromium with a fresh profile (--user-data-dir is the persistent context's directory), in the
 * locale and time zone of the people who use the panel.
 */
export async function openBrowser(): Promise<Browser> {
  const profile = mkdtempSync(join(tmpdir(), 'vac-chromium-'));
  const context = await chromium.launchPersistentContext(profile, {
    executablePath: CHROMIUM,
    headless: true,
    // A busy shared machine can take long to start a browser: this bound only catches a hang.
    timeout: 120_000,
    args: FLAGS,
    locale: 'es-CO',
    timezoneId: 'America/Bogota',
    viewport: { width: 1280, height: 900 },
  });
  const page = context.pages()[0] ?? (await context.newPage());
  return {
    context,
    page,
    async close() {
      await context.close().catch(() => {});
      rmSync(profile, { recursive: true, force: true });
    },
  };
}

export async function screenshot(page: Page, name: string): Promise<void> {
  mkdirSync(SCREENSHOTS, { recursive: true });
  await page.screenshot({ path: join(SCREENSHOTS, `${name}.png`), fullPage: true });
}

const AXE_SOURCE = readFileSync(createRequire(import.meta.url).resolve('axe-core/axe.min.js'), 'utf8');

/**
 * axe-core's rules on the page as it stands: no violation of serious or critical impact. The
 * script goes in through the DevTools protocol, which the page's CSP does not govern.
 */
export async function expectAccessible(page: Page): Promise<void> {
  const loaded = await page.evaluate(() => typeof (globalThis as { axe?: unknown }).axe !== 'undefined');
  if (!loaded) await page.evaluate(AXE_SOURCE);
  const violations = await page.evaluate(async () => {
    const axe = (
      globalThis as unknown as {
        axe: {
          run(
            ctx: unknown,
            opts: unknown,
          ): Promise<{ violations: { id: string; impact: string; help: string; nodes: { target: unknown }[] }[] }>;
        };
      }
    ).axe;
    const r = await axe.run((globalThis as unknown as { document: unknown }).document, { resultTypes: ['violations'] });
    return r.violations.map((v) => ({ id: v.id, impact: v.impact, help: v.help, targets: v.nodes.map((n) => JSON.stringify(n.target)) }));
  });
  const bad = violations.filter((v) => v.impact === 'serious' || v.impact === 'critical');
  expect(bad, `${page.url()}: ${JSON.stringify(bad, null, 1)}`).toEqual([]);
}

/** What no page may ever show a person: the inside of a failure. */
export async function expectNoStackTrace(page: Page): Promise<void> {
  const text = await page.locator('body').innerText();
  expect(text).not.toMatch(/\bat .+\.(ts|js):\d+|Error:|stack|node_modules|TypeError|ReferenceError/);
}

/** The path of the one-time link `vacaciones panel invite` prints on its last line (`role`: `--rol` and its options). */
export async function invitePath(env: NodeJS.ProcessEnv, email: string, role: string[] = []): Promise<string> {
  const r = await runCli(env, ['panel', 'invite', email, ...role, '--url', 'http://panel.invalid']);
  if (r.code !== 0) throw new Error(`panel invite ${email} failed (${r.code}): ${r.stderr}`);
  const link = r.stdout.trim().split('\n').at(-1)!;
  return new URL(link).pathname;
}

/** Widths the panel is looked at: a desk and a phone. */
export const WIDTHS = [1280, 390] as const;

/**
 * The page at each width: a full-page screenshot kept as an artefact (`name-1280.png`,
 * `name-390.png`), and at the phone's width no sideways scrolling of the page itself.
 */
export async function screenshotsAt(page: Page, name: string): Promise<void> {
  const before = page.viewportSize();
  try {
    for (const width of WIDTHS) {
      await page.setViewportSize({ width, height: 900 });
      await screenshot(page, `${name}-${width}`);
      const wide = await page.evaluate(
        () => (globalThis as unknown as { document: { documentElement: { scrollWidth: number } } }).document.documentElement.scrollWidth,
      );
      // What sticks out, named in the failure: the innermost elements whose right edge passes the screen's.
      const out = await page.evaluate((w) => {
        type El = { children: { length: number }; getBoundingClientRect(): { right: number }; outerHTML: string };
        const doc = (globalThis as unknown as { document: { querySelectorAll(s: string): El[] } }).document;
        return [...doc.querySelectorAll('body *')]
          .filter((el) => el.getBoundingClientRect().right > w + 1 && el.children.length === 0)
          .slice(0, 5)
          .map((el) => el.outerHTML.slice(0, 160));
      }, width);
      expect(wide, `${name} at ${width} px is ${wide} px wide: ${out.join('\n')}`).toBeLessThanOrEqual(width);
    }
  } finally {
    if (before) await page.setViewportSize(before);
  }
}

/** Sets the password of an invitation in the browser, as the person would with their link. */
export async function setPassword(page: Page, base: string, invite: string, password: string): Promise<void> {
  await page.goto(`${base}${invite}`);
  await page.getByLabel('Contraseña nueva').fill(password);
  await page.getByLabel('Repita la contraseña').fill(password);
  await page.getByRole('button', { name: 'Guardar contraseña' }).click();
  await page.waitForURL(/\/panel\/ingresar/);
}

/** Signs in from the sign-in page and waits for the home page. */
export async function signInAs(page: Page, base: string, email: string, password: string): Promise<void> {
  await page.context().clearCookies();
  await page.goto(`${base}/panel/ingresar`);
  await page.getByLabel('Correo electrónico').fill(email);
  await page.getByLabel('Contraseña').fill(password);
  await page.getByRole('button', { name: 'Ingresar' }).click();
  await page.waitForURL(/\/panel$/);
}

/**
 * Every control a finger must hit is at least 44 px high: buttons, fields, lists, the section
 * links, and the labels of check boxes (the box itself is hit through its label). Links within
 * sentences and tables are exempt, as WCAG 2.5.8 lets them be.
 */
export async function expectTouchTargets(page: Page): Promise<void> {
  const small = await page.evaluate(() => {
    type El = { getBoundingClientRect(): { height: number; width: number }; outerHTML: string };
    const doc = (globalThis as unknown as { document: { querySelectorAll(s: string): El[] } }).document;
    const selector = 'button, a.button, input:not([type="hidden"]):not([type="checkbox"]), select, nav a, label.check';
    return [...doc.querySelectorAll(selector)]
      .filter((el) => {
        const r = el.getBoundingClientRect();
        return r.width > 0 && r.height < 44;
      })
      .map((el) => `${Math.round(el.getBoundingClientRect().height)} px: ${el.outerHTML.slice(0, 120)}`);
  });
  expect(small, page.url()).toEqual([]);
}

/**
 * The panel over a test server, seen from a real browser: the server started (with `beforeStart`
 * run first, then ADMIN invited), the browser open, ADMIN's password set and, unless told not to,
 * ADMIN signed in. What the browser tests of the panel share before their own steps.
 */
export async function panelInBrowser(
  opts: { beforeStart?: (env: NodeJS.ProcessEnv) => Promise<void>; signIn?: boolean } = {},
): Promise<{ srv: TestServer; b: Browser }> {
  let invite = '';
  const srv = await startTestServer({
    beforeStart: async (env) => {
      await opts.beforeStart?.(env);
      invite = await invitePath(env, ADMIN);
    },
  });
  const b = await openBrowser();
  await setPassword(b.page, srv.url, invite, PANEL_PASSWORD);
  if (opts.signIn !== false) await signInAs(b.page, srv.url, ADMIN, PANEL_PASSWORD);
  return { srv, b };
}
