// @engine-neutral: what the browser shows; the queries behind each page run on both engines in the API tests
/**
 * The console's Tenant page in headless Chromium against a real tenant simulator: connecting a
 * tenant through the form, the permission check with each fix in the chosen language, and "run
 * now" making a collector run (a scheduler pass, as the worker's) whose last run then shows.
 */
import type { Page } from 'playwright-core';
import { shot } from '../helpers/console-shots.js';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { capacityCollector } from '../../src/monitoring/sources/capacity/capacity.js';
import { CollectorScheduler } from '../../src/monitoring/scheduler.js';
import type { TenantSim } from '../../src/tenant-sim/index.js';
import type { TestApp } from '../helpers/context.js';
import { openConsole, useConsoleServer } from '../helpers/console-session.js';
import { startSim } from '../tenant-sim/helpers.js';
import { clickNavLink, openTenantPart } from '../helpers/console-nav.js';
import { applySignalsIn, commitRun } from '../../src/monitoring/engine/output.js';
import { releaseLease } from '../../src/monitoring/engine/lease.js';
import { tenantSignal } from '../../src/monitoring/engine/self-watch.js';
import { txWithRetry } from '../../src/db/retry.js';


const ORG_NAME = 'Tenant page org';

describe('console Tenant page in Chromium', () => {
  const session = useConsoleServer({ config: { destinationAllowlist: ['127.0.0.1'] }, orgName: ORG_NAME });
  let t: TestApp;
  let sim: TenantSim;

  beforeAll(async () => {
    t = session.server.t;
    sim = await startSim({ seed: 17, sizes: { capacities: 2, workspaces: 3 } });
  }, 180_000);

  afterAll(async () => {
    await sim?.stop();
  });

  async function openTenantPage(): Promise<Page> {
    const p = await openConsole(session.server, ORG_NAME);
    await clickNavLink(p, 'Tenant');
    await p.getByRole('heading', { level: 1, name: 'Conexões de tenant' }).waitFor();
    return p;
  }

  it('connects through the form, checks with fixes in both languages, and run now shows the collector’s run', async () => {
    const p = await openTenantPage();
    await p.getByText('Nenhum tenant conectado.').waitFor();

    // A missing field is refused on the page, before any request.
    await p.getByRole('button', { name: 'Conectar tenant' }).click();
    await p.getByRole('alert').getByText('Nome').first().waitFor();

    await p.getByLabel('Nome', { exact: true }).fill('Simulado');
    await p.getByLabel('ID do tenant (Entra ID)').fill(sim.tenantId);
    await p.getByLabel('ID do aplicativo (cliente)').fill(sim.clientId);
    await p.getByRole('textbox', { name: 'Segredo do cliente' }).fill(sim.clientSecret);
    await p.getByText('Endereços (avançado: simuladores e nuvens soberanas)').click();
    for (const label of ['Autoridade (login)', 'API do Power BI', 'API do Fabric', 'Azure Resource Manager']) await p.getByLabel(label).fill(sim.origin);
    await p.getByRole('button', { name: 'Conectar tenant' }).click();
    await p.getByText('Tenant Simulado conectado; o endpoint de token aceitou as credenciais.').waitFor();
    const card = p.locator('article[data-tenant="Simulado"]');
    await card.waitFor();
    expect(await p.locator('#tn-secret').inputValue()).toBe(''); // the form forgets the credential

    // The connection is stored with the simulator's endpoints and no credential in the answer.
    const listed = await t.admin('GET', `/orgs/${session.orgId}/tenants`);
    expect(listed.body).not.toContain(sim.clientSecret);
    const tenant = listed.json().value[0];
    expect(tenant).toMatchObject({ name: 'Simulado', tenantId: sim.tenantId, mode: 'admin', endpoints: { powerBi: sim.origin } });

    // The check: all present, then a missing admin permission names its fix in the chosen language.
    await card.getByRole('button', { name: 'Verificar permissões' }).click();
    await card.getByText('Tudo certo: todas as permissões estão presentes.').waitFor();
    expect(await card.locator('[data-check="token.powerbi"]').getAttribute('data-ok')).toBe('true');

    sim.control.adminApisForbidden({ on: true });
    try {
      await card.getByRole('button', { name: 'Verificar permissões' }).click();
      await card.getByText('Faltam permissões; veja como corrigir em cada item.').waitFor();
      const admin = card.locator('[data-check="admin.fabric"]');
      expect(await admin.getAttribute('data-ok')).toBe('false');
      expect(await admin.textContent()).toContain('grupo de segurança');
      await p.locator('#lang-select').selectOption('en');
      await card.getByText('Permissions are missing; each item says how to fix it.').waitFor();
      expect(await admin.textContent()).toContain('Service principals can access read-only admin APIs');
      await p.locator('#lang-select').selectOption('pt-BR');
    } finally {
      sim.control.adminApisForbidden({ on: false });
    }

    // An outage of the token endpoint is not a missing permission: "Ocupado", and the credentials were not refused.
    sim.control.refuseTokens({ on: true, kind: 'unavailable' });
    try {
      await card.getByRole('button', { name: 'Verificar permissões' }).click();
      const token = card.locator('[data-check="token.powerbi"]');
      await token.locator('strong', { hasText: 'Ocupado' }).waitFor();
      expect(await token.textContent()).toContain('as credenciais não foram recusadas');
      await p.locator('#lang-select').selectOption('en');
      await token.locator('strong', { hasText: 'Busy' }).waitFor();
      expect(await token.textContent()).toContain('the credentials were not refused');
      await p.locator('#lang-select').selectOption('pt-BR');
    } finally {
      sim.control.refuseTokens({ on: false });
    }

    // The collectors' table is one click away (the monitor's own problems come first).
    await openTenantPart(card, 'collectors');
    // Run now: nothing is due until the button asks for the capacity collector.
    await t.ctx.db.query('UPDATE collector_schedules SET next_run_at = $1', [new Date(Date.now() + 86_400_000)]);
    const runner = new CollectorScheduler(t.ctx, { collectors: [capacityCollector], pollMs: 60_000 });
    try {
      expect(await runner.pass()).toBe(0);
      const row = card.locator('tr[data-collector="capacity"]');
      expect(await row.getByTestId('last-run').textContent()).toBe('nunca');
      await row.getByRole('button', { name: 'Executar agora: Capacidades' }).click();
      await card.getByText('Execução de Capacidades pedida; a página atualiza sozinha.').waitFor();
      expect(await runner.pass()).toBe(1);
    } finally {
      await runner.stop();
    }
    // The page re-reads the collectors by itself: the last run, duration and calls appear.
    const row = card.locator('tr[data-collector="capacity"]');
    await row.locator('[data-testid="last-run"]:not([data-value=""])').waitFor({ timeout: 15_000 });
    expect(Date.parse((await row.getByTestId('last-run').getAttribute('data-value'))!)).toBeGreaterThan(Date.now() - 120_000);
    expect(await row.textContent()).toMatch(/\d+ ms/);
    // The capacity collector does not rotate: its "Rodízio completo" cell is empty. A rotating
    // collector's state (as pickForRun leaves it; the engine side is test/monitoring/rotation-visibility.test.ts) shows.
    expect(await card.getByRole('columnheader', { name: 'Rodízio completo' }).count()).toBe(1);
    expect(await row.getByTestId('rotation').textContent()).toBe('—');
    await t.ctx.db.query(
      `INSERT INTO collector_state (tenant_ref, collector, key, value, updated_at) VALUES ($1, 'jobs', 'rotation', $2::jsonb, now())`,
      [tenant.id, JSON.stringify({ cursor: 0, passStartedAt: null, lastFullRotationSeconds: 1800, hot: 120, cold: 4880 })],
    );
    await card.locator('tr[data-collector="jobs"] [data-testid="rotation"]').filter({ hasText: '1.800 s (120 sempre, 4.880 em rodízio)' }).waitFor({ timeout: 15_000 });
    // Nothing taking turns: every resource every run, not an empty "— s".
    await t.ctx.db.query(`UPDATE collector_state SET value = $2::jsonb WHERE tenant_ref = $1 AND collector = 'jobs' AND key = 'rotation'`, [
      tenant.id,
      JSON.stringify({ cursor: 0, passStartedAt: null, lastFullRotationSeconds: null, hot: 14, cold: 0 }),
    ]);
    await card.locator('tr[data-collector="jobs"] [data-testid="rotation"]').filter({ hasText: 'tudo a cada execução (14 sempre, 0 em rodízio)' }).waitFor({ timeout: 15_000 });
    // freshness reads its catalog in slices beside its models' rotation: both are shown.
    await t.ctx.db.query(
      `INSERT INTO collector_state (tenant_ref, collector, key, value, updated_at) VALUES ($1, 'freshness', 'rotation', $2::jsonb, now()), ($1, 'freshness', 'catalogRotation', $3::jsonb, now())`,
      [
        tenant.id,
        JSON.stringify({ cursor: 0, passStartedAt: null, lastFullRotationSeconds: 600, hot: 3, cold: 900 }),
        JSON.stringify({ cursor: 0, passStartedAt: null, lastFullRotationSeconds: 25_200, hot: 0, cold: 5000 }),
      ],
    );
    const freshness = card.locator('tr[data-collector="freshness"] [data-testid="rotation"]');
    await freshness.filter({ hasText: '600 s (3 sempre, 900 em rodízio)' }).waitFor({ timeout: 15_000 });
    expect(await freshness.getByTestId('catalog-rotation').textContent()).toBe('catálogo: 25.200 s (5.000 espaços de trabalho em fatias)');
    expect(await card.locator('tr[data-collector="jobs"] [data-testid="catalog-rotation"]').count()).toBe(0);
    // A gateway interval its budget cannot honour: the interval it runs at is shown, with the API's note as its title.
    await t.ctx.db.query(`UPDATE collector_schedules SET interval_seconds = 5 WHERE tenant_ref = $1 AND collector = 'gateway'`, [tenant.id]);
    await t.ctx.db.query(
      `INSERT INTO collector_state (tenant_ref, collector, key, value, updated_at) VALUES ($1, 'gateway', 'rotation', $2::jsonb, now())`,
      [tenant.id, JSON.stringify({ cursor: 0, passStartedAt: null, lastFullRotationSeconds: null, hot: 6, cold: 12, minIntervalSeconds: 34 })],
    );
    const effective = card.locator('tr[data-collector="gateway"] [data-testid="effective-interval"]');
    await effective.filter({ hasText: 'roda a cada 34 s (pedido: 5 s; a cota não paga mais)' }).waitFor({ timeout: 15_000 });
    expect(await effective.getAttribute('title')).toContain('runs every 34 s, not every 5 s');
    expect(await card.locator('tr[data-collector="jobs"] [data-testid="effective-interval"]').count()).toBe(0);
    // Collectors are named in the interface language, their code beside.
    expect(await card.locator('tr[data-collector="datasources"] th').textContent()).toBe('Fontes de dados datasources');
    await p.context().close();
  });

  it('says its incident list is the monitor’s own, and links to all the tenant’s open incidents', async () => {
    const orgId = session.orgId;
    const tenant = (await t.admin('GET', `/orgs/${orgId}/tenants`)).json().value[0] as { id: string; name: string };
    const signal = (sourceId: string, title: string) => ({
      sourceType: 'Dataset', sourceId, sourceName: sourceId, kind: 'failure' as const, notificationKind: 'RefreshFailed', severity: 'error' as const, title, message: title, occurredAt: new Date(),
    });
    // Two incidents a collector of this tenant raised, the monitor's own about the tenant, and one
    // that came through the signals API (no tenant).
    // A run of the tenant's refreshes collector commits under its lease, as the engine's runs do.
    const lease = { tenantRef: tenant.id, collector: 'refreshes', holder: 'tenant-page-test' };
    await t.ctx.db.query("UPDATE collector_schedules SET locked_by = $3, locked_until = now() + interval '1 minute' WHERE tenant_ref = $1 AND collector = $2", [lease.tenantRef, lease.collector, lease.holder]);
    await commitRun(t.ctx, orgId, lease, { signals: [signal('ds-a', 'Refresh A failed'), signal('ds-b', 'Refresh B failed')], changes: [] });
    await releaseLease(t.ctx.db, lease);
    await txWithRetry(t.ctx.db, (q) => applySignalsIn(q, t.ctx, orgId, [tenantSignal('failure', 'TenantThrottled', tenant, 'throttled', new Date())], new Date()));
    expect((await t.admin('POST', `/orgs/${orgId}/signals`, signal('ds-elsewhere', 'Elsewhere failed'))).statusCode).toBe(200);

    // The admin list filters by the connection: its collectors' incidents and the monitor's own.
    const listed = (await t.admin('GET', `/orgs/${orgId}/alerts?status=open&tenant=${tenant.id}&pageSize=200`)).json();
    const ids = listed.value.map((a: { sourceId: string }) => a.sourceId);
    expect(ids).toEqual(expect.arrayContaining(['ds-a', 'ds-b', tenant.id]));
    expect(ids).not.toContain('ds-elsewhere');
    const n = listed.totalCount as number;
    expect((await t.admin('GET', `/orgs/${orgId}/alerts?tenant=tn_unknown`)).json().totalCount).toBe(0);
    expect((await t.admin('GET', `/orgs/${orgId}/alerts?tenant=${'x'.repeat(101)}`)).statusCode).toBe(400);

    const p = await openTenantPage();
    const section = p.getByTestId('tenant-incidents');
    await section.getByRole('heading', { name: `Problemas do monitor com ${tenant.name}` }).waitFor();
    expect(await section.textContent()).toContain('Incidentes abertos do próprio Vigia sobre esta conexão');
    // The heading shows before the list's read answers: wait for the list.
    await section.locator('li').first().waitFor();
    expect(await section.locator('li').allTextContents()).toEqual([expect.stringMatching(/^O tenant continua limitando o Vigia/)]);
    const all = section.getByRole('link', { name: `Todos os incidentes abertos de ${tenant.name}: ${n}` });
    await all.waitFor();
    await shot(p, 'tenant');
    await all.click();
    await p.getByTestId('alerts-scope').filter({ hasText: `Filtrado por Tenant: ${tenant.name}` }).waitFor();
    await expect.poll(() => p.locator('li[data-alert-id]').count(), { timeout: 15_000 }).toBe(Math.min(n, 25));
    expect(await p.locator('li[data-alert-id]').allTextContents()).not.toContain(expect.stringContaining('Elsewhere'));

    // In English.
    await clickNavLink(p, 'Tenant');
    await p.locator('#lang-select').selectOption('en');
    await section.getByRole('heading', { name: `Monitor problems with ${tenant.name}` }).waitFor();
    await section.getByRole('link', { name: `All open incidents of ${tenant.name}: ${n}` }).waitFor();
    await p.context().close();
  });

  it('"Atualizar credenciais" saves a new secret through PATCH and shows the check; a wrong one is saved anyway, and said', async () => {
    const orgId = (await t.ctx.db.query<{ id: string }>('SELECT id FROM orgs WHERE name = $1', [ORG_NAME])).rows[0]!.id;
    const created = await t.admin('POST', `/orgs/${orgId}/tenants`, {
      name: 'Rotacionado',
      tenantId: sim.tenantId,
      clientId: sim.clientId,
      credentials: { clientSecret: 'not-the-secret' },
      mode: 'admin',
      endpoints: { authorityHost: sim.origin, powerBi: sim.origin, fabric: sim.origin, arm: sim.origin },
    });
    expect(created.statusCode).toBe(201);
    const p = await openTenantPage();
    const card = p.locator('article[data-tenant="Rotacionado"]');
    await card.getByRole('button', { name: 'Atualizar credenciais' }).click();
    const form = card.getByRole('form', { name: 'Atualizar credenciais de Rotacionado' });
    const field = form.getByLabel('Novo segredo do cliente (Valor, não o ID do segredo)');
    await field.fill('still-not-the-secret');
    await form.getByRole('button', { name: 'Salvar e verificar' }).click();
    await form.getByText('Credenciais salvas mesmo assim, mas a verificação falhou: veja como corrigir abaixo.').waitFor();
    const token = card.locator('[data-check="token.powerbi"]');
    expect(await token.getAttribute('data-ok')).toBe('false');
    expect(await token.textContent()).toContain('AADSTS7000215');
    expect(await field.inputValue()).toBe(''); // the form forgets the secret

    await field.fill(sim.clientSecret);
    await form.getByRole('button', { name: 'Salvar e verificar' }).click();
    await form.getByText('Credenciais salvas; a verificação passou.').waitFor();
    await card.getByText('Tudo certo: todas as permissões estão presentes.').waitFor();
    expect(await token.getAttribute('data-ok')).toBe('true');
    expect(await p.content()).not.toContain(sim.clientSecret);
    await p.context().close();
  }, 120_000);
});
