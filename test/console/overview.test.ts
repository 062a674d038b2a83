// @engine-neutral: what the browser shows; the queries behind each page run on both engines in the API tests
/**
 * The console's overview and inventory pages in headless Chromium, over the demo data: each
 * chart's text alternative (its table) shows the public API's numbers for the same period; the
 * period picker changes them; the inventory pages link to the right incidents; both languages;
 * phone width without horizontal scroll; a failed request shows its message and a retry.
 * Every test opens its own browser context and signs in; the seeded organization is only read.
 *
 * With VIGIA_CONSOLE_SCREENSHOTS=<dir> the pg run also saves these pages at desktop and phone
 * width there (docs/console/ holds the ones shown in the README).
 */
import path from 'node:path';
import type { Page } from 'playwright-core';
import { DESKTOP, overflowAtPhoneWidth, PHONE, shot, SHOTS } from '../helpers/console-shots.js';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { seedDemo } from '../../src/demo.js';
import type { TestApp } from '../helpers/context.js';
import { openConsole as openSignedIn, startConsoleServer, type ConsoleServer } from '../helpers/console-session.js';
import { clickNavLink } from '../helpers/console-nav.js';

const ORG_NAME = 'Demo — Contoso Analytics';

describe('console overview and inventory in Chromium', () => {
  let server: ConsoleServer;
  let t: TestApp;
  let apiKey: string;

  const pub = async (url: string) => {
    const res = await t.app.inject({ method: 'GET', url: `/api/public/v1${url}`, headers: { 'x-api-key': apiKey } });
    expect(res.statusCode, res.body).toBe(200);
    return res.json();
  };

  /** A fresh browser context (pt-BR, São Paulo time unless told), signed in, the demo organization chosen. */
  function openConsole(opts: { locale?: string; timezoneId?: string } = {}): Promise<Page> {
    return openSignedIn(server, ORG_NAME, { viewport: DESKTOP, ...opts });
  }

  async function go(p: Page, link: string, heading: string): Promise<void> {
    await clickNavLink(p, link);
    await p.getByRole('heading', { level: 1, name: heading }).waitFor();
  }

  /** The data-value numbers of a table's cells, row by row (the text alternative as a test reads it). */
  async function tableValues(p: Page, selector: string): Promise<Record<string, number[]>> {
    return p.$$eval(`${selector} tbody tr`, (rows) =>
      Object.fromEntries(
        rows.map((r) => [
          (r as HTMLElement).dataset.day ?? (r as HTMLElement).dataset.month ?? (r as HTMLElement).dataset.capacity ?? r.querySelector('th')?.textContent ?? '',
          [...r.querySelectorAll('td[data-value]')].map((c) => Number((c as HTMLElement).dataset.value)),
        ]),
      ),
    );
  }

  async function orgIdOf(p: Page): Promise<string> {
    return (await p.evaluate(() => sessionStorage.getItem('vigia.orgId')))!;
  }

  async function period(p: Page): Promise<{ from: string; to: string }> {
    const el = p.getByTestId('period-shown');
    return { from: (await el.getAttribute('data-from'))!, to: (await el.getAttribute('data-to'))! };
  }

  async function noHorizontalScroll(p: Page): Promise<void> {
    expect(await overflowAtPhoneWidth(p)).toBeLessThanOrEqual(0);
  }

  beforeAll(async () => {
    server = await startConsoleServer({  });
    t = server.t;
    ({ apiKey } = await seedDemo(t.ctx, new Date()));
  }, 180_000);

  afterAll(async () => {
    await server?.close();
    expect(server?.pageErrors).toEqual([]);
  });

  it('every chart table of the overview shows the public API’s numbers for the period', async () => {
    const p = await openConsole();
    await go(p, 'Visão geral', 'Visão geral');
    await p.locator('#incidents-per-day .table-wrap table').waitFor({ state: 'attached' });
    const { from, to } = await period(p);
    const metrics = await pub(`/alerts/metrics?from=${from}&to=${to}`);
    expect(Number(await p.getByTestId('incidents-total').getAttribute('data-value'))).toBe(metrics.totals.incidents);
    expect(metrics.totals.incidents).toBeGreaterThan(0);

    // Incidents per day: each day's total is the public metrics of that one day.
    const perDay = await tableValues(p, '#incidents-per-day .table-wrap');
    expect(Object.keys(perDay)).toHaveLength(30);
    for (const day of Object.keys(perDay).slice(-5)) {
      const m = await pub(`/alerts/metrics?from=${day}&to=${day}`);
      expect(perDay[day]!.at(-1), day).toBe(m.totals.incidents);
    }

    // MTTA/MTTR of the first week: the public metrics of those seven days, in minutes.
    const firstWeekEnd = new Date(Date.parse(`${from}T00:00:00Z`) + 6 * 86_400_000).toISOString().slice(0, 10);
    const week = await pub(`/alerts/metrics?from=${from}&to=${firstWeekEnd}`);
    const weekRow = (await tableValues(p, '#mtta-mttr .table-wrap'))[Object.keys(await tableValues(p, '#mtta-mttr .table-wrap'))[0]!]!;
    const min = (s: number | null) => (s === null ? 0 : Math.round((s / 60) * 10) / 10);
    expect(weekRow).toEqual([min(week.mtta.medianSeconds), min(week.mtta.meanSeconds), min(week.mttr.medianSeconds), min(week.mttr.meanSeconds)]);

    // SLA: each of the 12 months equals the public report of that month.
    const sla = await tableValues(p, '#sla .table-wrap');
    expect(Object.keys(sla)).toHaveLength(12);
    for (const month of Object.keys(sla).slice(-2)) {
      const r = await pub(`/sla?month=${month}`);
      // A month without incidents has no compliance to show (its cells say "sem dados").
      expect(sla[month]).toEqual(r.totals.incidents > 0 ? [r.totals.incidents, r.totals.ackCompliancePercent, r.totals.resolutionCompliancePercent] : [0]);
    }

    // Availability of the period's month, per capacity.
    const avail = await tableValues(p, '#availability .table-wrap');
    const report = await pub(`/sla?month=${to.slice(0, 7)}`);
    // The month is still running: an open capacity incident adds downtime between the page's read
    // and this one, so allow the seconds in between (a minute at most).
    for (const a of report.availability) {
      const [percent, down] = avail[a.capacityName]!;
      expect(Math.abs(percent! - a.availabilityPercent)).toBeLessThan(0.01);
      expect(Math.abs(down! - a.downtimeMinutes)).toBeLessThanOrEqual(1);
    }

    // Costs: each day's capacities in the currency the public API picks for the period.
    const costs = await tableValues(p, '#costs .table-wrap');
    const page = await pub(`/costs/daily?from=${from}&to=${to}&pageSize=500`);
    expect(page.value.length).toBeGreaterThan(0);
    const caps = [...new Set<string>(page.value.map((c: { capacityName: string }) => c.capacityName))].sort();
    for (const c of page.value.slice(0, 10)) expect(costs[c.date]![caps.indexOf(c.capacityName)]).toBe(c.cost);
    await expect(p.locator('#costs h2').textContent()).resolves.toContain(page.value[0].currency);

    // Noisiest sources.
    const noisy = await tableValues(p, '#noisiest');
    for (const s of metrics.noisiestSources) expect(noisy[s.sourceName]).toEqual([s.incidents, s.occurrences]);

    // Pictures for people, tables for screen readers: the canvases are hidden from them.
    expect(await p.locator('.chart-canvas canvas').count()).toBeGreaterThanOrEqual(4);
    expect(await p.locator('.chart-canvas[aria-hidden="true"]').count()).toBe(await p.locator('.chart-canvas').count());
    await noHorizontalScroll(p);
    await shot(p, 'overview');
  });

  it('each table is one click away; no-data months, zoomed availability and two-decimal money', async () => {
    const p = await openConsole();
    await go(p, 'Visão geral', 'Visão geral');
    const table = p.locator('#incidents-per-day .table-wrap table');
    await table.waitFor({ state: 'attached' });
    await p.locator('.chart-canvas canvas').first().waitFor();
    // The page holds its charts, not their tables: far under the 5,311 px of the tables shown.
    const height = await p.evaluate(() => document.documentElement.scrollHeight);
    expect(height).toBeLessThan(2400);
    expect(await table.isVisible()).toBe(false);
    const summary = p.locator('#incidents-per-day summary');
    expect(await summary.textContent()).toBe('Ver dados (tabela)');
    await summary.click();
    expect(await table.isVisible()).toBe(true);
    expect(await p.locator('#sla .table-wrap table').isVisible()).toBe(false);

    // Money: always two decimals, in the viewer's locale (pt-BR: comma, dot for thousands).
    await p.locator('#costs summary').click();
    const cells = await p.locator('#costs tbody td').allTextContents();
    expect(cells.length).toBeGreaterThan(0);
    for (const c of cells) expect(c).toMatch(/^\d{1,3}(\.\d{3})*,\d{2}$/);

    // SLA: a month without incidents is "no data", never 100 %.
    await p.locator('#sla summary').click();
    const history = (await t.admin('GET', `/orgs/${await orgIdOf(p)}/sla/history`)).json() as { months: { month: string; totals: { incidents: number } }[] };
    const empty = history.months.filter((m) => m.totals.incidents === 0).map((m) => m.month);
    expect(empty.length).toBeGreaterThan(0);
    for (const month of empty) {
      const row = p.locator(`#sla tbody tr[data-month="${month}"]`);
      expect(await row.locator('td[data-no-data]').allTextContents()).toEqual(['sem dados', 'sem dados']);
      expect(await row.locator('td[data-value]').count()).toBe(1);
    }

    // Availability is drawn on an axis from just under the lowest capacity, not from 0.
    const lowest = Math.min(...(await p.locator('#availability tbody td:nth-of-type(1)').evaluateAll((c) => c.map((x) => Number((x as HTMLElement).dataset.value)))));
    const canvas = p.locator('#availability .chart-canvas');
    await canvas.locator('canvas').waitFor();
    await p.locator('#availability .chart-canvas[data-y-min]').waitFor({ state: 'attached' });
    const yMin = Number(await canvas.getAttribute('data-y-min'));
    expect(yMin).toBeGreaterThan(0);
    expect(yMin).toBeLessThan(lowest);
    expect(Number(await canvas.getAttribute('data-y-max'))).toBe(100);
  });

  it('in English: the data toggle and money in English', async () => {
    const p = await openConsole({ locale: 'en-US', timezoneId: 'UTC' });
    await p.getByLabel('Idioma').selectOption('en');
    await go(p, 'Overview', 'Overview');
    await p.locator('#costs .table-wrap table').waitFor({ state: 'attached' });
    expect(await p.locator('#costs summary').textContent()).toBe('Show data (table)');
    await p.locator('#costs summary').click();
    for (const c of await p.locator('#costs tbody td').allTextContents()) expect(c).toMatch(/^\d{1,3}(,\d{3})*\.\d{2}$/);
    // Source types are named in English in the legend and table, not as codes.
    const heads = await p.locator('#incidents-per-day thead th').allTextContents();
    expect(heads).toContain('Semantic model');
    expect(heads).not.toContain('Dataset');
  });

  it('navigation: one line at 1280 px, a menu on a phone; an organization opens on its overview; source types are a list', async () => {
    const p = await openConsole();
    // "Abrir" lands on the organization's home.
    await p.getByRole('heading', { level: 1, name: 'Visão geral' }).waitFor();
    await p.locator('.chart-canvas canvas').first().waitFor();
    expect(new URL(p.url()).pathname).toBe('/overview');
    const header = (await p.locator('header.top').boundingBox())!;
    expect(header.height).toBeLessThan(64);
    const tops = await p.locator('header.top nav summary').evaluateAll((els) => els.map((e) => Math.round(e.getBoundingClientRect().top)));
    expect(tops).toHaveLength(3);
    expect(new Set(tops).size).toBe(1);
    expect(await p.locator('header.top nav summary').allTextContents()).toEqual(['Monitor: Visão geral', 'Entrega', 'Acesso']);
    await p.locator('header.top nav summary', { hasText: 'Entrega' }).click();
    await shot(p, 'navigation');
    await p.keyboard.press('Escape');

    // A phone: the navigation folds behind the menu button.
    await p.setViewportSize(PHONE);
    const nav = p.getByRole('navigation', { name: 'Navegação principal' });
    expect(await nav.isVisible()).toBe(false);
    const menu = p.getByRole('button', { name: 'Menu' });
    expect(await menu.getAttribute('aria-expanded')).toBe('false');
    await menu.click();
    expect(await menu.getAttribute('aria-expanded')).toBe('true');
    await nav.locator('summary', { hasText: 'Entrega' }).click();
    if (SHOTS) await p.screenshot({ path: path.join(SHOTS, 'navigation-phone.png') });
    await nav.getByRole('link', { name: 'Alertas', exact: true }).click();
    await p.getByRole('heading', { level: 1, name: 'Alertas' }).waitFor();
    expect(await nav.isVisible()).toBe(false);
    await p.setViewportSize(DESKTOP);

    // The source type filter offers the known types, named in Portuguese.
    const select = p.getByLabel('Tipo de origem');
    expect(await select.evaluate((e) => e.tagName)).toBe('SELECT');
    const options = await select.locator('option').allTextContents();
    expect(options).toContain('Modelo semântico');
    expect(options).toContain('Capacidade');
    await select.selectOption('Dataset');
    await p.getByRole('button', { name: 'Filtrar' }).click();
    await expect.poll(async () => (await p.locator('li[data-alert-id] p.muted').allTextContents()).length, { timeout: 15_000 }).toBeGreaterThan(0);
    await expect.poll(async () => (await p.locator('li[data-alert-id] p.muted').allTextContents()).every((l) => l.startsWith('Modelo semântico · ')), { timeout: 15_000 }).toBe(true);
    // No codes of the monitor in the Portuguese alert lines.
    const lines = (await p.locator('li[data-alert-id] p.muted').allTextContents()).join(' ');
    for (const code of ['Dataset', 'RefreshFailed', 'RefreshSlow', 'Capacity', 'DataFreshness', 'FabricJob']) expect(lines).not.toMatch(new RegExp(`\\b${code}\\b`));
  });

  it('the period picker drives every figure: 7 days, then a month', async () => {
    const p = await openConsole();
    await go(p, 'Visão geral', 'Visão geral');
    await p.locator('#incidents-per-day .table-wrap table').waitFor({ state: 'attached' });
    await p.getByLabel('Período').selectOption('7');
    await expect.poll(async () => Object.keys(await tableValues(p, '#incidents-per-day .table-wrap')).length, { timeout: 15_000 }).toBe(7);
    const seven = await period(p);
    const m7 = await pub(`/alerts/metrics?from=${seven.from}&to=${seven.to}`);
    await expect.poll(async () => Number(await p.getByTestId('incidents-total').getAttribute('data-value')), { timeout: 15_000 }).toBe(m7.totals.incidents);

    await p.getByLabel('Período').selectOption('month');
    const months = await p.locator('#period-month option').evaluateAll((o) => o.map((x) => (x as HTMLOptionElement).value));
    await p.getByLabel('Mês', { exact: true }).selectOption(months[1]!);
    await expect.poll(async () => (await period(p)).from, { timeout: 15_000 }).toBe(`${months[1]}-01`);
    const month = await period(p);
    const mm = await pub(`/alerts/metrics?from=${month.from}&to=${month.to}`);
    await expect.poll(async () => Number(await p.getByTestId('incidents-total').getAttribute('data-value')), { timeout: 15_000 }).toBe(mm.totals.incidents);
    await expect.poll(async () => Object.keys(await tableValues(p, '#incidents-per-day .table-wrap')).length, { timeout: 15_000 }).toBe(
      (Date.parse(`${month.to}T00:00:00Z`) - Date.parse(`${month.from}T00:00:00Z`)) / 86_400_000 + 1,
    );
    // The month list is in the interface language (no browser date input in mm/dd/yyyy).
    expect(await p.locator('#period-month option').first().textContent()).toMatch(/de \d{4}|\d{4}/);
    expect(await p.locator('input[type="date"]').count()).toBe(0);
  });

  it('capacities and workspaces link to their open incidents; focus lands on the heading', async () => {
    const p = await openConsole();
    await go(p, 'Capacidades', 'Capacidades');
    await expect.poll(() => p.evaluate(() => document.activeElement?.tagName)).toBe('H1');
    await p.locator('#capacities').waitFor();
    const caps = await tableValues(p, '#capacities');
    expect(Object.keys(caps)).toEqual(['cap-bi-p1', 'cap-dev-f8', 'cap-prod-f64']);
    const openProd = caps['cap-prod-f64']!.at(-1)!;
    expect(openProd).toBeGreaterThan(0);
    await noHorizontalScroll(p);
    await shot(p, 'capacities');
    await p.getByRole('link', { name: `Incidentes abertos de cap-prod-f64: ${openProd}` }).click();
    await p.getByTestId('alerts-scope').waitFor();
    await expect.poll(() => p.locator('li[data-alert-id]').count(), { timeout: 15_000 }).toBe(Math.min(openProd, 25));
    const texts = await p.locator('li[data-alert-id] p.muted').allTextContents();
    expect(texts.length).toBe(Math.min(openProd, 25));

    await go(p, 'Workspaces', 'Workspaces');
    await p.locator('#workspaces').waitFor();
    const ws = await tableValues(p, '#workspaces');
    const vendas = ws.Vendas!.at(-1)!;
    await noHorizontalScroll(p);
    await shot(p, 'workspaces');
    await p.getByRole('link', { name: `Incidentes abertos de Vendas: ${vendas}` }).click();
    await p.getByTestId('alerts-scope').waitFor();
    await expect.poll(() => p.locator('li[data-alert-id]').count(), { timeout: 15_000 }).toBe(Math.min(vendas, 25));
  });

  it('in English: texts, numbers and months in English', async () => {
    const p = await openConsole({ locale: 'en-US', timezoneId: 'UTC' });
    await p.getByLabel('Idioma').selectOption('en');
    await go(p, 'Overview', 'Overview');
    await p.locator('#sla .table-wrap table').waitFor({ state: 'attached' });
    await expect(p.getByRole('heading', { name: 'SLA of the last 12 months' }).count()).resolves.toBe(1);
    const shown = await p.getByTestId('period-shown').textContent();
    expect(shown).toMatch(/^From \d{1,2}\/\d{1,2}\/\d{2} to/);
    const monthCell = await p.locator('#sla .table-wrap tbody th').first().textContent();
    expect(monthCell).toMatch(/^[A-Z][a-z]{2} \d{4}$/);
    await go(p, 'Capacities', 'Capacities');
    // The heading shows before the table's read answers: wait for the header, then count it.
    const header = p.getByRole('columnheader', { name: 'Availability this month (%)' });
    await header.first().waitFor();
    expect(await header.count()).toBe(1);
  });

  it('the reads of a page left behind are cancelled and never land on the next page', async () => {
    const p = await openConsole();
    // Hold the capacities answer until the test lets it go.
    let release!: () => void;
    const held = new Promise<void>((resolve) => (release = resolve));
    await p.route('**/api/admin/v1/orgs/*/capacities', async (route) => {
      await held;
      await route.continue().catch(() => undefined);
    });
    const aborted = new Promise<string>((resolve) =>
      p.on('requestfailed', (req) => {
        if (req.url().endsWith('/capacities')) resolve(req.failure()?.errorText ?? '');
      }),
    );
    await go(p, 'Capacidades', 'Capacidades');
    await p.getByRole('status').filter({ hasText: 'Carregando' }).waitFor();
    await go(p, 'Workspaces', 'Workspaces');
    // Bounded: without the abort the request would just stay held.
    const reason = await Promise.race([aborted, new Promise<string>((r) => setTimeout(() => r('not aborted within 10 s'), 10_000))]);
    expect(reason).toMatch(/ABORTED/);
    release();
    await p.locator('#workspaces').waitFor();
    expect(await p.locator('#capacities').count()).toBe(0);
    expect(await p.getByRole('alert').count()).toBe(0);
  });

  it('a refused field carries aria-invalid and its message', async () => {
    const p = await openConsole();
    await go(p, 'Organizações', 'Organizações');
    const name = p.getByLabel('Nome da organização');
    expect(await name.getAttribute('aria-invalid')).toBeNull();
    await name.fill('   ');
    await p.getByRole('button', { name: 'Criar' }).click();
    await expect.poll(() => name.getAttribute('aria-invalid'), { timeout: 10_000 }).toBe('true');
    const described = await name.getAttribute('aria-describedby');
    expect(await p.locator(`#${described}`).textContent()).toBeTruthy();
  });

  it('a 500 from the server shows its message in the chosen language and a retry that recovers', async () => {
    const p = await openConsole();
    let failing = true;
    await p.route('**/api/admin/v1/orgs/*/capacities', (route) =>
      failing
        ? route.fulfill({ status: 500, contentType: 'application/json', body: JSON.stringify({ error: { code: 'internal_error', message: 'internal error' } }) })
        : route.continue(),
    );
    await go(p, 'Capacidades', 'Capacidades');
    const alert = p.getByRole('alert');
    await alert.waitFor();
    expect(await alert.textContent()).toContain('Erro interno do servidor');
    failing = false;
    await alert.getByRole('button', { name: 'Tentar de novo' }).click();
    await p.locator('#capacities').waitFor();
    expect(await p.getByRole('alert').count()).toBe(0);
  });
});
