// @engine-neutral: what the browser shows; the timeline's queries (paging, dependencies) run on both engines in test/monitoring/tenant-changes-api.test.ts
/**
 * The change timeline in the console (headless Chromium, both languages): a tenant with more
 * changes than a page holds shows a hundred and "Mostrar mais" / "Show more" appends the rest;
 * on the semantic models, gateways and capacities pages each row opens its own object's changes
 * in the "Mudanças" tab — that object's and those of what it depends on (the join's path), with
 * the link column — and "Voltar a todas as mudanças" goes back to the list-wide timeline. The
 * data goes through the real tables: changes with insertChanges, lineage with
 * savePlacements/saveDatasources, collector state with writeState.
 */
import type { Locator, Page } from 'playwright-core';
import { beforeAll, describe, expect, it } from 'vitest';
import { insertChanges, type TenantChange } from '../../src/monitoring/changes/store.js';
import { writeState } from '../../src/monitoring/engine/output.js';
import { saveDatasources, savePlacements } from '../../src/monitoring/lineage/lineage.js';
import { openConsole, useConsoleServer } from '../helpers/console-session.js';
import { tenantBody } from '../monitoring/support.js';

const ORG_NAME = 'Linha do tempo';
const MODEL = 'aaaaaaaa-0000-0000-0000-00000000000a';
const OTHER_MODEL = 'aaaaaaaa-0000-0000-0000-00000000000b';
const GATEWAY = 'bbbbbbbb-0000-0000-0000-00000000000b';
const OTHER_GATEWAY = 'bbbbbbbb-0000-0000-0000-00000000000c';
const SOURCE = 'cccccccc-0000-0000-0000-00000000000c';
const CAPACITY = 'dddddddd-0000-0000-0000-00000000000d';
const BULK = 120;
const NO_LINKS = { datasetId: null, gatewayId: null, datasourceId: null, workspaceId: null, capacityId: null };

describe('the change timeline in the console (Chromium)', () => {
  const session = useConsoleServer({ orgName: ORG_NAME });

  beforeAll(async () => {
    const t = session.server.t;
    const orgId = session.orgId;
    const res = await t.admin('POST', `/orgs/${orgId}/tenants`, tenantBody({ name: 'Contoso BI' }));
    expect(res.statusCode, res.body).toBe(201);
    const tenant = res.json().id as string;
    const now = t.ctx.clock.now();
    const ago = (m: number) => new Date(now.getTime() - m * 60_000);
    // Vendas reads through GW Matriz and its data source, in ws-1 on cap-prod; Estoque through GW Filial.
    await savePlacements(t.ctx.db, tenant, [
      { itemId: MODEL, itemType: 'SemanticModel', itemName: 'Vendas', workspaceId: 'ws-1', capacityId: CAPACITY },
      { itemId: OTHER_MODEL, itemType: 'SemanticModel', itemName: 'Estoque', workspaceId: 'ws-2', capacityId: null },
    ], now);
    await saveDatasources(t.ctx.db, tenant, MODEL, [GATEWAY], [SOURCE], now);
    await saveDatasources(t.ctx.db, tenant, OTHER_MODEL, [OTHER_GATEWAY], [], now);
    await writeState(t.ctx.db, tenant, 'gateway', [
      { key: `gateway:${GATEWAY}`, value: { name: 'GW Matriz', offline: false, upgrade: false } },
      { key: `gateway:${OTHER_GATEWAY}`, value: { name: 'GW Filial', offline: false, upgrade: false } },
    ]);
    await writeState(t.ctx.db, tenant, 'capacity', [{ key: CAPACITY, value: { name: 'cap-prod', state: 'Active', down: false } }]);
    const cap = (name: string) => ({ name, sku: 'F64', state: 'Active', region: 'brazilsouth' });
    expect((await t.admin('PUT', `/orgs/${orgId}/capacities`, [cap('cap-prod'), cap('cap-manual')])).statusCode).toBe(200);

    const base = { isSuccess: true, actorUpn: 'ana.souza@contoso.example', actorType: 0, raw: {} };
    const estoque = { kind: 'item' as const, id: OTHER_MODEL, type: 'SemanticModel', name: 'Estoque' };
    const changes: TenantChange[] = [
      // More than a page: the other model's schedule changed every minute for two hours.
      ...Array.from({ length: BULK }, (_, i): TenantChange => ({
        ...base, recordId: `bulk-${String(i).padStart(3, '0')}`, activity: 'SetScheduledRefresh', occurredAt: ago(10 + i), object: estoque, links: { ...NO_LINKS, datasetId: OTHER_MODEL, gatewayId: GATEWAY, capacityId: CAPACITY },
      })),
      { ...base, recordId: 'rec-model', activity: 'BindToGateway', occurredAt: ago(1), object: { kind: 'item', id: MODEL, type: 'SemanticModel', name: 'Vendas' }, links: { ...NO_LINKS, datasetId: MODEL, gatewayId: GATEWAY } },
      { ...base, recordId: 'rec-creds', activity: 'UpdateDatasourceCredentials', occurredAt: ago(2), object: { kind: 'gateway', id: GATEWAY, type: null, name: 'GW Matriz' }, links: { ...NO_LINKS, gatewayId: GATEWAY, datasourceId: SOURCE } },
      { ...base, recordId: 'rec-capacity', activity: 'ChangeCapacityState', occurredAt: ago(3), object: { kind: 'capacity', id: CAPACITY, type: null, name: 'cap-prod' }, links: { ...NO_LINKS, capacityId: CAPACITY } },
      { ...base, recordId: 'rec-switch', activity: 'UpdatedAdminFeatureSwitch', occurredAt: ago(4), object: { kind: 'tenant', id: null, type: null, name: null }, links: NO_LINKS },
      { ...base, recordId: 'rec-other-gw', activity: 'UpdateGateway', occurredAt: ago(5), object: { kind: 'gateway', id: OTHER_GATEWAY, type: null, name: 'GW Filial' }, links: { ...NO_LINKS, gatewayId: OTHER_GATEWAY } },
    ];
    await insertChanges(t.ctx.db, orgId, tenant, changes, now);
  }, 180_000);

  /** The ids of the rows a timeline shows. */
  const rowIds = (scope: Locator) => scope.locator('tbody tr').evaluateAll((rows) => rows.map((r) => r.getAttribute('data-change')));

  /** Clicks the timeline's "show more" and waits for the rows to grow to `n`. */
  async function showMore(scope: Locator, name: string, n: number): Promise<void> {
    await scope.getByRole('button', { name }).click();
    await scope.locator('tbody tr').nth(n - 1).waitFor();
  }

  it('shows a hundred changes of the tenant, and "Mostrar mais" appends the rest', async () => {
    const p = await openConsole(session.server, ORG_NAME, { path: '/tenants' });
    const card = p.locator('article[data-tenant="Contoso BI"]');
    await card.getByRole('tab', { name: 'Mudanças' }).click();
    const panel = card.getByRole('tabpanel');
    await panel.locator('tbody tr').first().waitFor();
    expect(await panel.locator('tbody tr').count()).toBe(100);
    await showMore(panel, 'Mostrar mais: Mudanças em Contoso BI', BULK + 5);
    const ids = await rowIds(panel);
    expect(ids).toHaveLength(BULK + 5);
    expect(new Set(ids).size).toBe(BULK + 5);
    expect(ids.slice(0, 5)).toEqual(['rec-model', 'rec-creds', 'rec-capacity', 'rec-switch', 'rec-other-gw']);
    expect(ids.at(-1)).toBe(`bulk-${BULK - 1}`);
    // The last page read: no more to show.
    expect(await panel.getByRole('button', { name: /^Mostrar mais/ }).count()).toBe(0);
    await p.context().close();
  });

  /** Opens one row's changes on a list page and answers the panel with its rows' ids and links. */
  async function objectChanges(p: Page, path: string, button: string): Promise<{ panel: Locator; rows: string[] }> {
    await p.goto(`${session.server.origin}${path}`);
    await p.getByRole('button', { name: button }).click();
    const panel = p.getByRole('tabpanel');
    await panel.locator('tbody tr').first().waitFor();
    const rows = await panel.locator('tbody tr').evaluateAll((trs) => trs.map((r) => `${r.getAttribute('data-change')} ${r.querySelectorAll('td')[2]?.textContent}`));
    return { panel, rows };
  }

  it('opens one model’s, gateway’s and capacity’s changes with what each depends on (English)', async () => {
    const p = await openConsole(session.server, ORG_NAME, { lang: 'en', path: '/semantic-models' });
    const model = await objectChanges(p, '/semantic-models', 'Changes of Vendas');
    expect(await p.getByRole('tab', { name: 'Changes' }).getAttribute('aria-selected')).toBe('true');
    await expect(p.getByRole('heading', { name: 'Changes to Vendas and what it depends on' }).evaluate((h) => h === document.activeElement)).resolves.toBe(true);
    // Its own binding, its data source's credentials, its capacity, the tenant's setting; not Estoque's nor GW Filial's.
    expect(model.rows).toEqual(['rec-model the object itself', 'rec-creds data source', 'rec-capacity capacity', 'rec-switch tenant setting']);
    expect(await model.panel.getByRole('columnheader').allTextContents()).toEqual(['When', 'Activity', 'Object', 'Link', 'Who', 'Outcome']);
    expect(await model.panel.getByRole('button', { name: /^Show more/ }).count()).toBe(0);

    // Back to every item's changes: the hundred first, then the rest.
    await model.panel.getByRole('button', { name: 'Back to all changes' }).click();
    await model.panel.getByRole('heading', { name: 'Changes in Contoso BI' }).waitFor();
    await model.panel.locator('tbody tr').nth(99).waitFor();
    expect(await model.panel.locator('tbody tr').count()).toBe(100);
    await showMore(model.panel, 'Show more: Changes in Contoso BI', BULK + 1);
    expect(await model.panel.locator('tbody tr').count()).toBe(BULK + 1);

    const gateway = await objectChanges(p, '/gateways', 'Changes of GW Matriz');
    // Another model's bindings to it do not count (the join's rule); the tenant's settings do.
    expect(gateway.rows).toEqual(['rec-creds the object itself', 'rec-switch tenant setting']);

    const capacity = await objectChanges(p, '/capacities', 'Changes of cap-prod');
    expect(capacity.rows).toEqual(['rec-capacity the object itself', 'rec-switch tenant setting']);
    // A capacity only put in the inventory by hand has no connection to read changes from.
    await p.getByRole('tab', { name: 'List' }).click();
    expect(await p.locator('tr[data-capacity="cap-manual"]').getByRole('button').count()).toBe(0);
    await p.context().close();
  });

  it('names the row’s button and the object’s timeline in Portuguese', async () => {
    const p = await openConsole(session.server, ORG_NAME, { path: '/gateways' });
    const gateway = await objectChanges(p, '/gateways', 'Mudanças de GW Filial');
    await p.getByRole('heading', { name: 'Mudanças em GW Filial e no que depende dele' }).waitFor();
    expect(gateway.rows).toEqual(['rec-switch configuração do tenant', 'rec-other-gw o próprio objeto']);
    expect(await gateway.panel.getByRole('columnheader').allTextContents()).toEqual(['Quando', 'Atividade', 'Objeto', 'Ligação', 'Quem', 'Resultado']);
    await p.context().close();
  });
});
