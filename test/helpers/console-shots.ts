/**
 * The browser tests' two window sizes, the screenshots of the console's pages, and the phone-width
 * check. With VIGIA_CONSOLE_SCREENSHOTS=<dir>, the pg run saves each page named by a test at
 * desktop and phone width there (docs/console/ holds the ones shown in the README).
 */
import { mkdirSync } from 'node:fs';
import path from 'node:path';
import type { Page } from 'playwright-core';

export const DESKTOP = { width: 1280, height: 860 };
export const PHONE = { width: 390, height: 844 };
export const SHOTS = process.env.VIGIA_TEST_ENGINE === 'pg' ? process.env.VIGIA_CONSOLE_SCREENSHOTS : undefined;

/** Saves the page at desktop and phone width when screenshots are asked for; the window keeps its size. */
export async function shot(p: Page, name: string): Promise<void> {
  if (!SHOTS) return;
  mkdirSync(SHOTS, { recursive: true });
  const size = p.viewportSize() ?? DESKTOP;
  await p.screenshot({ path: path.join(SHOTS, `${name}-desktop.png`), fullPage: true });
  await p.setViewportSize(PHONE);
  await p.screenshot({ path: path.join(SHOTS, `${name}-phone.png`), fullPage: true });
  await p.setViewportSize(size);
}

/** How far the page sticks out sideways at phone width (0 or less: it fits); the window keeps its size. */
export async function overflowAtPhoneWidth(p: Page): Promise<number> {
  const size = p.viewportSize() ?? DESKTOP;
  await p.setViewportSize(PHONE);
  const overflow = await p.evaluate(() => document.documentElement.scrollWidth - window.innerWidth);
  await p.setViewportSize(size);
  return overflow;
}
