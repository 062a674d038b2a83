/**
 * The console's end-to-end set-up, shared by the browser tests: the app listening on loopback,
 * Debian's Chromium, and a tab signed in with the admin token on one organization, as a person
 * does it (the sign-in form, then "Abrir: <org>"). Uncaught page errors are collected, and the
 * tests assert none happened. `useConsoleServer` does the start and the close (and that
 * assertion) for a whole `describe`.
 */
import type { AddressInfo } from 'node:net';
import { afterAll, beforeAll, expect } from 'vitest';
import type { Browser, BrowserContextOptions, Page } from 'playwright-core';
import { systemClock } from '../../src/clock.js';
import { launchChromium } from './browser.js';
import { createTestApp, TEST_ADMIN_TOKEN, type TestApp, type TestContextOptions } from './context.js';

export interface ConsoleServer {
  t: TestApp;
  browser: Browser;
  origin: string;
  /** Uncaught errors of every page opened through openConsole. */
  pageErrors: string[];
  close(): Promise<void>;
}

/**
 * The app on a fresh database (real clock unless told), listening on loopback, and Chromium. The
 * app's base URL is where it listens, so the links it makes (a delivery's alert page, "Try it
 * out") open this console.
 */
export async function startConsoleServer(opts: TestContextOptions = {}): Promise<ConsoleServer> {
  const t = await createTestApp({ clock: systemClock, ...opts });
  await t.app.listen({ host: '127.0.0.1', port: 0 });
  const origin = `http://127.0.0.1:${(t.app.server.address() as AddressInfo).port}`;
  t.ctx.config.baseUrl = origin;
  const browser = await launchChromium();
  return {
    t,
    browser,
    origin,
    pageErrors: [],
    async close() {
      await browser.close();
      await t.close();
    },
  };
}

/**
 * For a `describe`: the console server started before its tests, with the organization `orgName`
 * when given, and closed after them, asserting that no page raised an error. Read `server` and
 * `orgId` inside the tests.
 */
export function useConsoleServer(opts: TestContextOptions & { orgName?: string } = {}): { readonly server: ConsoleServer; readonly orgId: string } {
  const { orgName, ...appOpts } = opts;
  const handle = { server: undefined as unknown as ConsoleServer, orgId: '' };
  beforeAll(async () => {
    handle.server = await startConsoleServer(appOpts);
    if (orgName) {
      const res = await handle.server.t.admin('POST', '/orgs', { name: orgName });
      expect(res.statusCode, res.body).toBe(201);
      handle.orgId = res.json().id;
    }
  }, 180_000);
  afterAll(async () => {
    await handle.server?.close();
    expect(handle.server?.pageErrors ?? []).toEqual([]);
  });
  return handle;
}

export interface OpenConsoleOptions extends Pick<BrowserContextOptions, 'viewport'> {
  /** The browser's locale; pt-BR unless told. */
  locale?: string;
  timezoneId?: string;
  /** The console's language chosen before the page loads (stored as the switch stores it). */
  lang?: 'pt-BR' | 'en';
  /** Called with the new page before it loads anything (listeners that must see every request). */
  beforeLoad?: (p: Page) => void | Promise<void>;
  /** The console page to show once the organization is open (its home, the overview, unless told). */
  path?: string;
}

const SIGN_IN = {
  'pt-BR': { token: 'Token de administrador', submit: 'Entrar', open: 'Abrir' },
  en: { token: 'Admin token', submit: 'Sign in', open: 'Open' },
} as const;

/** A new browser context and tab, signed in with the admin token, on the organization named `orgName`. */
export async function openConsole(server: Pick<ConsoleServer, 'browser' | 'origin' | 'pageErrors'>, orgName: string, opts: OpenConsoleOptions = {}): Promise<Page> {
  const lang = opts.lang ?? 'pt-BR';
  const context = await server.browser.newContext({
    locale: opts.locale ?? (lang === 'en' ? 'en-US' : 'pt-BR'),
    timezoneId: opts.timezoneId ?? 'America/Sao_Paulo',
    ...(opts.viewport ? { viewport: opts.viewport } : {}),
  });
  if (opts.lang === 'en') await context.addInitScript(() => localStorage.setItem('vigia.lang', 'en'));
  const p = await context.newPage();
  p.on('pageerror', (err) => server.pageErrors.push(err.message));
  await opts.beforeLoad?.(p);
  await p.goto(`${server.origin}/orgs`);
  await signInWithToken(p, TEST_ADMIN_TOKEN, lang);
  await p.getByRole('button', { name: `${SIGN_IN[lang].open}: ${orgName}` }).click();
  await p.getByRole('heading', { level: 1 }).first().waitFor();
  if (opts.path) {
    // An organization opens on its overview (its home): wait for it before going elsewhere.
    await p.waitForURL(`${server.origin}/overview`);
    if (opts.path !== '/overview') {
      await p.goto(`${server.origin}${opts.path}`);
      await p.getByRole('heading', { level: 1 }).first().waitFor();
    }
  }
  return p;
}

/** Fills the sign-in form of the page shown with `token` and sends it. */
export async function signInWithToken(p: Page, token: string = TEST_ADMIN_TOKEN, lang: 'pt-BR' | 'en' = 'pt-BR'): Promise<void> {
  await p.getByLabel(SIGN_IN[lang].token).fill(token);
  await p.getByRole('button', { name: SIGN_IN[lang].submit }).click();
}
