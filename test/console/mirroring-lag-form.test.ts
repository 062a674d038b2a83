// @engine-neutral: what the browser shows; the queries behind each page run on both engines in the API tests
/**
 * The replication lag thresholds on the console's Tenant page, in headless Chromium: shown with
 * the stored values, refused on the page when not whole seconds or out of order (no request),
 * saved through PATCH and kept by the session.server.
 */
import { describe, expect, it } from 'vitest';
import { openConsole, useConsoleServer } from '../helpers/console-session.js';
import { tenantBody } from '../monitoring/support.js';
import { clickNavLink, openTenantPart } from '../helpers/console-nav.js';

const ORG_NAME = 'Mirroring lag org';

describe('console Tenant page: replication lag thresholds', () => {
  const session = useConsoleServer({ orgName: ORG_NAME });

  it('shows, checks and saves the thresholds', async () => {
    const created = await session.server.t.admin('POST', `/orgs/${session.orgId}/tenants`, tenantBody({ name: 'Espelhos', mirroringLag: { infoSeconds: 600, errorSeconds: 1800 } }));
    expect(created.statusCode).toBe(201);
    const id = created.json().id;

    const p = await openConsole(session.server, ORG_NAME);
    await clickNavLink(p, 'Tenant');
    await openTenantPart(p.locator('article[data-tenant="Espelhos"]'), 'settings');
    const form = p.locator('article[data-tenant="Espelhos"]').getByTestId('mirroring-lag');
    await form.waitFor();
    const info = form.getByLabel('Limite informativo (segundos)');
    const error = form.getByLabel('Limite de erro (segundos)');
    expect(await info.inputValue()).toBe('600');
    expect(await error.inputValue()).toBe('1800');

    let patches = 0;
    p.on('request', (r) => {
      if (r.method() === 'PATCH') patches++;
    });
    await info.fill('2000');
    await form.getByRole('button', { name: 'Salvar limites' }).click();
    await form.getByRole('alert').getByText('O limite informativo deve ser menor que o limite de erro.').waitFor();
    await info.fill('1,5');
    await form.getByRole('button', { name: 'Salvar limites' }).click();
    await form.getByRole('alert').getByText('Limite informativo (segundos) deve ser um número inteiro de segundos, maior que zero.').waitFor();
    expect(patches).toBe(0);

    await info.fill('120');
    await error.fill('7200');
    await form.getByRole('button', { name: 'Salvar limites' }).click();
    await form.getByText('Limites de atraso de Espelhos salvos.').waitFor();
    expect(patches).toBe(1);
    expect((await session.server.t.admin('GET', `/orgs/${session.orgId}/tenants/${id}`)).json().mirroringLag).toEqual({ infoSeconds: 120, errorSeconds: 7200 });
    await p.context().close();
  });
});
