// @engine-neutral: what the browser shows; the queries behind each page run on both engines in the API tests
/**
 * The pages a person reads (issue 39, item 5), in headless Chromium, in Portuguese and English:
 * the menu marks the page shown (also the organization list at `/`), the alerts list folds the
 * silenced "found at connection" incidents of a new tenant under one line, the Workspaces page
 * shows each id with a copy button, the utilization set-up offers the workspaces to choose from,
 * empty charts say "sem dados", and the SLA chart's axis is 0–100 %.
 */
import type { Page } from 'playwright-core';
import { beforeAll, describe, expect, it } from 'vitest';
import { commitRun } from '../../src/monitoring/engine/output.js';
import { releaseLease } from '../../src/monitoring/engine/lease.js';
import { TEST_ADMIN_TOKEN } from '../helpers/context.js';
import { openConsole, signInWithToken, useConsoleServer } from '../helpers/console-session.js';
import { clickNavLink, openTenantPart } from '../helpers/console-nav.js';
import { tenantBody } from '../monitoring/support.js';

const ORG_NAME = 'Páginas lidas';
const WS = { name: 'Vendas', remoteId: '0b6f3c1e-5a7d-4e2f-9c8b-1d2e3f4a5b6c' };
const LANGS = ['pt-BR', 'en'] as const;
const TEXT = {
  'pt-BR': {
    orgs: 'Acesso: Organizações',
    tenant: 'Monitor: Tenant',
    alerts: 'Entrega: Alertas',
    navTenant: 'Tenant',
    navAlerts: 'Alertas',
    navOrgs: 'Organizações',
    navWorkspaces: 'Workspaces',
    navOverview: 'Visão geral',
    folded: '3 alertas silenciados “encontrado na conexão”',
    copy: `Copiar o ID de ${WS.name}`,
    copied: 'Copiado',
    pick: 'Escolher o workspace',
    setupField: 'ID do workspace onde criar',
    noData: 'sem dados',
  },
  en: {
    orgs: 'Access: Organizations',
    tenant: 'Monitor: Tenant',
    alerts: 'Delivery: Alerts',
    navTenant: 'Tenant',
    navAlerts: 'Alerts',
    navOrgs: 'Organizations',
    navWorkspaces: 'Workspaces',
    navOverview: 'Overview',
    folded: '3 silenced “found at connection” alerts',
    copy: `Copy the ID of ${WS.name}`,
    copied: 'Copied',
    pick: 'Choose the workspace',
    setupField: 'ID of the workspace to create in',
    noData: 'no data',
  },
} as const;

describe('console: the pages a person reads', () => {
  const session = useConsoleServer({ config: { destinationAllowlist: ['127.0.0.1'] }, orgName: ORG_NAME });

  beforeAll(async () => {
    const t = session.server.t;
    const orgId = session.orgId;
    const created = await t.admin('POST', `/orgs/${orgId}/tenants`, tenantBody({ name: 'Contoso' }));
    expect(created.statusCode, created.body).toBe(201);
    const tenant = created.json() as { id: string };
    expect((await t.admin('PUT', `/orgs/${orgId}/workspaces`, [{ ...WS, capacityName: null }])).statusCode).toBe(200);
    // A new tenant's first pass: what it finds opens silenced "found at connection" (three), and
    // one incident arrives through the signals API.
    const signal = (sourceId: string) => ({
      sourceType: 'Dataset', sourceId, sourceName: sourceId, kind: 'failure' as const, notificationKind: 'RefreshFailed', severity: 'error' as const, title: `${sourceId} failed`, message: 'failed', occurredAt: new Date(),
    });
    const lease = { tenantRef: tenant.id, collector: 'refreshes', holder: 'reading-pages-test' };
    await t.ctx.db.query("UPDATE collector_schedules SET locked_by = $3, locked_until = now() + interval '1 minute' WHERE tenant_ref = $1 AND collector = $2", [lease.tenantRef, lease.collector, lease.holder]);
    await commitRun(t.ctx, orgId, lease, { signals: [signal('ds-1'), signal('ds-2'), signal('ds-3')], changes: [] });
    await releaseLease(t.ctx.db, lease);
    expect((await t.admin('POST', `/orgs/${orgId}/signals`, signal('ds-later'))).statusCode).toBe(200);
    const quiet = await t.ctx.db.query("SELECT count(*)::int AS n FROM alerts WHERE org_id = $1 AND silence_reason = 'found at connection'", [orgId]);
    expect(quiet.rows[0]!.n).toBe(3);
  }, 60_000);

  const here = (p: Page) => p.locator('#main-nav summary.current');

  /** A second organization with one capacity whose ARM name differs from its display name, and its cost this month. */
  async function capacityOrg(): Promise<string> {
    const t = session.server.t;
    const name = `Capacidades ${Math.random().toString(36).slice(2, 8)}`;
    const org = (await t.admin('POST', '/orgs', { name })).json().id as string;
    expect((await t.admin('PUT', `/orgs/${org}/capacities`, [{ name: 'Capacity 001', sku: 'F2', state: 'Active', region: 'Brazil South' }])).statusCode).toBe(200);
    // As the inventory collector stores it (test/monitoring/costs.test.ts joins it from the simulator).
    await t.ctx.db.query("UPDATE capacities SET arm_name = 'fabriccap001' WHERE org_id = $1", [org]);
    const today = new Date().toISOString().slice(0, 10);
    const cost = { date: today, capacityName: 'Capacity 001', currency: 'BRL', cost: 12.5, amortizedCost: 12.5, overageCost: 0 };
    expect((await t.admin('POST', `/orgs/${org}/costs`, [cost])).statusCode).toBe(200);
    return name;
  }

  for (const lang of LANGS) {
    it(`the menu marks the page shown, the organization list included (${lang})`, async () => {
      const T = TEXT[lang];
      // Signed in at "/" with no organization chosen: the list of organizations is the page.
      const context = await session.server.browser.newContext({ locale: lang === 'en' ? 'en-US' : 'pt-BR' });
      if (lang === 'en') await context.addInitScript(() => localStorage.setItem('vigia.lang', 'en'));
      const first = await context.newPage();
      await first.goto(`${session.server.origin}/`);
      await signInWithToken(first, TEST_ADMIN_TOKEN, lang);
      await first.getByRole('heading', { level: 1, name: T.navOrgs }).waitFor();
      expect(await here(first).textContent()).toBe(T.orgs);
      await context.close();

      const p = await openConsole(session.server, ORG_NAME, { lang });
      for (const [link, said] of [
        [T.navOrgs, T.orgs],
        [T.navTenant, T.tenant],
        [T.navAlerts, T.alerts],
      ] as const) {
        await clickNavLink(p, link);
        await expect.poll(() => here(p).textContent()).toBe(said);
        expect(await here(p).count()).toBe(1);
        expect(await p.locator('#main-nav a[aria-current="page"]').evaluate((a) => a.textContent)).toBe(link);
      }
      await p.context().close();
    });

    it(`the alerts list folds the "found at connection" incidents under one line (${lang})`, async () => {
      const T = TEXT[lang];
      const p = await openConsole(session.server, ORG_NAME, { lang, path: '/alerts' });
      const fold = p.getByTestId('found-at-connection');
      await fold.waitFor();
      expect(await fold.locator('summary').textContent()).toBe(T.folded);
      // The list shows two lines: the fold and the incident that pages.
      expect(await p.locator('ul.alerts > li').count()).toBe(2);
      expect(await p.locator('ul.alerts > li[data-alert-id]').textContent()).toContain('ds-later failed');
      const folded = fold.locator('li[data-alert-id]');
      expect(await folded.count()).toBe(3);
      expect(await folded.first().isVisible()).toBe(false);
      await fold.locator('summary').click();
      await folded.first().waitFor();
      const shown = (await folded.allTextContents()).join(' ');
      for (const id of ['ds-1', 'ds-2', 'ds-3']) expect(shown).toContain(`${id} failed`);
      await p.context().close();
    });

    it(`workspaces show their ids with a copy button, and the utilization set-up offers them (${lang})`, async () => {
      const T = TEXT[lang];
      const p = await openConsole(session.server, ORG_NAME, { lang });
      await p.context().grantPermissions(['clipboard-read', 'clipboard-write'], { origin: session.server.origin });
      await clickNavLink(p, T.navWorkspaces);
      const row = p.locator(`tr[data-workspace="${WS.name}"]`);
      await row.waitFor();
      expect(await row.locator('code').textContent()).toBe(WS.remoteId);
      const copy = row.getByRole('button', { name: T.copy });
      await copy.click();
      await copy.filter({ hasText: T.copied }).waitFor();
      expect(await p.evaluate(() => navigator.clipboard.readText())).toBe(WS.remoteId);

      await clickNavLink(p, T.navTenant);
      const card = p.locator('article[data-tenant="Contoso"]');
      await openTenantPart(card, 'settings');
      const setup = card.getByTestId('utilization-setup');
      const picker = setup.getByLabel(T.pick);
      await picker.waitFor();
      await picker.selectOption(WS.remoteId);
      expect(await setup.getByLabel(T.setupField).inputValue()).toBe(WS.remoteId);
      await p.context().close();
    });

    it(`Capacidades names a capacity by its display name, its ARM name beside, with its cost (${lang})`, async () => {
      const p = await openConsole(session.server, await capacityOrg(), { lang, path: '/capacities' });
      const row = p.locator('tr[data-capacity="Capacity 001"]');
      await row.waitFor();
      expect(await row.locator('th').textContent()).toBe('Capacity 001 fabriccap001');
      expect(await row.getByTestId('arm-name').textContent()).toBe('fabriccap001');
      expect(await row.locator('td').nth(4).textContent()).toMatch(/12[,.]50/);
      await p.context().close();
    });

    it(`empty charts say so and the SLA axis runs 0–100 % (${lang})`, async () => {
      const T = TEXT[lang];
      const p = await openConsole(session.server, ORG_NAME, { lang, path: '/overview' });
      // No capacity: the availability card says "no data" instead of a blank frame.
      const availability = p.locator('figure#availability');
      await availability.waitFor();
      expect(await availability.getByTestId('no-data').textContent()).toBe(T.noData);
      // This month has incidents: the compliance lines on a 0–100 % axis.
      const sla = p.locator('figure#sla .chart-canvas[data-y-max]');
      await sla.waitFor({ state: 'attached' });
      expect(await sla.getAttribute('data-y-min')).toBe('0');
      expect(await sla.getAttribute('data-y-max')).toBe('100');
      await p.context().close();
    });
  }
});
