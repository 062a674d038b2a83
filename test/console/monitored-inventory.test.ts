// @engine-neutral: what the browser shows; the queries behind each page run on both engines in the API tests
/**
 * Gateways and semantic models in the console: the admin reads (what the gateway collector's
 * state and the lineage table hold, with open incidents, scoped to the organization) and their
 * pages in headless Chromium, each open-incident count linking to exactly those incidents.
 * The data is written through the real tables: collector state with `writeState`, lineage with
 * `savePlacements`/`saveDatasources`, incidents through the admin signals route.
 *
 * With VIGIA_CONSOLE_SCREENSHOTS=<dir> the pg run also saves both pages at desktop and phone width.
 */
import type { Page } from 'playwright-core';
import { DESKTOP, overflowAtPhoneWidth, shot } from '../helpers/console-shots.js';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { savePlacements, saveDatasources } from '../../src/monitoring/lineage/lineage.js';
import { writeState } from '../../src/monitoring/engine/output.js';
import type { TestApp } from '../helpers/context.js';
import { openConsole as openSignedIn, startConsoleServer, type ConsoleServer } from '../helpers/console-session.js';
import { tenantBody } from '../monitoring/support.js';
import { clickNavLink } from '../helpers/console-nav.js';

const ORG_NAME = 'Inventário monitorado';
const MANY_ORG = 'Muitos modelos';

describe('gateways and semantic models (admin reads and console pages)', () => {
  let server: ConsoleServer;
  let t: TestApp;
  let orgId: string;
  let otherOrgId: string;
  let tenant: string;
  let other: string;

  async function signal(org: string, over: Record<string, unknown>): Promise<string> {
    const res = await t.admin('POST', `/orgs/${org}/signals`, { kind: 'failure', notificationKind: 'Failed', title: 'Falha', message: 'Falhou', ...over });
    expect(res.statusCode, res.body).toBe(200);
    return res.json().alertId;
  }

  async function connectTenant(org: string, name: string): Promise<string> {
    const res = await t.admin('POST', `/orgs/${org}/tenants`, tenantBody({ name }));
    expect(res.statusCode, res.body).toBe(201);
    return res.json().id;
  }

  beforeAll(async () => {
    server = await startConsoleServer({  });
    t = server.t;
    orgId = (await t.admin('POST', '/orgs', { name: ORG_NAME })).json().id;
    otherOrgId = (await t.admin('POST', '/orgs', { name: 'Outra' })).json().id;
    const now = t.ctx.clock.now();
    tenant = await connectTenant(orgId, 'Contoso BI');
    await writeState(t.ctx.db, tenant, 'gateway', [
      { key: 'gateway:gw-a', value: { name: 'GW Matriz', offline: true, upgrade: false } },
      { key: 'gateway:gw-b', value: { name: 'GW Filial', offline: false, upgrade: true } },
      { key: 'member:m-1', value: { name: 'GW Matriz / nó 1', offline: true, gatewayId: 'gw-a' } },
    ]);
    await writeState(t.ctx.db, tenant, 'capacity', [{ key: 'cap-1', value: { name: 'cap-prod', state: 'Active', down: false } }]);
    expect((await t.admin('PUT', `/orgs/${orgId}/workspaces`, [{ name: 'Vendas', remoteId: 'WS-1', capacityName: 'cap-prod' }])).statusCode).toBe(200);
    await savePlacements(t.ctx.db, tenant, [
      { itemId: 'SM-1', itemType: 'SemanticModel', itemName: 'Vendas Diárias', workspaceId: 'WS-1', capacityId: 'CAP-1' },
      { itemId: 'sm-2', itemType: 'SemanticModel', itemName: 'Aaa Estoque', workspaceId: 'ws-unknown', capacityId: null },
      { itemId: 'rep-1', itemType: 'Report', itemName: 'Relatório', workspaceId: 'WS-1', capacityId: 'CAP-1' },
    ], now);
    await saveDatasources(t.ctx.db, tenant, 'SM-1', ['GW-A', 'gw-gone'], ['src-1'], now);
    // Incidents: the gateway's own, its member's (another source), a semantic model's (id in another case), a resolved one.
    await signal(orgId, { sourceType: 'Gateway', sourceId: 'gw-a', sourceName: 'GW Matriz', notificationKind: 'GatewayOffline' });
    await signal(orgId, { sourceType: 'Gateway', sourceId: 'm-1', sourceName: 'GW Matriz / nó 1', notificationKind: 'GatewayMemberOffline' });
    await signal(orgId, { sourceType: 'Dataset', sourceId: 'sm-1', sourceName: 'Vendas Diárias', notificationKind: 'RefreshFailed' });
    await signal(orgId, { sourceType: 'Dataset', sourceId: 'sm-2', sourceName: 'Aaa Estoque', notificationKind: 'RefreshFailed' });
    await t.admin('POST', `/orgs/${orgId}/signals`, { sourceType: 'Dataset', sourceId: 'sm-2', sourceName: 'Aaa Estoque', kind: 'recovery', notificationKind: 'RefreshFailed', title: 'Ok', message: 'Ok' });
    // Another organization's tenant, gateway and incident stay out of this one's pages.
    other = await connectTenant(otherOrgId, 'Fabrikam');
    await writeState(t.ctx.db, other, 'gateway', [{ key: 'gateway:gw-a', value: { name: 'GW de outra org', offline: false, upgrade: false } }]);
    await savePlacements(t.ctx.db, other, [{ itemId: 'sm-9', itemType: 'SemanticModel', itemName: 'Outro modelo', workspaceId: 'ws-9', capacityId: null }], now);
    await signal(otherOrgId, { sourceType: 'Gateway', sourceId: 'gw-a', sourceName: 'GW de outra org', notificationKind: 'GatewayOffline' });
    // An organization with more models than a page holds.
    const manyOrgId = (await t.admin('POST', '/orgs', { name: MANY_ORG })).json().id;
    const many = Array.from({ length: 130 }, (_, i) => ({ itemId: `sm-${1000 + i}`, itemType: 'SemanticModel', itemName: `Modelo ${1000 + i}`, workspaceId: 'ws-1', capacityId: null }));
    await savePlacements(t.ctx.db, await connectTenant(manyOrgId, 'Grande'), many, now);

  }, 180_000);

  afterAll(async () => {
    await server?.close();
    expect(server?.pageErrors).toEqual([]);
  });

  it('lists the organization’s gateways with status, upgrade and their own open incidents', async () => {
    const res = await t.admin('GET', `/orgs/${orgId}/gateways`);
    expect(res.statusCode).toBe(200);
    expect(res.json()).toEqual({
      items: [
        { id: 'gw-b', name: 'GW Filial', tenantId: tenant, tenantName: 'Contoso BI', offline: false, upgradeRequired: true, openIncidents: 0 },
        { id: 'gw-a', name: 'GW Matriz', tenantId: tenant, tenantName: 'Contoso BI', offline: true, upgradeRequired: false, openIncidents: 1 },
      ],
    });
    expect((await t.admin('GET', `/orgs/${otherOrgId}/gateways`)).json().items).toEqual([
      { id: 'gw-a', name: 'GW de outra org', tenantId: other, tenantName: 'Fabrikam', offline: false, upgradeRequired: false, openIncidents: 1 },
    ]);
    expect((await t.admin('GET', '/orgs/org_missing/gateways')).statusCode).toBe(404);
  });

  it('lists semantic models with workspace, capacity, gateways and open incidents', async () => {
    const res = await t.admin('GET', `/orgs/${orgId}/semantic-models`);
    expect(res.statusCode).toBe(200);
    expect(res.json()).toEqual({
      items: [
        { id: 'sm-2', name: 'Aaa Estoque', tenantId: tenant, tenantName: 'Contoso BI', workspaceId: 'ws-unknown', workspaceName: null, capacityId: null, capacityName: null, gateways: [], openIncidents: 0 },
        {
          id: 'sm-1',
          name: 'Vendas Diárias',
          tenantId: tenant,
          tenantName: 'Contoso BI',
          workspaceId: 'ws-1',
          workspaceName: 'Vendas',
          capacityId: 'cap-1',
          capacityName: 'cap-prod',
          gateways: [
            { id: 'gw-a', name: 'GW Matriz' },
            { id: 'gw-gone', name: null },
          ],
          openIncidents: 1,
        },
      ],
      nextCursor: null,
    });
    expect((await t.admin('GET', `/orgs/${otherOrgId}/semantic-models`)).json().items.map((m: { id: string }) => m.id)).toEqual(['sm-9']);
  });

  it('the alert list filters by source id without case', async () => {
    const res = await t.admin('GET', `/orgs/${orgId}/alerts?sourceType=Dataset&sourceId=SM-1`);
    expect(res.json().value.map((a: { sourceName: string }) => a.sourceName)).toEqual(['Vendas Diárias']);
  });

  function openConsole(locale = 'pt-BR'): Promise<Page> {
    return openSignedIn(server, ORG_NAME, { viewport: DESKTOP, locale });
  }

  async function alertTitlesShown(p: Page): Promise<string[]> {
    await p.getByTestId('alerts-scope').waitFor();
    await p.locator('ul.alerts li').first().waitFor();
    return p.$$eval('ul.alerts li p.muted', (els) => els.map((e) => (e.textContent ?? '').split(' · ')[1] ?? ''));
  }

  it('the gateways page shows each gateway and links its count to its incidents', async () => {
    const p = await openConsole();
    await clickNavLink(p, 'Gateways');
    await p.getByRole('heading', { level: 1, name: 'Gateways' }).waitFor();
    await expect.poll(() => p.evaluate(() => document.activeElement?.tagName)).toBe('H1');
    await p.locator('#gateways tbody tr').first().waitFor();
    const rows = await p.$$eval('#gateways tbody tr', (trs) => trs.map((r) => [...r.querySelectorAll('th, td')].map((c) => c.textContent)));
    expect(rows).toEqual([
      ['GW Filial', 'Contoso BI', 'conectado', 'necessária', '0', 'Mudanças'],
      ['GW Matriz', 'Contoso BI', 'desconectado', 'em dia', '1', 'Mudanças'],
    ]);
    await shot(p, 'gateways');
    await p.getByRole('link', { name: 'Incidentes abertos de GW Matriz: 1' }).click();
    await p.getByRole('heading', { level: 1, name: 'Alertas' }).waitFor();
    expect(await alertTitlesShown(p)).toEqual(['GW Matriz']);
    expect(await p.getByTestId('alerts-scope').textContent()).toContain('Filtrado por Gateway: GW Matriz');
    await p.context().close();
  });

  it('the semantic models page shows workspace, capacity and gateways, and links to the model’s incidents', async () => {
    const p = await openConsole();
    await clickNavLink(p, 'Modelos semânticos');
    await p.getByRole('heading', { level: 1, name: 'Modelos semânticos' }).waitFor();
    await p.locator('#semantic-models tbody tr').first().waitFor();
    const rows = await p.$$eval('#semantic-models tbody tr', (trs) => trs.map((r) => [...r.querySelectorAll('th, td')].map((c) => c.textContent)));
    expect(rows).toEqual([
      ['Aaa Estoque', 'desconhecido (ws-unknown)', '—', '—', '0', 'Mudanças'],
      ['Vendas Diárias', 'Vendas', 'cap-prod', 'GW Matriz, desconhecido (gw-gone)', '1', 'Mudanças'],
    ]);
    await shot(p, 'semantic-models');
    expect(await overflowAtPhoneWidth(p)).toBeLessThanOrEqual(0);
    await p.getByRole('link', { name: 'Incidentes abertos de Vendas Diárias: 1' }).click();
    await p.getByRole('heading', { level: 1, name: 'Alertas' }).waitFor();
    expect(await alertTitlesShown(p)).toEqual(['Vendas Diárias']);
    // The gateway link of a model leads to the gateway's incidents.
    await p.goBack();
    await p.getByRole('link', { name: 'GW Matriz' }).click();
    expect(await alertTitlesShown(p)).toEqual(['GW Matriz']);
    await p.context().close();
  });

  it('the semantic models page shows a page at a time, "Mostrar mais" appends the next, and the search narrows by name', async () => {
    const p = await openSignedIn(server, MANY_ORG, { viewport: DESKTOP });
    await clickNavLink(p, 'Modelos semânticos');
    await p.locator('#semantic-models tbody tr').first().waitFor();
    const names = () => p.$$eval('#semantic-models tbody th', (ths) => ths.map((th) => th.textContent));
    expect(await names()).toEqual(Array.from({ length: 100 }, (_, i) => `Modelo ${1000 + i}`));
    await p.getByRole('button', { name: 'Mostrar mais' }).click();
    await expect.poll(async () => (await names()).length).toBe(130);
    expect(await names()).toEqual(Array.from({ length: 130 }, (_, i) => `Modelo ${1000 + i}`));
    expect(await p.getByRole('button', { name: 'Mostrar mais' }).count()).toBe(0);
    await p.getByLabel('Nome contém').fill('modelo 112');
    await p.getByRole('button', { name: 'Buscar' }).click();
    await expect.poll(names).toEqual(Array.from({ length: 10 }, (_, i) => `Modelo ${1120 + i}`));
    await p.getByLabel('Nome contém').fill('nada assim');
    await p.getByRole('button', { name: 'Buscar' }).click();
    await p.getByText('Nenhum modelo semântico com “nada assim” no nome.').waitFor();
    await p.context().close();
  });

  it('both pages speak English', async () => {
    const p = await openConsole();
    await p.getByLabel('Idioma').selectOption('en');
    await clickNavLink(p, 'Semantic models');
    await p.getByRole('heading', { level: 1, name: 'Semantic models' }).waitFor();
    await p.locator('#semantic-models tbody tr').first().waitFor();
    expect(await p.locator('#semantic-models thead').textContent()).toBe('Semantic modelWorkspaceCapacityGatewaysOpen incidentsChanges');
    await clickNavLink(p, 'Gateways');
    await p.getByRole('heading', { level: 1, name: 'Gateways' }).waitFor();
    await p.locator('#gateways tbody tr[data-gateway="gw-b"]').waitFor();
    expect(await p.locator('#gateways tbody tr[data-gateway="gw-b"] td').allTextContents()).toEqual(['Contoso BI', 'online', 'required', '0', 'Changes']);
    await p.context().close();
  });
});
