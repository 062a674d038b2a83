/**
 * The console's end-to-end set-up, shared by the browser tests: the app listening on loopback,
 * Debian's Chromium, and a tab signed in with the admin token on one organization, as a person
 * does it (the sign-in form, then "Abrir: <org>"). Uncaught page errors are collected, and the
 * tests assert none happened.
 */
import type { AddressInfo } from 'node:net';
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

/** The app on a fresh database (real clock unless told), listening on loopback, and Chromium. */
export async function startConsoleServer(opts: TestContextOptions = {}): Promise<ConsoleServer> {
  const t = await createTestApp({ clock: systemClock, ...opts });
  await t.app.listen({ host: '127.0.0.1', port: 0 });
  const origin = `http://127.0.0.1:${(t.app.server.address() as AddressInfo).port}`;
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

export interface OpenConsoleOptions extends Pick<BrowserContextOptions, 'viewport'> {
  /** The browser's locale; pt-BR unless told. */
  locale?: string;
  timezoneId?: string;
  /** The console's language chosen before the page loads (stored as the switch stores it). */
  lang?: 'pt-BR' | 'en';
  /** Called with the new page before it loads anything (listeners that must see every request). */
  beforeLoad?: (p: Page) => void;
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
  opts.beforeLoad?.(p);
  const words = SIGN_IN[lang];
  await p.goto(`${server.origin}/orgs`);
  await p.getByLabel(words.token).fill(TEST_ADMIN_TOKEN);
  await p.getByRole('button', { name: words.submit }).click();
  await p.getByRole('button', { name: `${words.open}: ${orgName}` }).click();
  await p.getByRole('heading', { level: 1 }).first().waitFor();
  return p;
}
