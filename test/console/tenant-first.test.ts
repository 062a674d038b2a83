// @engine-neutral: what the browser shows; the queries behind the page run on both engines in the API tests
/**
 * The Tenant page puts the monitor's own problems first (issue 39, item 3): its open Tenant
 * incidents and the collectors that fail, in plain words, in the first screen of a 1,280 × 800
 * window; the collectors' table, the call budget and the settings one click away; and the page
 * of a healthy tenant at most 2,000 px tall. In Portuguese and in English, in headless Chromium
 * against the tenant simulator.
 */
import type { Locator, Page } from 'playwright-core';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { capacityCollector } from '../../src/monitoring/sources/capacity/capacity.js';
import { CollectorScheduler } from '../../src/monitoring/scheduler.js';
import type { TenantSim } from '../../src/tenant-sim/index.js';
import { openConsole, useConsoleServer } from '../helpers/console-session.js';
import { startSim } from '../tenant-sim/helpers.js';

const ORG_NAME = 'Tenant first org';
const WINDOW = { width: 1280, height: 800 };
const TEXT = {
  'pt-BR': {
    heading: 'Conexões de tenant',
    problems: 'Problemas do monitor com Contoso',
    noProblems: 'Nenhum problema do monitor com esta conexão.',
    waiting: /^Nenhum coletor falhou; \d+ ainda não rodaram\.$/,
    details: 'Coletores, cota de chamadas e rodízio',
    settings: 'Configurações: cota, espelhamento, utilização e atualização dos dados',
    table: 'Coletores de Contoso',
    failing: 'Capacidades não consegue ler o tenant:',
    never: 'Nunca leu com sucesso.',
    incident: /^O Vigia não consegue entrar no tenant.* · erro · /,
  },
  en: {
    heading: 'Tenant connections',
    problems: 'Monitor problems with Contoso',
    noProblems: 'No monitor problem with this connection.',
    waiting: /^No collector failed; \d+ have not run yet\.$/,
    details: 'Collectors, call budget and rotation',
    settings: 'Settings: budget share, mirroring, utilization and data freshness',
    table: 'Collectors of Contoso',
    failing: 'Capacities cannot read the tenant:',
    never: 'Never read successfully.',
    // The incident's title is stored as the catalog said it; the list's own words are English.
    incident: / · error · /,
  },
} as const;

describe('console Tenant page: the monitor’s own problems first', () => {
  const session = useConsoleServer({ config: { destinationAllowlist: ['127.0.0.1'] }, orgName: ORG_NAME });
  let sim: TenantSim;

  beforeAll(async () => {
    sim = await startSim({ seed: 39, sizes: { capacities: 2, workspaces: 3 } });
    const created = await session.server.t.admin('POST', `/orgs/${session.orgId}/tenants`, {
      name: 'Contoso',
      tenantId: sim.tenantId,
      clientId: sim.clientId,
      credentials: { clientSecret: sim.clientSecret },
      mode: 'admin',
      endpoints: { authorityHost: sim.origin, powerBi: sim.origin, fabric: sim.origin, arm: sim.origin },
    });
    expect(created.statusCode, created.body).toBe(201);
  }, 180_000);

  afterAll(async () => {
    await sim?.stop();
  });

  async function open(lang: 'pt-BR' | 'en'): Promise<{ p: Page; card: Locator }> {
    const p = await openConsole(session.server, ORG_NAME, { lang, viewport: WINDOW, path: '/tenants' });
    await p.getByRole('heading', { level: 1, name: TEXT[lang].heading }).waitFor();
    const card = p.locator('article[data-tenant="Contoso"]');
    await card.getByTestId('tenant-incidents').locator('p', { hasText: TEXT[lang].noProblems }).or(card.getByTestId('tenant-incidents').locator('li').first()).waitFor();
    return { p, card };
  }

  /** The element's bottom edge lies inside the first screen of the window. */
  async function inFirstScreen(l: Locator): Promise<boolean> {
    const box = await l.boundingBox();
    return box !== null && box.y + box.height <= WINDOW.height;
  }

  for (const lang of ['pt-BR', 'en'] as const) {
    it(`a healthy tenant: no problem said first, the tables one click away, the page at most 2,000 px (${lang})`, async () => {
      const T = TEXT[lang];
      const { p, card } = await open(lang);
      const problems = card.getByRole('heading', { name: T.problems });
      expect(await inFirstScreen(problems)).toBe(true);
      expect(await inFirstScreen(card.getByText(T.noProblems))).toBe(true);
      const ok = card.getByTestId('collectors-ok');
      expect(await ok.textContent()).toMatch(T.waiting);
      expect(await inFirstScreen(ok)).toBe(true);

      // The collectors' table and the settings are closed: the page of a healthy tenant is short.
      const table = card.getByRole('table', { name: T.table });
      expect(await table.isVisible()).toBe(false);
      expect(await card.getByTestId('api-budget').isVisible()).toBe(false);
      const height = await p.evaluate(() => document.body.scrollHeight);
      expect(height).toBeLessThanOrEqual(2000);

      // One click shows them.
      await card.locator('summary', { hasText: T.details }).click();
      await table.waitFor();
      expect(await card.getByTestId('api-budget').isVisible()).toBe(true);
      await card.locator('summary', { hasText: T.settings }).click();
      await card.getByTestId('cap-share').waitFor();
      await p.context().close();
    });
  }

  it('a refused sign-in: the incident and the failing collector open the card, in both languages', async () => {
    const t = session.server.t;
    // Only the capacity collector is due; it runs while the tenant refuses the credentials.
    await t.ctx.db.query('UPDATE collector_schedules SET next_run_at = $1', [new Date(Date.now() + 86_400_000)]);
    await t.ctx.db.query("UPDATE collector_schedules SET next_run_at = now() - interval '1 second' WHERE collector = 'capacity'");
    sim.control.refuseTokens({ on: true });
    const runner = new CollectorScheduler(t.ctx, { collectors: [capacityCollector], pollMs: 60_000 });
    try {
      expect(await runner.pass()).toBe(1);
    } finally {
      await runner.stop();
      sim.control.refuseTokens({ on: false });
    }
    for (const lang of ['pt-BR', 'en'] as const) {
      const T = TEXT[lang];
      const { p, card } = await open(lang);
      const failing = card.locator('li[data-failing="capacity"]');
      await failing.waitFor();
      expect(await failing.textContent()).toContain(T.failing);
      expect(await failing.textContent()).toContain(T.never);
      expect(await inFirstScreen(failing)).toBe(true);
      const incident = card.getByTestId('tenant-incidents').locator('li').first();
      await incident.waitFor();
      expect(await incident.textContent()).toMatch(T.incident);
      expect(await inFirstScreen(incident)).toBe(true);
      expect(await card.getByTestId('collectors-ok').count()).toBe(0);
      await p.context().close();
    }
  }, 120_000);
});
