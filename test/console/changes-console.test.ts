// @engine-neutral: what the browser shows; the join and the timeline's queries run on both engines in the API tests
/**
 * What changed before it broke, in the console (headless Chromium, both languages): the alert
 * page's "O que mudou antes" / "What changed before" (the sentence, the ranked changes, who made
 * them for the admin), and the "Mudanças" / "Changes" tab of the tenant card and of the gateways
 * page listing the tenant's changes. The data goes through the real tables and the real commit:
 * changes with insertChanges, lineage with savePlacements/saveDatasources, the incident opened by
 * a refreshes run committed under its lease (which joins the changes).
 */
import type { Page } from 'playwright-core';
import { beforeAll, describe, expect, it } from 'vitest';
import { commitRun } from '../../src/monitoring/engine/output.js';
import { releaseLease } from '../../src/monitoring/engine/lease.js';
import { insertChanges, type TenantChange } from '../../src/monitoring/changes/store.js';
import { saveDatasources, savePlacements } from '../../src/monitoring/lineage/lineage.js';
import { openConsole, useConsoleServer } from '../helpers/console-session.js';
import { tenantBody } from '../monitoring/support.js';

const ORG_NAME = 'Mudanças org';
const MODEL = 'aaaaaaaa-0000-0000-0000-00000000000a';
const GATEWAY = 'bbbbbbbb-0000-0000-0000-00000000000b';
const SOURCE = 'cccccccc-0000-0000-0000-00000000000c';
const UPN = 'ana.souza@contoso.example';
const NO_LINKS = { datasetId: null, gatewayId: null, datasourceId: null, workspaceId: null, capacityId: null };

describe('changes in the console (Chromium)', () => {
  const session = useConsoleServer({ orgName: ORG_NAME });
  let alertId: string;

  beforeAll(async () => {
    const t = session.server.t;
    const orgId = session.orgId;
    const res = await t.admin('POST', `/orgs/${orgId}/tenants`, tenantBody({ name: 'Contoso BI' }));
    expect(res.statusCode, res.body).toBe(201);
    const tenant = res.json().id as string;
    const now = t.ctx.clock.now();
    const ago = (m: number) => new Date(now.getTime() - m * 60_000);
    await savePlacements(t.ctx.db, tenant, [{ itemId: MODEL, itemType: 'SemanticModel', itemName: 'Vendas', workspaceId: 'ws-1', capacityId: null }], now);
    await saveDatasources(t.ctx.db, tenant, MODEL, [GATEWAY], [SOURCE], now);
    const base = { isSuccess: true, actorUpn: UPN, actorType: 0 };
    const changes: TenantChange[] = [
      { ...base, recordId: 'rec-creds', activity: 'UpdateDatasourceCredentials', occurredAt: ago(12), object: { kind: 'gateway', id: GATEWAY, type: null, name: 'GW Matriz' }, links: { ...NO_LINKS, gatewayId: GATEWAY, datasourceId: SOURCE }, raw: {} },
      { ...base, recordId: 'rec-switch', activity: 'UpdatedAdminFeatureSwitch', occurredAt: ago(300), object: { kind: 'tenant', id: null, type: null, name: null }, links: NO_LINKS, raw: {} },
    ];
    await insertChanges(t.ctx.db, orgId, tenant, changes, now);

    // A refreshes run of the tenant opens the model's failure (its commit joins the changes).
    const lease = { tenantRef: tenant, collector: 'refreshes', holder: 'changes-console-test' };
    await t.ctx.db.query("UPDATE collector_schedules SET first_pass_done = true, locked_by = $3, locked_until = now() + interval '1 minute' WHERE tenant_ref = $1 AND collector = $2", [tenant, 'refreshes', lease.holder]);
    const signal = { sourceType: 'Dataset', sourceId: MODEL, sourceName: 'Vendas', kind: 'failure' as const, notificationKind: 'RefreshFailed', severity: 'error' as const, title: 'Vendas: a atualização falhou', message: 'Falhou', occurredAt: now };
    const [out] = await commitRun(t.ctx, orgId, lease, { signals: [signal], changes: [] });
    await releaseLease(t.ctx.db, lease);
    alertId = out!.alertId!;
  }, 180_000);

  async function alertTimeline(lang: 'pt-BR' | 'en'): Promise<{ p: Page; text: string }> {
    const p = await openConsole(session.server, ORG_NAME, { lang, path: `/alerts/${alertId}` });
    const section = p.getByTestId('what-changed-before');
    await section.getByRole('heading', { name: lang === 'en' ? 'What changed before' : 'O que mudou antes' }).waitFor();
    await section.locator('li').first().waitFor();
    return { p, text: (await section.textContent()) ?? '' };
  }

  it('shows the alert page timeline in Portuguese, and the tenant card’s Mudanças tab', async () => {
    const { p, text } = await alertTimeline('pt-BR');
    expect(text).toContain('A atualização falhou 12 min depois que as credenciais da fonte foram alteradas');
    const items = await p.getByTestId('what-changed-before').locator('li').allTextContents();
    expect(items).toHaveLength(2);
    expect(items[0]).toContain('UpdateDatasourceCredentials');
    expect(items[0]).toContain('GW Matriz · 12 min antes');
    expect(items[0]).toContain('ligação: fonte de dados');
    expect(items[0]).toContain(`por ${UPN}`);
    expect(items[1]).toContain('UpdatedAdminFeatureSwitch');
    expect(items[1]).toContain('5 h antes');

    await p.goto(`${session.server.origin}/tenants`);
    const card = p.locator('article[data-tenant="Contoso BI"]');
    await card.getByRole('tab', { name: 'Visão geral' }).waitFor();
    expect(await card.getByRole('tab', { name: 'Visão geral' }).getAttribute('aria-selected')).toBe('true');
    await card.getByRole('tab', { name: 'Mudanças' }).click();
    const panel = card.getByRole('tabpanel');
    await panel.getByRole('heading', { name: 'Mudanças em Contoso BI' }).waitFor();
    await panel.locator('tr[data-change="rec-creds"]').waitFor();
    expect(await panel.locator('tbody tr').count()).toBe(2);
    const row = (await panel.locator('tr[data-change="rec-creds"]').textContent()) ?? '';
    expect(row).toContain('UpdateDatasourceCredentials');
    expect(row).toContain('gateway: GW Matriz');
    expect(row).toContain(UPN);
    await p.context().close();
  });

  it('shows the alert page timeline in English, and the gateways page’s Changes tab', async () => {
    const { p, text } = await alertTimeline('en');
    expect(text).toContain('The refresh failed 12 min after the data source credentials were changed');
    expect(text).toContain('GW Matriz · 12 min before');
    expect(text).toContain('link: data source');
    expect(text).toContain(`by ${UPN}`);

    await p.goto(`${session.server.origin}/gateways`);
    await p.getByRole('tab', { name: 'List' }).waitFor();
    await p.getByRole('tab', { name: 'Changes' }).click();
    const panel = p.getByRole('tabpanel');
    await panel.getByRole('heading', { name: 'Changes in Contoso BI' }).waitFor();
    await panel.locator('tr[data-change="rec-creds"]').waitFor();
    // Only changes to gateways: the tenant setting is not listed here.
    expect(await panel.locator('tbody tr').count()).toBe(1);
    expect(await panel.getByRole('columnheader').allTextContents()).toEqual(['When', 'Activity', 'Object', 'Who', 'Outcome']);
    await p.context().close();
  });
});
