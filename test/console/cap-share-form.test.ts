// @engine-neutral: what the browser shows; the queries behind each page run on both engines in the API tests
/**
 * Vigia's share of the tenant's caps on the console's Tenant page, in headless Chromium: the
 * stored share is shown, a value that is not a whole percent from 1 to 100 is refused on the
 * page (no request), a valid one is saved through PATCH and kept by the server; the table of
 * calls per hour against each cap lists the families with Vigia's ceilings.
 */
import { describe, expect, it } from 'vitest';
import { openConsole, useConsoleServer } from '../helpers/console-session.js';
import { tenantBody } from '../monitoring/support.js';
import { clickNavLink, openTenantPart } from '../helpers/console-nav.js';

const ORG_NAME = 'Cap share org';

describe("console Tenant page: Vigia's share of the tenant's caps", () => {
  const session = useConsoleServer({ orgName: ORG_NAME });

  it('shows, checks and saves the share; lists calls per hour against each cap', async () => {
    const created = await session.server.t.admin('POST', `/orgs/${session.orgId}/tenants`, tenantBody({ name: 'Grande', capSharePercent: 40 }));
    expect(created.statusCode).toBe(201);
    const id = created.json().id;

    const p = await openConsole(session.server, ORG_NAME);
    await clickNavLink(p, 'Tenant');
    const card = p.locator('article[data-tenant="Grande"]');
    await openTenantPart(card, 'collectors');
    await openTenantPart(card, 'settings');
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
    expect((await session.server.t.admin('GET', `/orgs/${session.orgId}/tenants/${id}`)).json().capSharePercent).toBe(25);
    expect(patches).toBe(1);
    await p.context().close();
  });
});
