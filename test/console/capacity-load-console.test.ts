// @engine-neutral: what the browser shows; the queries behind each page run on both engines in the API tests
/**
 * Capacity load in the console, in headless Chromium: the Tenant page's `utilization` form
 * (sources, thresholds, per-capacity overrides) refuses wrong values in the console's words
 * without sending anything and saves through PATCH; the Capacidades page draws each capacity's
 * load with the 100 % line and its load incident shaded, the numbers one click away.
 */
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { setResolver } from '../../src/delivery/guarded-http.js';
import { storeWindows } from '../../src/monitoring/sources/utilization/capacity-history.js';
import type { WindowFigures } from '../../src/monitoring/sources/utilization/utilization-events.js';
import type { TenantSim } from '../../src/tenant-sim/index.js';
import { startSim } from '../tenant-sim/helpers.js';
import { clickNavLink, openTenantPart } from '../helpers/console-nav.js';
import type { TestApp } from '../helpers/context.js';
import { openConsole, startConsoleServer, type ConsoleServer } from '../helpers/console-session.js';
import { insertOrg, tenantBody } from '../monitoring/support.js';

const ORG_NAME = 'Capacity load org';

function win(at: Date, utilizationPct: number): WindowFigures {
  return {
    capacityId: 'cap-prod-id',
    capacityName: 'Produção F64',
    sku: 'F64',
    windowStart: at,
    baseCu: 64,
    capacityUnitMs: (utilizationPct / 100) * 64 * 30_000,
    utilizationPct,
    delayPct: utilizationPct,
    interactiveRejectionPct: utilizationPct / 2,
    backgroundRejectionPct: utilizationPct / 4,
    carryForwardCuMs: utilizationPct > 100 ? 128_000 : 0,
    workloads: {},
  };
}

describe('console: capacity load', () => {
  let server: ConsoleServer;
  let t: TestApp;
  let orgId: string;
  let tenantRef: string;
  let sim: TenantSim | undefined;

  beforeAll(async () => {
    server = await startConsoleServer({ config: { destinationAllowlist: ['127.0.0.1'] } });
    t = server.t;
    setResolver(t.ctx, async () => [{ address: '93.184.216.34', family: 4 }]);
    orgId = await insertOrg(t.ctx, ORG_NAME);
    const created = await t.admin('POST', `/orgs/${orgId}/tenants`, tenantBody({ name: 'Contoso' }));
    expect(created.statusCode).toBe(201);
    tenantRef = created.json().id;
  }, 180_000);

  afterAll(async () => {
    await sim?.stop();
    await server?.close();
    expect(server?.pageErrors).toEqual([]);
  });

  async function signIn(locale: string) {
    const p = await openConsole(server, ORG_NAME, { locale });
    return { context: p.context(), p };
  }

  it('fills the tenant\'s utilization form: refused values are said in Portuguese and nothing is sent; valid ones are saved', async () => {
    const { context, p } = await signIn('pt-BR');
    await clickNavLink(p, 'Tenant');
    await openTenantPart(p.locator('article[data-tenant="Contoso"]'), 'settings');
    const form = p.locator('article[data-tenant="Contoso"]').getByTestId('utilization');
    await form.waitFor();
    expect(await form.getByLabel('Limite de aviso (%)').inputValue()).toBe('80');
    expect(await form.getByLabel('Janelas de 30 s abaixo dos limites para recuperar').inputValue()).toBe('4');
    let patches = 0;
    p.on('request', (r) => {
      if (r.method() === 'PATCH') patches++;
    });
    const save = form.getByRole('button', { name: 'Salvar carga das capacidades' });
    const uri = form.getByLabel('URI de consulta');
    await uri.fill('http://trd-abc.z5.kusto.fabric.microsoft.com/db');
    await save.click();
    // Only the query URI given: the two other Eventhouse fields are asked for, and the URI is not asked twice.
    await form.getByText('Preencha URI de consulta, Banco de dados KQL, Tabela, ou deixe todos vazios para não usar esta fonte.').waitFor();
    expect(await form.getByLabel('Banco de dados KQL').getAttribute('aria-invalid')).toBe('true');
    await form.getByLabel('Banco de dados KQL').fill('CapacityMonitoring');
    await form.getByLabel('Tabela', { exact: true }).fill("Capacity'Events");
    await form.getByLabel('Limite de aviso (%)').fill('120');
    await form.getByLabel('Por capacidade, uma por linha').fill('Produção F64; 90');
    await form.getByLabel('Escopos ARM das capacidades A (Power BI Embedded), um por linha').fill('/subscriptions/nope');
    await save.click();
    await form.getByText('A URI de consulta deve começar com https:// e ter só o endereço (sem caminho).').waitFor();
    await form.getByText('Tabela: use letras, números, espaços e _ . - (sem aspas).').waitFor();
    await form.getByText('Limite de aviso (%) deve ser um número inteiro de 1 a 100.').waitFor();
    await form.getByText('Linha 1: o escopo deve ser /subscriptions/{id} ou /subscriptions/{id}/resourceGroups/{nome}.').waitFor();
    expect(await uri.getAttribute('aria-invalid')).toBe('true');
    expect(await p.evaluate(() => document.activeElement?.id)).toBe(await uri.getAttribute('id'));
    expect(patches).toBe(0);

    await uri.fill('https://trd-abc.z5.kusto.fabric.microsoft.com');
    await form.getByLabel('Tabela', { exact: true }).fill('CapacityEvents');
    await form.getByLabel('Limite de aviso (%)').fill('85');
    await form.getByLabel('Janelas de 30 s abaixo dos limites para recuperar').fill('6');
    await form.getByLabel('Escopos ARM das capacidades A (Power BI Embedded), um por linha').fill('/subscriptions/11111111-2222-3333-4444-555555555555/resourceGroups/rg-embedded');
    await form.getByLabel('Por capacidade, uma por linha').fill('Produção F64; 90; 10\nTeste F2; ; 2');
    // Issue 35: a new query URI receives the connection's tokens, so the secret is asked for again.
    await save.click();
    await form.getByText('Informe o segredo do cliente de novo para definir ou mudar a URI de consulta (uma conexão com certificado: use a API de administração).').waitFor();
    expect(patches).toBe(0);
    await form.getByLabel('Segredo do cliente', { exact: true }).fill('console-given-secret');
    await save.click();
    await form.getByText('Carga das capacidades de Contoso salva.').waitFor();
    expect(patches).toBe(1);
    expect((await t.admin('GET', `/orgs/${orgId}/tenants/${tenantRef}`)).json().utilization).toEqual({
      eventhouse: { queryUri: 'https://trd-abc.z5.kusto.fabric.microsoft.com', database: 'CapacityMonitoring', table: 'CapacityEvents' },
      metricsApp: null,
      armScopes: ['/subscriptions/11111111-2222-3333-4444-555555555555/resourceGroups/rg-embedded'],
      warnPercent: 85,
      recoverWindows: 6,
      overrides: { 'Produção F64': { warnPercent: 90, recoverWindows: 10 }, 'Teste F2': { recoverWindows: 2 } },
    });
    await context.close();
  });

  it('draws each capacity\'s load with the 100 % line and its incident, the numbers one click away (both languages)', async () => {
    const hour = Math.floor(Date.now() / 3_600_000) * 3_600_000;
    const h1 = new Date(hour - 3 * 3_600_000);
    const h2 = new Date(hour - 2 * 3_600_000);
    await storeWindows(t.ctx.db, orgId, tenantRef, [win(h1, 40), win(new Date(h1.getTime() + 30_000), 60), win(h2, 150)]);
    const signal = { sourceType: 'Capacity', sourceId: 'cap-prod-id', sourceName: 'Produção F64', capacityName: 'Produção F64', kind: 'failure', notificationKind: 'CapacityThrottled', title: 'Produção F64: atraso interativo', message: 'Atraso interativo' };
    expect((await t.admin('POST', `/orgs/${orgId}/signals`, signal)).statusCode).toBe(200);

    const { context, p } = await signIn('pt-BR');
    await clickNavLink(p, 'Capacidades');
    const chart = p.locator('[data-capacity-load="Produção F64"]');
    await chart.getByRole('heading', { name: 'Carga de Produção F64', exact: true }).waitFor();
    // Load only from the last hours: the section opens on the last 24 hours (not one dot at the far
    // left of a week), in 30-second windows that show their seconds.
    const period = p.getByLabel('Período da carga');
    await p.waitForFunction(() => document.querySelectorAll('[data-capacity-load] table[id$="-table"] tbody tr').length === 3);
    expect(await period.inputValue()).toBe('24h');
    const times = await chart.locator('table[id$="-table"] tbody tr th').allTextContents();
    expect(times[0]).toMatch(/^\d{2}\/\d{2}, \d{2}:00:00$/);
    expect(times[1]).toMatch(/^\d{2}\/\d{2}, \d{2}:00:30$/);
    // The week, by the hour: two points, without seconds.
    await period.selectOption('7d');
    await p.waitForFunction(() => document.querySelectorAll('[data-capacity-load] table[id$="-table"] tbody tr').length === 2);
    expect(await chart.locator('table[id$="-table"] tbody tr th').first().textContent()).toMatch(/^\d{2}\/\d{2}, \d{2}:00$/);
    const canvas = chart.locator('.chart-canvas');
    await p.waitForFunction(() => document.querySelector('[data-capacity-load] .chart-canvas')?.getAttribute('data-bands') === '1');
    expect(await canvas.getAttribute('data-ref-line')).toBe('100');
    expect(Number(await canvas.getAttribute('data-y-max'))).toBeGreaterThanOrEqual(165);
    await chart.getByText('Ver dados (tabela)').click();
    const rows = chart.locator('table[id$="-table"] tbody tr');
    expect(await rows.count()).toBe(2);
    expect(await rows.nth(0).locator('td').first().getAttribute('data-value')).toBe('60');
    expect(await rows.nth(1).locator('td').first().getAttribute('data-value')).toBe('150');
    expect(await rows.nth(1).locator('td').first().textContent()).toBe('150');
    await chart.getByTestId('load-incidents').getByRole('link', { name: 'Produção F64: atraso interativo' }).waitFor();


    await context.close();
    const q = await openConsole(server, ORG_NAME, { lang: 'en' });
    const en = q.context();
    await clickNavLink(q, 'Capacities');
    await q.getByRole('heading', { name: 'Load of Produção F64', exact: true }).waitFor();
    await q.waitForFunction(() => document.querySelectorAll('[data-capacity-load] table[id$="-table"] tbody tr').length === 3);
    expect(await q.getByLabel('Load period').inputValue()).toBe('24h');
    expect(await q.locator('[data-capacity-load] table[id$="-table"] tbody tr th').nth(1).textContent()).toMatch(/^\d{2}\/\d{2}, \d{2}:00:30\s[AP]M$/);
    await q.getByText('Show data (table)').click();
    await q.getByRole('columnheader', { name: 'Next 10 min (%)' }).waitFor();
    await en.close();
  });

  it('creates the Eventstream and the table from the button: a Viewer\'s refusal names the permission in Portuguese, then it is set up and the form shows the source', async () => {
    sim = await startSim({ seed: 51, sizes: { capacities: 1, workspaces: 3, gateways: 0 } });
    const res = await t.admin('POST', `/orgs/${orgId}/tenants`, {
      name: 'Simulado',
      tenantId: sim.tenantId,
      clientId: sim.clientId,
      credentials: { clientSecret: sim.clientSecret },
      mode: 'admin',
      endpoints: { authorityHost: sim.origin, powerBi: sim.origin, fabric: sim.origin, arm: sim.origin },
    });
    expect(res.statusCode).toBe(201);
    const [ws, viewerWs] = sim.state.workspaces.filter((w) => w.member);
    sim.control.workspaceRole({ workspaceId: viewerWs!.id, role: 'Viewer' });

    const { context, p } = await signIn('pt-BR');
    await clickNavLink(p, 'Tenant');
    const card = p.locator('article[data-tenant="Simulado"]');
    await openTenantPart(card, 'settings');
    const setup = card.getByTestId('utilization-setup');
    await setup.waitFor();
    const workspace = setup.getByLabel('ID do workspace onde criar');
    const button = setup.getByRole('button', { name: 'Criar Eventstream e tabela' });
    await workspace.fill('não é guid');
    await button.click();
    await setup.getByText('ID do workspace onde criar deve ser um GUID').waitFor();
    expect(await workspace.getAttribute('aria-invalid')).toBe('true');

    await workspace.fill(viewerWs!.id);
    await button.click();
    const refusal = setup.locator('[data-permission="WorkspaceContributor"]');
    await refusal.waitFor();
    expect(await refusal.textContent()).toContain(`Dê à entidade de serviço a função Colaborador (ou Membro/Administrador) no workspace ${viewerWs!.id}`);

    await workspace.fill(ws!.id);
    await button.click();
    await setup.getByText(/^Pronto: o Eventstream .* envia os eventos de 1 capacidade\(s\) para VigiaCapacity\.CapacityEvents/).waitFor();
    const form = card.getByTestId('utilization');
    expect(await form.getByLabel('URI de consulta').inputValue()).toBe(sim.origin);
    expect(await form.getByLabel('Banco de dados KQL').inputValue()).toBe('VigiaCapacity');
    await button.click();
    await setup.getByText('Já estava criado: o Vigia lê VigiaCapacity.CapacityEvents.').waitFor();
    expect(sim.violations).toEqual([]);
    await context.close();
  }, 120_000);
});
