// @engine-neutral: what the browser shows; the queries behind each page run on both engines in the API tests
/**
 * The Content-Security-Policy is checked where it matters: in a browser. Swagger UI (/docs) and
 * the console must render under it with no violation, and neither can be framed.
 */
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { Browser, Page } from 'playwright-core';
import { startConsoleServer, type ConsoleServer } from '../helpers/console-session.js';

/** Every CSP violation the page reports, as the browser's own console lines. */
function watchViolations(page: Page): string[] {
  const seen: string[] = [];
  page.on('console', (m) => {
    if (/Content Security Policy|Refused to/i.test(m.text())) seen.push(m.text());
  });
  return seen;
}

describe('security policy in Chromium', () => {
  let server: ConsoleServer;
  let browser: Browser;
  let origin: string;
  beforeAll(async () => {
    // "Try it out" targets the document's server: its base URL, this origin here.
    server = await startConsoleServer();
    ({ browser, origin } = server);
  }, 60_000);
  afterAll(async () => {
    await server?.close();
  });

  it('Swagger UI renders the public API under its policy, without a violation', async () => {
    const page = await browser.newPage();
    const violations = watchViolations(page);
    await page.goto(`${origin}/docs`);
    await page.waitForSelector('.opblock-summary-path', { timeout: 20_000 });
    const paths = await page.$$eval('.opblock-summary-path', (els) => els.map((e) => e.textContent?.trim()));
    expect(paths).toContain('/api/public/v1/alerts');
    expect(violations).toEqual([]);
    await page.close();
  });

  it('the console renders under its policy, without a violation', async () => {
    const page = await browser.newPage();
    const violations = watchViolations(page);
    await page.goto(`${origin}/`);
    await page.waitForFunction(() => (document.getElementById('app')?.childElementCount ?? 0) > 0, undefined, { timeout: 20_000 });
    expect(violations).toEqual([]);
    await page.close();
  });

  it('neither can be framed by another page', async () => {
    const page = await browser.newPage();
    const violations = watchViolations(page);
    // A page of another origin (about:blank with a frame) trying to embed both.
    await page.setContent(`<iframe id="d" src="${origin}/docs"></iframe><iframe id="c" src="${origin}/"></iframe>`);
    await page.waitForFunction(() => document.querySelectorAll('iframe').length === 2);
    // Chromium reports each refused frame on the console and shows its error page instead.
    await expect
      .poll(() => violations.filter((v) => /frame-ancestors|X-Frame-Options/i.test(v)).length, { timeout: 10_000 })
      .toBeGreaterThanOrEqual(2);
    const framed = page.frames().filter((f) => f !== page.mainFrame());
    expect(framed).toHaveLength(2);
    for (const frame of framed) expect(frame.url()).not.toMatch(new RegExp(`^${origin}`));
    await page.close();
  });
});
