/**
 * The web console end to end, in headless Chromium (Debian's chromium driven by playwright-core):
 * a real Vigia process on loopback (HTTP app, dispatcher, database of the engine under test) and a
 * real HTTPS receiver as the webhook destination. Each step asserts what the operator sees and
 * what the service then does (requests the receiver got, answers of the public API, rows).
 *
 * With VIGIA_CONSOLE_SCREENSHOTS=<dir> the pg run also saves the main pages at desktop and phone
 * width there (docs/console/ holds the ones shown in the README).
 */
import { mkdirSync } from 'node:fs';
import path from 'node:path';
import type { AddressInfo } from 'node:net';
import { chromium, type Browser, type BrowserContext, type Page } from 'playwright-core';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { systemClock } from '../../src/clock.js';
import { startDispatcher, type Dispatcher } from '../../src/delivery/dispatcher.js';
import { verifyWebhook } from '../../src/receiver/verify.js';
import { createTestApp, TEST_ADMIN_TOKEN, type TestApp } from '../helpers/context.js';
import { startReceiver, type TestReceiver } from '../helpers/receiver.js';
import { ServiceNowFake } from '../fakes/servicenow.js';

const SHOTS = process.env.VIGIA_TEST_ENGINE === 'pg' ? process.env.VIGIA_CONSOLE_SCREENSHOTS : undefined;
const DESKTOP = { width: 1280, height: 860 };
const PHONE = { width: 390, height: 844 };

async function launch(): Promise<Browser> {
  try {
    return await chromium.launch({
      executablePath: '/usr/bin/chromium',
      args: ['--headless', '--no-sandbox', '--disable-gpu', '--disable-background-networking'],
    });
  } catch (err) {
    throw new Error(`Chromium is needed for the console tests: install Debian's chromium (apt-get install -y chromium). ${(err as Error).message}`);
  }
}

describe('web console in Chromium', () => {
  let t: TestApp;
  let rx: TestReceiver;
  const serviceNow = new ServiceNowFake('vigia', 'pw-123456');
  let worker: Dispatcher;
  let browser: Browser;
  let context: BrowserContext;
  let page: Page;
  let origin: string;
  let orgId: string;
  let destinationId: string;
  let secret: string;
  let rotatedSecret = 'unset';
  const pageErrors: string[] = [];

  /** Saves the current page at desktop and phone width when screenshots are asked for. */
  async function shot(name: string, p: Page = page): Promise<void> {
    if (!SHOTS) return;
    mkdirSync(SHOTS, { recursive: true });
    await p.screenshot({ path: path.join(SHOTS, `${name}-desktop.png`), fullPage: true });
    await p.setViewportSize(PHONE);
    await p.screenshot({ path: path.join(SHOTS, `${name}-phone.png`), fullPage: true });
    await p.setViewportSize(DESKTOP);
  }

  async function newPage(): Promise<Page> {
    context = await browser.newContext({ viewport: DESKTOP, locale: 'pt-BR', timezoneId: 'America/Sao_Paulo' });
    const p = await context.newPage();
    p.on('pageerror', (err) => pageErrors.push(err.message));
    // Nothing may be loaded from anywhere but the Vigia origin (no CDN, no font service).
    await p.route('**/*', (route) => (route.request().url().startsWith(origin) ? route.continue() : route.abort()));
    p.on('requestfailed', (req) => {
      if (!req.url().startsWith(origin)) pageErrors.push(`outside request: ${req.url()}`);
    });
    return p;
  }

  /** Every form control, button and link has a name a screen reader can say; the page fits a phone. */
  async function expectAccessible(p: Page = page): Promise<void> {
    const unnamed = await p.evaluate(() =>
      [...document.querySelectorAll('input, select, textarea, button, a[href]')]
        .filter((el) => {
          const aria = el.getAttribute('aria-label') ?? '';
          const labels = (el as HTMLInputElement).labels;
          const labelText = labels ? [...labels].map((l) => l.textContent ?? '').join('') : '';
          const own = el.tagName === 'BUTTON' || el.tagName === 'A' ? (el.textContent ?? '') : '';
          return `${aria}${labelText}${own}`.trim() === '';
        })
        .map((el) => el.outerHTML.slice(0, 120)),
    );
    expect(unnamed).toEqual([]);
    // Usable at phone width: nothing sticks out sideways.
    await p.setViewportSize(PHONE);
    const overflow = await p.evaluate(() => document.documentElement.scrollWidth - window.innerWidth);
    await p.setViewportSize(DESKTOP);
    expect(overflow).toBeLessThanOrEqual(0);
  }

  async function signIn(p: Page, token = TEST_ADMIN_TOKEN): Promise<void> {
    await p.getByLabel('Token de administrador').fill(token);
    await p.getByRole('button', { name: 'Entrar' }).click();
  }

  beforeAll(async () => {
    t = await createTestApp({ clock: systemClock, config: { destinationAllowlist: ['127.0.0.1'], deliveryTimeoutMs: 3000 } });
    await t.app.listen({ host: '127.0.0.1', port: 0 });
    origin = `http://127.0.0.1:${(t.app.server.address() as AddressInfo).port}`;
    // Delivery bodies carry {baseUrl}/alerts/{id}: point it at this process so the link opens the console.
    t.ctx.config.baseUrl = origin;
    rx = await startReceiver();
    await serviceNow.start();
    worker = await startDispatcher(t.ctx, { idlePollMs: 200 });
    browser = await launch();
    page = await newPage();
  });

  afterAll(async () => {
    await browser?.close();
    await worker?.stop();
    await rx?.close();
    await serviceNow.stop();
    await t?.close();
  });

  it('signs in with the admin token (refusing a wrong one) and creates an organization', async () => {
    await page.goto(`${origin}/`);
    await expect(page.getByRole('heading', { name: 'Entrar no console do Vigia' }).isVisible()).resolves.toBe(true);
    await signIn(page, 'vat_wrong');
    await page.getByText('Token recusado. Confira o token de administrador.').waitFor();
    await shot('sign-in');
    await expectAccessible();

    await signIn(page);
    await page.getByText('Nenhuma organização ainda. Crie a primeira abaixo.').waitFor();
    expect(page.url()).not.toContain(TEST_ADMIN_TOKEN);
    expect(await page.evaluate(() => sessionStorage.getItem('vigia.adminToken'))).toBe(TEST_ADMIN_TOKEN);

    await page.getByLabel('Nome da organização').fill('Contoso Analytics');
    await page.getByRole('button', { name: 'Criar' }).click();
    await page.getByText('Nenhum destino. Crie um para receber os alertas.').waitFor();
    const orgs = (await t.admin('GET', '/orgs')).json() as { id: string; name: string }[];
    expect(orgs.map((o) => o.name)).toEqual(['Contoso Analytics']);
    orgId = orgs[0]!.id;
    expect(new URL(page.url()).pathname).toBe('/destinations');
  });

  it('validates a destination before sending, then shows the signing secret once', async () => {
    await page.getByRole('button', { name: 'Criar' }).click();
    await page.getByText('Nome: obrigatório.').waitFor();
    await expect(page.getByText('URL (https): obrigatório.').isVisible()).resolves.toBe(true);
    await page.getByLabel('Nome', { exact: true }).fill('Plantão Ops');
    await page.getByLabel('URL (https)').fill('http://not-secure.example.com/hook');
    await page.getByRole('button', { name: 'Criar' }).click();
    await page.getByText('URL (https): informe um endereço https:// completo.').waitFor();
    // Nothing reached the API while the form was invalid.
    expect((await t.admin('GET', `/orgs/${orgId}/destinations`)).json()).toEqual([]);

    // Switching the kind shows only that kind's fields.
    await page.getByLabel('Tipo').selectOption('pagerduty');
    await expect(page.getByLabel('Chave de integração (routing key)').isVisible()).resolves.toBe(true);
    await expect(page.getByLabel('URL (https)').count()).resolves.toBe(0);
    await page.getByLabel('Tipo').selectOption('webhook');

    await page.getByLabel('URL (https)').fill(`${rx.origin}/hook`);
    await page.getByRole('button', { name: 'Criar' }).click();
    const once = page.getByTestId('shown-once');
    await once.waitFor();
    await expect(once.getByText('você não verá este segredo de novo', { exact: false }).isVisible()).resolves.toBe(true);
    await expect(once.getByRole('button', { name: 'Copiar' }).isVisible()).resolves.toBe(true);
    secret = await once.getByLabel('Segredo de assinatura').inputValue();
    expect(secret).toMatch(/^whsec_/);
    await page.getByRole('link', { name: 'Plantão Ops' }).waitFor();
    await shot('destinations');
    await expectAccessible();

    const list = (await t.admin('GET', `/orgs/${orgId}/destinations`)).json() as { id: string; url: string }[];
    expect(list).toHaveLength(1);
    expect(list[0]!.url).toBe(`${rx.origin}/hook`);
    destinationId = list[0]!.id;

    await page.reload();
    await page.getByRole('link', { name: 'Plantão Ops' }).waitFor();
    expect(await page.content()).not.toContain(secret);
    await expect(page.getByTestId('shown-once').count()).resolves.toBe(0);
  });

  it('sends a test with its step-by-step result, then shows it in the history with its attempt', async () => {
    await page.getByRole('link', { name: 'Plantão Ops' }).click();
    await page.getByRole('heading', { name: 'Histórico de entregas' }).waitFor();
    await page.getByText('Nenhuma entrega com estes filtros.').waitFor();
    await page.getByRole('button', { name: 'Testar' }).click();
    await page.getByRole('heading', { name: 'Resultado do teste: Teste bem-sucedido' }).waitFor();
    await expect(page.getByText('Envio: ok — HTTP 200').isVisible()).resolves.toBe(true);

    // The receiver got one request, signed with the secret the console showed.
    expect(rx.requests).toHaveLength(1);
    const sent = verifyWebhook({ rawBody: rx.requests[0]!.rawBody, headers: rx.requests[0]!.headers, secret });
    expect(sent.test).toBe(true);

    const item = page.locator('li.delivery').first();
    await item.getByText('entregue').waitFor();
    await expect(item.getByText('teste', { exact: true }).isVisible()).resolves.toBe(true);
    await item.getByRole('button', { name: /^Tentativas/ }).click();
    const log = item.getByRole('table', { name: 'Registro de tentativas' });
    await log.waitFor();
    const cells = await log.locator('tbody tr').first().locator('td').allInnerTexts();
    expect(cells[0]).toBe('1');
    expect(cells[2]).toBe('200');
    expect(cells[3]).toMatch(/^\d+ ms$/);

    // Filtering on another status leaves the history empty, in words.
    await page.getByLabel('Situação').selectOption('failed');
    await page.getByRole('button', { name: 'Filtrar' }).click();
    await page.getByText('Nenhuma entrega com estes filtros.').waitFor();
    await page.getByLabel('Situação').selectOption('');
    await page.getByRole('button', { name: 'Filtrar' }).click();
    await page.locator('li.delivery').first().waitFor();
    await shot('destination');
    await expectAccessible();
  });

  it("tests a connector destination step by step and says when the sample incident must be closed by hand", async () => {
    await page.getByRole('link', { name: 'Destinos' }).click();
    await page.getByLabel('Tipo').selectOption('servicenow');
    await page.getByLabel('Nome', { exact: true }).fill('ServiceNow TI');
    await page.getByLabel('URL da instância').fill(serviceNow.url);
    await page.getByLabel('Usuário').fill('vigia');
    await page.getByRole('button', { name: 'Criar' }).click();
    await page.getByText('Senha: obrigatório.').waitFor();
    await page.getByLabel('Senha').fill('pw-123456');
    await page.getByRole('button', { name: 'Criar' }).click();
    await page.getByRole('link', { name: 'ServiceNow TI' }).click();
    await page.getByText('Credenciais guardadas (não são exibidas)').waitFor();
    expect(await page.content()).not.toContain('pw-123456');

    serviceNow.failNext(5, { kind: 'reply', reply: { status: 503, body: 'down' } }, (r) => r.method === 'PATCH');
    await page.getByRole('button', { name: 'Testar' }).click();
    await page.getByRole('heading', { name: 'Resultado do teste: Teste falhou' }).waitFor();
    const steps = await page.locator('ol.steps li').allInnerTexts();
    expect(steps[0]).toBe('Abrir incidente de teste: ok — HTTP 201');
    expect(steps[1]).toMatch(/^Fechar incidente de teste: falhou — HTTP 503/);
    await expect(page.getByText('O incidente de teste não pôde ser fechado: feche-o manualmente na ferramenta de destino.').isVisible()).resolves.toBe(true);
    const incident = serviceNow.incidents.at(-1)!;
    expect(incident.state).toBe('1');
    await expect(page.getByText(incident.number, { exact: false }).first().isVisible()).resolves.toBe(true);
    // Out of the way of the alert deliveries checked below.
    const list = (await t.admin('GET', `/orgs/${orgId}/destinations`)).json() as { id: string; kind: string }[];
    await t.admin('DELETE', `/orgs/${orgId}/destinations/${list.find((d) => d.kind === 'servicenow')!.id}`);
  });

  it('creates an API key shown once, and revoking it makes the public API refuse it', async () => {
    await page.getByRole('link', { name: 'Chaves de API' }).click();
    await page.getByText('Nenhuma chave de API.').waitFor();
    await page.getByLabel('Nome', { exact: true }).fill('Exportação BI');
    await page.getByRole('checkbox', { name: 'ReadCosts' }).check();
    await page.getByRole('button', { name: 'Criar' }).click();
    const once = page.getByTestId('shown-once');
    await once.waitFor();
    await expect(once.getByText('você não verá esta chave de novo', { exact: false }).isVisible()).resolves.toBe(true);
    const key = await once.getByLabel('Nova chave de API').inputValue();
    expect(key).toMatch(/^vgk_/);

    const publicCall = () => fetch(`${origin}/api/public/v1/alerts`, { headers: { 'x-api-key': key } });
    expect((await publicCall()).status).toBe(200);
    await page.getByRole('button', { name: 'Já copiei' }).click();
    await page.reload();
    await page.getByRole('cell', { name: 'Exportação BI', exact: true }).waitFor();
    expect(await page.content()).not.toContain(key);
    await expect(page.getByRole('cell', { name: 'ReadAlerts, ReadCosts' }).isVisible()).resolves.toBe(true);
    await shot('api-keys');
    await expectAccessible();

    await page.getByRole('button', { name: 'Revogar: Exportação BI' }).click();
    await page.getByRole('button', { name: 'Confirmar' }).click();
    await page.getByText(/^Revogada /).waitFor();
    const refused = await publicCall();
    expect(refused.status).toBe(401);
    expect((await refused.json()).error.code).toBe('unauthorized');
  });

  it('lists an open alert and acknowledges it; the delivery url opens the alert page', async () => {
    const signal = await t.admin('POST', `/orgs/${orgId}/signals`, {
      sourceType: 'Dataset',
      sourceId: 'ds-vendas',
      sourceName: 'Vendas',
      kind: 'failure',
      notificationKind: 'RefreshFailed',
      title: 'Falha na atualização do conjunto Vendas',
      message: 'Tempo esgotado consultando a origem SQL',
    });
    const alertId = signal.json().alertId as string;
    // The dispatcher delivers alert.opened to the webhook; its body carries the alert's url.
    const received = await rx.waitFor(2, 30_000);
    const body = received.map((r) => JSON.parse(r.rawBody.toString('utf8'))).find((b) => !b.test);
    expect(body.event).toBe('alert.opened');
    const url = body.alert.url as string;
    expect(url).toBe(`${origin}/alerts/${alertId}`);

    await page.getByRole('link', { name: 'Alertas' }).click();
    const row = page.locator(`li[data-alert-id="${alertId}"]`);
    await row.getByText('Falha na atualização do conjunto Vendas').waitFor();
    await shot('alerts');
    await expectAccessible();
    await row.getByRole('button', { name: 'Reconhecer: Falha na atualização do conjunto Vendas' }).click();
    await row.getByText('reconhecido', { exact: true }).waitFor();
    const alert = (await t.admin('GET', `/orgs/${orgId}/alerts/${alertId}`)).json();
    expect(alert.acknowledged).toBe(true);
    expect(alert.events.map((e: { event: string }) => e.event)).toEqual(['alert.opened', 'alert.acknowledged']);

    // A new tab from the link in the delivery: sign in, then the alert page itself.
    const tab = await newPage();
    await tab.goto(url);
    await signIn(tab);
    await tab.getByRole('heading', { name: 'Falha na atualização do conjunto Vendas' }).waitFor();
    expect(new URL(tab.url()).pathname).toBe(`/alerts/${alertId}`);
    await tab.getByRole('heading', { name: /^aberto \(alert\.opened\)/ }).waitFor();
    const openedItem = tab.locator('li.event').first().locator('li.delivery');
    await openedItem.getByText('entregue').waitFor();
    await expect(openedItem.getByText('→ Plantão Ops').isVisible()).resolves.toBe(true);
    await expect(tab.getByRole('heading', { name: /^reconhecido \(alert\.acknowledged\)/ }).isVisible()).resolves.toBe(true);
    await shot('alert', tab);
    await expectAccessible(tab);
    await tab.close();
  });

  it('creates a silence and ends it', async () => {
    await page.getByRole('link', { name: 'Silêncios' }).click();
    await page.getByText('Nenhum silêncio.').waitFor();
    await page.getByRole('button', { name: 'Criar' }).click();
    await page.getByText('Informe quando o silêncio termina (no futuro).').waitFor();
    await page.getByLabel('Tipo de origem').fill('Connector');
    await page.getByLabel('Termina em').fill('2099-01-01T10:00');
    await page.getByLabel('Comentário (opcional)').fill('manutenção planejada');
    await page.getByRole('button', { name: 'Criar' }).click();
    await page.getByRole('cell', { name: 'ativo', exact: true }).waitFor();
    const [created] = (await t.admin('GET', `/orgs/${orgId}/silences`)).json();
    expect(created).toMatchObject({ matchers: { sourceType: 'Connector' }, comment: 'manutenção planejada', active: true });
    // The viewer is in São Paulo (UTC−3): 10:00 there is 13:00 UTC.
    expect(created.endsAt).toBe('2099-01-01T13:00:00.000Z');
    await shot('silences');
    await expectAccessible();
    await page.getByRole('button', { name: 'Encerrar: Tipo de origem = Connector' }).click();
    await page.getByRole('button', { name: 'Confirmar' }).click();
    await page.getByRole('cell', { name: 'encerrado', exact: true }).waitFor();
    expect((await t.admin('GET', `/orgs/${orgId}/silences`)).json()[0].active).toBe(false);
  });

  it('shows health, keeps an event as skipped while disabled, and recovers it after enabling', async () => {
    await page.getByRole('link', { name: 'Destinos' }).click();
    await page.getByRole('link', { name: 'Plantão Ops' }).click();
    // Every delivery so far succeeded: the health block says so.
    await page.getByText('Sucesso em 24 h').waitFor();
    await expect(page.getByText('saudável').first().isVisible()).resolves.toBe(true);

    await page.getByRole('button', { name: 'Desativar', exact: true }).click();
    await page.getByRole('button', { name: 'Ativar', exact: true }).waitFor();
    const before = rx.requests.length;
    const signal = await t.admin('POST', `/orgs/${orgId}/signals`, {
      sourceType: 'Gateway',
      sourceId: 'gw-skip',
      sourceName: 'Gateway Recife',
      kind: 'failure',
      notificationKind: 'GatewayOffline',
      title: 'Gateway Recife sem resposta',
      message: 'Sem batimento há 5 minutos',
    });
    expect(signal.statusCode, signal.body).toBe(200);
    const skipped = (await t.admin('GET', `/orgs/${orgId}/destinations/${destinationId}/deliveries?status=skipped`)).json().value;
    expect(skipped).toHaveLength(1);

    // The history shows it as skipped, in words.
    await page.getByLabel('Situação').selectOption('skipped');
    await page.getByRole('button', { name: 'Filtrar' }).click();
    await page.locator('li.delivery').first().getByText('ignorada (destino desativado)').waitFor();

    // Recovering a disabled destination is refused in words; after enabling it sends the event.
    const since = new Date(Date.now() - 3 * 3600_000 - 3600_000).toISOString().slice(0, 16); // 1 h ago in São Paulo (UTC−3)
    await page.locator('#recover-since').fill(since);
    await page.getByRole('button', { name: 'Reenviar falhas' }).click();
    await page.locator('[role=alert]').filter({ hasText: '409' }).filter({ hasText: 'enable it' }).first().waitFor();
    await page.getByRole('button', { name: 'Ativar', exact: true }).click();
    await page.getByRole('button', { name: 'Desativar', exact: true }).waitFor();
    await page.getByRole('button', { name: 'Reenviar falhas' }).click();
    await page.getByText('1 entregas reenfileiradas.').waitFor();
    const [recovered] = (await rx.waitFor(before + 1, 30_000)).slice(before);
    expect(recovered!.headers['idempotency-key']).toBe(skipped[0].id);
    expect(rx.requests.length).toBe(before + 1);
  });

  it('redelivers, rotates the secret, disables and deletes the destination', async () => {
    await page.getByRole('link', { name: 'Destinos' }).click();
    await page.getByRole('link', { name: 'Plantão Ops' }).click();
    const before = rx.requests.length;
    const latest = page.locator('li.delivery').first();
    await latest.getByRole('button', { name: /^Reenviar/ }).click();
    await latest.getByText('Entrega reenfileirada.').waitFor();
    await rx.waitFor(before + 1, 30_000);

    await page.getByRole('button', { name: 'Trocar segredo' }).click();
    await page.getByRole('button', { name: 'Confirmar' }).click();
    const rotated = await page.getByTestId('shown-once').getByLabel('Segredo de assinatura').inputValue();
    expect(rotated).toMatch(/^whsec_/);
    expect(rotated).not.toBe(secret);
    rotatedSecret = rotated;

    await page.getByRole('button', { name: 'Desativar', exact: true }).click();
    await page.getByRole('button', { name: 'Ativar', exact: true }).waitFor();
    expect((await t.admin('GET', `/orgs/${orgId}/destinations/${destinationId}`)).json().enabled).toBe(false);

    await page.getByRole('button', { name: 'Excluir destino' }).click();
    await page.getByText('Excluir “Plantão Ops”? Entregas pendentes serão abandonadas.', { exact: false }).waitFor();
    await page.getByRole('button', { name: 'Confirmar' }).click();
    await page.getByText('Nenhum destino. Crie um para receber os alertas.').waitFor();
    expect((await t.admin('GET', `/orgs/${orgId}/destinations/${destinationId}`)).statusCode).toBe(404);
  });

  it('switches to English and keeps the choice', async () => {
    await page.getByLabel('Idioma').selectOption('en');
    await page.getByRole('link', { name: 'Destinations' }).waitFor();
    await expect(page.getByRole('button', { name: 'Sign out' }).isVisible()).resolves.toBe(true);
    await page.reload();
    await page.getByRole('link', { name: 'Destinations' }).waitFor();
    expect(await page.evaluate(() => document.documentElement.lang)).toBe('en');
    await page.getByLabel('Language').selectOption('pt-BR');
  });

  it('never logged the admin token, and the page raised no script error', () => {
    expect(t.ctx.logs.text).not.toContain(TEST_ADMIN_TOKEN);
    expect(t.ctx.logs.text).not.toContain(secret);
    expect(t.ctx.logs.text).not.toContain(rotatedSecret);
    expect(pageErrors).toEqual([]);
  });
});
