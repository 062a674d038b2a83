/**
 * The browser of the end-to-end tests: Debian's Chromium (never a downloaded one), headless, with
 * the flags a container without a sandbox or GPU needs.
 */
import { type Browser, chromium } from 'playwright-core';

/** Starts Chromium; when it cannot, the error says what to install. */
export async function launchChromium(): Promise<Browser> {
  try {
    return await chromium.launch({
      executablePath: '/usr/bin/chromium',
      args: ['--headless', '--no-sandbox', '--disable-gpu', '--disable-background-networking'],
    });
  } catch (err) {
    throw new Error(`Chromium is needed for the browser tests: install Debian's chromium (apt-get install -y chromium). ${(err as Error).message}`);
  }
}
