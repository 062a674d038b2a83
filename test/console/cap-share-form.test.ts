// @engine-neutral: what the browser shows; the queries behind each page run on both engines in the API tests
/**
 * Vigia's share of the tenant's caps on the console's Tenant page, in headless Chromium: the
 * stored share is shown, a value that is not a whole percent from 1 to 100 is refused on the
 * page (no request), a valid one is saved through PATCH and kept by the server; the table of
 * calls per hour against each cap lists the families with Vigia's ceilings.
 */
import type { AddressInfo } from 'node:net';
import type { Browser } from 'playwright-core';
import { launchChromium } from '../helpers/browser.js';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { systemClock } from '../../src/clock.js';
import { createTestApp, TEST_ADMIN_TOKEN, type TestApp } from '../helpers/context.js';
import { insertOrg, tenantBody } from '../monitoring/support.js';
import { clickNavLink } from '../helpers/console-nav.js';

const ORG_NAME = 'Cap share org';

describe("console Tenant page: Vigia's share of the tenant's caps", () => {
  let t: TestApp;
  let browser: Browser;
  let origin: string;
  let orgId: string;
  const pageErrors: string[] = [];

  beforeAll(async () => {
    t = await createTestApp({ clock: systemClock });
    orgId = await insertOrg(t.ctx, ORG_NAME);
    await t.app.listen({ host: '127.0.0.1', port: 0 });
    origin = `http://127.0.0.1:${(t.app.server.address() as AddressInfo).port}`;
    browser = await launchChromium();
  }, 180_000);

  afterAll(async () => {
    await browser?.close();
    await t?.close();
    expect(pageErrors).toEqual([]);
  });

  it('shows, checks and saves the share; lists calls per hour against each cap', async () => {
    const created = await t.admin('POST', `/orgs/${orgId}/tenants`, tenantBody({ name: 'Grande', capSharePercent: 40 }));
    expect(created.statusCode).toBe(201);
    const id = created.json().id;

    const context = await browser.newContext({ locale: 'pt-BR', timezoneId: 'America/Sao_Paulo' });
    const p = await context.newPage();
    p.on('pageerror', (err) => pageErrors.push(err.message));
    await p.goto(`${origin}/orgs`);
    await p.getByLabel('Token de administrador').fill(TEST_ADMIN_TOKEN);
    await p.getByRole('button', { name: 'Entrar' }).click();
    await p.getByRole('button', { name: `Abrir: ${ORG_NAME}` }).click();
    await p.getByRole('heading', { level: 1 }).first().waitFor();
    await clickNavLink(p, 'Tenant');
    const card = p.locator('article[data-tenant="Grande"]');
    const form = card.getByTestId('cap-share');
    await form.waitFor();
    const share = form.getByLabel('Parcela (%)');
    expect(await share.inputValue()).toBe('40');
    // Every family with Vigia's own ceiling, before any call.
    expect(await card.getByTestId('api-budget').locator('tr[data-budget="powerbi-admin"] td').first().textContent()).toBe('0');

    let patches = 0;
    p.on('request', (r) => {
      if (r.method() === 'PATCH') patches++;
    });
    const saveButton = form.getByRole('button', { name: 'Salvar parcela' });
    for (const bad of ['0', '101', '12.5']) {
      await share.fill(bad);
      await saveButton.click();
      await form.getByRole('alert').getByText('A parcela deve ser um número inteiro de 1 a 100.').waitFor();
    }
    expect(patches).toBe(0);

    await share.fill('25');
    await saveButton.click();
    await form.getByText('Parcela de Grande salva.').waitFor();
    expect((await t.admin('GET', `/orgs/${orgId}/tenants/${id}`)).json().capSharePercent).toBe(25);
    expect(patches).toBe(1);
    await context.close();
  });
});
