/**
 * The browser of the end-to-end tests: Debian's Chromium (never a downloaded one), headless, with
 * the flags a container without a sandbox or GPU needs.
 */
import { type Browser, chromium } from 'playwright-core';

export function launchChromium(): Promise<Browser> {
  return chromium.launch({
    executablePath: '/usr/bin/chromium',
    args: ['--headless', '--no-sandbox', '--disable-gpu', '--disable-background-networking'],
  });
}
