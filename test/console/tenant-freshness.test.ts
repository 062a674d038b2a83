// @engine-neutral: what the browser shows; the queries behind each page run on both engines in the API tests
/**
 * The Tenant page's data freshness section in headless Chromium: the saved settings show, a
 * value that is not whole minutes is refused on the page before any request, a saved document
 * reaches the API (ids in lower case), the texts follow the language, and "back to defaults"
 * resets after its confirmation.
 */
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { createTenant } from '../../src/monitoring/tenants.js';
import { openConsole, startConsoleServer, type ConsoleServer } from '../helpers/console-session.js';
import { insertOrg } from '../monitoring/support.js';
import { clickNavLink, openTenantPart } from '../helpers/console-nav.js';

const ORG_NAME = 'Freshness page org';

describe('console Tenant page: data freshness section in Chromium', () => {
  let server: ConsoleServer;
  let orgId: string;
  let tenantId: string;

  beforeAll(async () => {
    server = await startConsoleServer();
    orgId = await insertOrg(server.t.ctx, ORG_NAME);
    const tenant = await createTenant(server.t.ctx, orgId, {
      name: 'Contoso',
      tenantId: '00000000-0000-4000-8000-000000000001',
      clientId: '00000000-0000-4000-8000-000000000002',
      credentials: { clientSecret: 'not-used-here' },
      mode: 'admin',
      collectors: Object.fromEntries(['inventory', 'capacity', 'gateway', 'costs', 'freshness'].map((n) => [n, { enabled: false }])),
    });
    tenantId = tenant.id;
    await server.t.admin('PUT', `/orgs/${orgId}/tenants/${tenantId}/freshness`, { graceMinutes: 20, workspaces: [{ id: 'ws-1', maxAgeMinutes: 600 }] });
  }, 180_000);

  afterAll(async () => {
    await server?.close();
    expect(server?.pageErrors).toEqual([]);
  });

  it('shows, checks, saves and resets the settings in both languages', async () => {
    const p = await openConsole(server, ORG_NAME);
    await clickNavLink(p, 'Tenant');
    await openTenantPart(p.locator('article[data-tenant="Contoso"]'), 'settings');
    const section = p.locator('article[data-tenant="Contoso"]').getByTestId('freshness');
    await section.getByRole('heading', { name: 'Atualização dos dados de Contoso' }).waitFor();

    const grace = section.getByLabel('Tolerância após o horário agendado (minutos)');
    await expect.poll(() => grace.inputValue()).toBe('20');
    expect(await section.getByLabel('Idade máxima por workspace (uma linha por workspace: ID=minutos)').inputValue()).toBe('ws-1=600');

    // Not whole minutes: refused on the page, nothing sent.
    await grace.fill('1.5');
    await section.getByLabel(/Idade máxima por item/).fill('ABC=15\nsem-minutos');
    await section.getByRole('button', { name: 'Salvar atualização dos dados' }).click();
    await section.getByRole('alert').getByText('Tolerância após o horário agendado (minutos): informe minutos inteiros, de 1 a 1440.').waitFor();
    await section.getByRole('alert').getByText(/linha 2: use ID=minutos/).waitFor();
    expect((await server.t.admin('GET', `/orgs/${orgId}/tenants/${tenantId}/freshness`)).json().graceMinutes).toBe(20);

    await grace.fill('45');
    await section.getByLabel('Idade máxima dos dados no tenant (minutos; vazio = sem limite)').fill('120');
    await section.getByLabel(/Idade máxima por item/).fill('ABC=15');
    await section.getByRole('button', { name: 'Salvar atualização dos dados' }).click();
    await section.getByText('Configuração de atualização dos dados salva.').waitFor();
    expect((await server.t.admin('GET', `/orgs/${orgId}/tenants/${tenantId}/freshness`)).json()).toEqual({
      graceMinutes: 45,
      maxAgeMinutes: 120,
      workspaces: [{ id: 'ws-1', maxAgeMinutes: 600 }],
      items: [{ id: 'abc', maxAgeMinutes: 15 }],
    });
    expect(await section.getByLabel(/Idade máxima por item/).inputValue()).toBe('abc=15');

    await p.locator('#lang-select').selectOption('en');
    await section.getByRole('heading', { name: 'Data freshness of Contoso' }).waitFor();
    await section.getByRole('button', { name: 'Back to defaults' }).click();
    await section.getByRole('group', { name: /Back to the defaults/ }).getByRole('button', { name: 'Confirm' }).click();
    await section.getByText('Data freshness settings back to the defaults.').waitFor();
    await expect.poll(() => section.getByLabel('Grace period after the scheduled time (minutes)').inputValue()).toBe('30');
    expect((await server.t.admin('GET', `/orgs/${orgId}/tenants/${tenantId}/freshness`)).json()).toEqual({ graceMinutes: 30, maxAgeMinutes: null, workspaces: [], items: [] });
    await p.context().close();
  });
});
