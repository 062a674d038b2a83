// @engine-neutral: what the browser shows; the queries behind each page run on both engines in the API tests
/**
 * The web console end to end, in headless Chromium (Debian's chromium driven by playwright-core):
 * a real Vigia process on loopback (HTTP app, dispatcher, database of the engine under test) and a
 * real HTTPS receiver as the webhook destination. Each step asserts what the operator sees and
 * what the service then does (requests the receiver got, answers of the public API, rows).
 *
 * Each test sets up its own state — its organization, destination, receiver and browser tab —
 * through the admin API, so one failing step never cascades into the next test. Only the
 * service process, the dispatcher and the browser are shared.
 *
 * With VIGIA_CONSOLE_SCREENSHOTS=<dir> the pg run also saves the main pages at desktop and phone
 * width there (docs/console/ holds the ones shown in the README).
 */
import type { Browser, BrowserContext, Page } from 'playwright-core';
import { DESKTOP, overflowAtPhoneWidth, shot } from '../helpers/console-shots.js';
import { afterAll, afterEach, beforeAll, describe, expect, it } from 'vitest';
import { startDispatcher, type Dispatcher } from '../../src/delivery/dispatcher.js';
import { verifyWebhook } from '../../src/receiver/verify.js';
import { TEST_ADMIN_TOKEN, type TestApp } from '../helpers/context.js';
import { openConsole as openSignedIn, signInWithToken, startConsoleServer, type ConsoleServer } from '../helpers/console-session.js';
import { startReceiver, type TestReceiver } from '../helpers/receiver.js';
import { waitFor } from '../helpers/wait.js';
import { ServiceNowFake } from '../fakes/servicenow.js';


describe('web console in Chromium', () => {
  let server: ConsoleServer;
  let t: TestApp;
  const serviceNow = new ServiceNowFake('vigia', 'pw-123456');
  let worker: Dispatcher;
  let browser: Browser;
  let origin: string;
  /** What one test opened; closed (and checked) after it. */
  let contexts: BrowserContext[] = [];
  let receivers: TestReceiver[] = [];
  let pageErrors: string[] = [];
  /** Every signing secret a test saw: none may ever reach the logs. */
  const secretsSeen: string[] = [];

  /** Nothing may be loaded from anywhere but the Vigia origin (no CDN, no font service). */
  async function allowOnlyOrigin(p: Page): Promise<void> {
    contexts.push(p.context());
    await p.route('**/*', (route) => (route.request().url().startsWith(origin) ? route.continue() : route.abort()));
    p.on('requestfailed', (req) => {
      if (!req.url().startsWith(origin)) pageErrors.push(`outside request: ${req.url()}`);
    });
  }

  /** A fresh tab in a fresh browser context (its own sessionStorage and localStorage): signed out. */
  async function newPage(): Promise<Page> {
    const context = await browser.newContext({ viewport: DESKTOP, locale: 'pt-BR', timezoneId: 'America/Sao_Paulo' });
    const p = await context.newPage();
    p.on('pageerror', (err) => pageErrors.push(err.message));
    await allowOnlyOrigin(p);
    return p;
  }

  /** Every form control, button and link has a name a screen reader can say; the page fits a phone. */
  async function expectAccessible(p: Page): Promise<void> {
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
    expect(await overflowAtPhoneWidth(p)).toBeLessThanOrEqual(0);
  }

  /** A new tab, signed in through the form, working on the named organization, showing `pathname`. */
  function openConsole(orgName: string, pathname = '/destinations'): Promise<Page> {
    return openSignedIn({ browser, origin, pageErrors }, orgName, { viewport: DESKTOP, beforeLoad: allowOnlyOrigin, path: pathname });
  }

  async function receiver(): Promise<TestReceiver> {
    const rx = await startReceiver();
    receivers.push(rx);
    return rx;
  }

  async function createOrg(name: string): Promise<string> {
    const res = await t.admin('POST', '/orgs', { name });
    expect(res.statusCode, res.body).toBe(201);
    return res.json().id;
  }

  /** A webhook destination through the admin API; returns its id and signing secret. */
  async function createWebhook(orgId: string, name: string, url: string): Promise<{ id: string; secret: string }> {
    const res = await t.admin('POST', `/orgs/${orgId}/destinations`, { name, kind: 'webhook', url });
    expect(res.statusCode, res.body).toBe(201);
    const { id, signingSecret } = res.json() as { id: string; signingSecret: string };
    secretsSeen.push(signingSecret);
    return { id, secret: signingSecret };
  }

  /** Opens an incident and waits until its alert.opened delivery is recorded as succeeded. */
  async function deliveredAlert(orgId: string, destinationId: string, sourceId: string, title: string): Promise<string> {
    const res = await t.admin('POST', `/orgs/${orgId}/signals`, {
      sourceType: 'Dataset',
      sourceId,
      sourceName: sourceId,
      kind: 'failure',
      notificationKind: 'RefreshFailed',
      title,
      message: 'Tempo esgotado consultando a origem SQL',
    });
    expect(res.statusCode, res.body).toBe(200);
    const alertId = res.json().alertId as string;
    await waitFor(
      async () => {
        const list = (await t.admin('GET', `/orgs/${orgId}/destinations/${destinationId}/deliveries`)).json().value as { alertId: string; status: string }[];
        return list.some((d) => d.alertId === alertId && d.status === 'succeeded');
      },
      { what: `the delivery of ${alertId} to succeed`, timeoutMs: 30_000, intervalMs: 50 },
    );
    return alertId;
  }

  beforeAll(async () => {
    server = await startConsoleServer({ config: { destinationAllowlist: ['127.0.0.1'], deliveryTimeoutMs: 3000 } });
    // Delivery bodies carry {baseUrl}/alerts/{id}: the server's base URL is its origin, so the link opens the console.
    ({ t, origin, browser } = server);
    await serviceNow.start();
    worker = await startDispatcher(t.ctx, { idlePollMs: 200 });
  });

  afterEach(async () => {
    const errors = pageErrors;
    await Promise.all(contexts.map((c) => c.close()));
    await Promise.all(receivers.map((r) => r.close()));
    contexts = [];
    receivers = [];
    pageErrors = [];
    // The page raised no script error and asked nothing of another origin during the test.
    expect(errors).toEqual([]);
  });

  afterAll(async () => {
    await worker?.stop();
    await serviceNow.stop();
    await server?.close();
  });

  // Runs first in this file, before any other test creates an organization.
  it('signs in with the admin token (refusing a wrong one) and creates an organization', async () => {
    const page = await newPage();
    await page.goto(`${origin}/`);
    // The page asks the server whether it has a session first: wait for its answer (isVisible does not wait).
    await page.getByRole('heading', { name: 'Entrar no console do Vigia' }).waitFor();
    await signInWithToken(page, 'vat_wrong');
    await page.getByText('Token recusado. Confira o token de administrador.').waitFor();
    await shot(page, 'sign-in');
    await expectAccessible(page);

    await signInWithToken(page);
    await page.getByText('Nenhuma organização ainda. Crie a primeira abaixo.').waitFor();
    expect(page.url()).not.toContain(TEST_ADMIN_TOKEN);
    // The page keeps no credential: the session is an HttpOnly cookie it cannot read.
    expect(await page.evaluate(() => JSON.stringify(sessionStorage) + document.cookie)).not.toContain('vat_');
    expect(await page.evaluate(() => document.cookie)).not.toContain('vigia_session');

    await page.getByLabel('Nome da organização').fill('Contoso Analytics');
    await page.getByRole('button', { name: 'Criar' }).click();
    await page.getByRole('heading', { level: 1, name: 'Visão geral' }).waitFor();
    const orgs = (await t.admin('GET', '/orgs')).json() as { id: string; name: string }[];
    expect(orgs.map((o) => o.name)).toEqual(['Contoso Analytics']);
    expect(await page.evaluate(() => sessionStorage.getItem('vigia.orgId'))).toBe(orgs[0]!.id);
    // A new organization opens on its home, the overview (docs/console.md).
    expect(new URL(page.url()).pathname).toBe('/overview');
  });

  it('validates a destination before sending, then shows the signing secret once', async () => {
    const orgId = await createOrg('Destinos Ltda');
    const rx = await receiver();
    const page = await openConsole('Destinos Ltda');
    await page.getByText('Nenhum destino. Crie um para receber os alertas.').waitFor();
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
    const secret = await once.getByLabel('Segredo de assinatura').inputValue();
    expect(secret).toMatch(/^whsec_/);
    secretsSeen.push(secret);
    await page.getByRole('link', { name: 'Plantão Ops' }).waitFor();
    await shot(page, 'destinations');
    await expectAccessible(page);

    const list = (await t.admin('GET', `/orgs/${orgId}/destinations`)).json() as { id: string; url: string }[];
    expect(list).toHaveLength(1);
    expect(list[0]!.url).toBe(`${rx.origin}/hook`);

    await page.reload();
    await page.getByRole('link', { name: 'Plantão Ops' }).waitFor();
    expect(await page.content()).not.toContain(secret);
    await expect(page.getByTestId('shown-once').count()).resolves.toBe(0);
  });

  it('sends a test with its step-by-step result, then shows it in the history with its attempt', async () => {
    const orgId = await createOrg('Teste de Envio');
    const rx = await receiver();
    const { secret } = await createWebhook(orgId, 'Plantão Ops', `${rx.origin}/hook`);
    const page = await openConsole('Teste de Envio');
    await page.getByRole('link', { name: 'Plantão Ops' }).click();
    await page.getByRole('heading', { name: 'Histórico de entregas' }).waitFor();
    await page.getByText('Nenhuma entrega com estes filtros.').waitFor();
    await page.getByRole('button', { name: 'Testar' }).click();
    await page.getByRole('heading', { name: 'Resultado do teste: Teste bem-sucedido' }).waitFor();
    await expect(page.getByText('Envio: ok — HTTP 200').isVisible()).resolves.toBe(true);

    // The receiver got one request, signed with the secret the destination was created with.
    expect(rx.requests).toHaveLength(1);
    const sent = verifyWebhook({ rawBody: rx.requests[0]!.rawBody, headers: rx.requests[0]!.headers, secret });
    expect(sent.test).toBe(true);

    const item = page.locator('li.delivery').first();
    await item.getByText('entregue').waitFor();
    await expect(item.getByText('teste', { exact: true }).isVisible()).resolves.toBe(true);
    // The signature scheme is named as the form names it, not by its API value.
    await expect(page.getByText('Vigia (padrão)', { exact: true }).isVisible()).resolves.toBe(true);
    await expect(page.getByText('service', { exact: true }).count()).resolves.toBe(0);
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
    await shot(page, 'destination');
    await expectAccessible(page);
  });

  it("tests a connector destination step by step and says when the sample incident must be closed by hand", async () => {
    await createOrg('Conectores SA');
    const page = await openConsole('Conectores SA');
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

    // The inbound address: off at first, turned on with a secret shown once, then counted.
    const inbound = page.getByRole('region', { name: 'Retorno da ferramenta' });
    await inbound.getByText('Desligado').waitFor();
    await inbound.getByRole('button', { name: 'Ligar o retorno' }).click();
    const once = page.getByTestId('shown-once');
    await once.waitFor();
    const secret = await once.getByLabel('Segredo do retorno').inputValue();
    expect(secret).toMatch(/^vgin_/);
    await page.getByRole('button', { name: 'Já copiei' }).click();
    await inbound.getByText('Ligado', { exact: true }).waitFor();
    const destinationId = new URL(page.url()).pathname.split('/').pop()!;
    await expect(inbound.getByText(`/api/inbound/v1/destinations/${destinationId}`, { exact: false }).isVisible()).resolves.toBe(true);
    expect(await page.content()).not.toContain(secret);
  });

  it('creates an API key shown once, and revoking it makes the public API refuse it', async () => {
    await createOrg('Chaves SA');
    const page = await openConsole('Chaves SA', '/api-keys');
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
    await shot(page, 'api-keys');
    await expectAccessible(page);

    await page.getByRole('button', { name: 'Revogar: Exportação BI' }).click();
    await page.getByRole('button', { name: 'Confirmar' }).click();
    await page.getByText(/^Revogada /).waitFor();
    const refused = await publicCall();
    expect(refused.status).toBe(401);
    expect((await refused.json()).error.code).toBe('unauthorized');
  });

  it('lists an open alert and acknowledges it; the delivery url opens the alert page', async () => {
    const orgId = await createOrg('Alertas SA');
    const rx = await receiver();
    await createWebhook(orgId, 'Plantão Ops', `${rx.origin}/hook`);
    // A second destination for this alert only: the alert page then lists each event's
    // deliveries to two destinations made in the same second.
    const backup = await t.admin('POST', `/orgs/${orgId}/destinations`, { name: 'Plantão Reserva', kind: 'webhook', url: `${rx.origin}/backup` });
    expect(backup.statusCode).toBe(201);
    const before = rx.requests.length;
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
    const received = await rx.waitFor(before + 2, 30_000);
    const body = received.map((r) => JSON.parse(r.rawBody.toString('utf8'))).find((b) => !b.test);
    expect(body.event).toBe('alert.opened');
    const url = body.alert.url as string;
    expect(url).toBe(`${origin}/alerts/${alertId}`);

    const page = await openConsole('Alertas SA', '/alerts');
    const row = page.locator(`li[data-alert-id="${alertId}"]`);
    await row.getByText('Falha na atualização do conjunto Vendas').waitFor();
    await shot(page, 'alerts');
    await expectAccessible(page);
    await row.getByRole('button', { name: 'Reconhecer: Falha na atualização do conjunto Vendas' }).click();
    await row.getByText('reconhecido', { exact: true }).waitFor();
    const alert = (await t.admin('GET', `/orgs/${orgId}/alerts/${alertId}`)).json();
    expect(alert.acknowledged).toBe(true);
    expect(alert.events.map((e: { event: string }) => e.event)).toEqual(['alert.opened', 'alert.acknowledged']);

    // A new tab from the link in the delivery: sign in, then the alert page itself.
    const tab = await newPage();
    await tab.goto(url);
    await signInWithToken(tab);
    await tab.getByRole('heading', { name: 'Falha na atualização do conjunto Vendas' }).waitFor();
    expect(new URL(tab.url()).pathname).toBe(`/alerts/${alertId}`);
    await tab.getByRole('heading', { name: /^aberto \(alert\.opened\)/ }).waitFor();
    const openedItem = tab.locator('li.event').first().locator('li.delivery').filter({ hasText: 'Plantão Ops' });
    await openedItem.getByText('entregue').waitFor();
    await expect(openedItem.getByText('→ Plantão Ops').isVisible()).resolves.toBe(true);
    await expect(tab.getByRole('heading', { name: /^reconhecido \(alert\.acknowledged\)/ }).isVisible()).resolves.toBe(true);
    await shot(tab, 'alert');
    await expectAccessible(tab);
    // Each delivery's buttons say which delivery they act on: no two share a name.
    const deliveryButtons = await tab.locator('li.delivery button').evaluateAll((els) => els.map((el) => el.getAttribute('aria-label') ?? el.textContent ?? ''));
    expect(deliveryButtons.length).toBeGreaterThanOrEqual(4);
    expect(new Set(deliveryButtons).size).toBe(deliveryButtons.length);
    // Out of the way of the steps below once both its deliveries (opened, acknowledged) arrived.
    await rx.waitFor(before + 4, 30_000);
    await t.admin('DELETE', `/orgs/${orgId}/destinations/${backup.json().id}`);
  });

  it('creates a silence and ends it', async () => {
    const orgId = await createOrg('Silêncios SA');
    const page = await openConsole('Silêncios SA', '/silences');
    await page.getByText('Nenhum silêncio.').waitFor();
    await page.getByRole('button', { name: 'Criar' }).click();
    await page.getByText('Informe quando o silêncio termina (no futuro).').waitFor();
    await page.getByLabel('Tipo de origem').fill('Connector');
    await page.getByLabel('Termina em').fill('01/01/2099 10:00');
    await page.getByLabel('Comentário (opcional)').fill('manutenção planejada');
    await page.getByRole('button', { name: 'Criar' }).click();
    await page.getByRole('cell', { name: 'ativo', exact: true }).waitFor();
    const [created] = (await t.admin('GET', `/orgs/${orgId}/silences`)).json();
    expect(created).toMatchObject({ matchers: { sourceType: 'Connector' }, comment: 'manutenção planejada', active: true });
    // The viewer is in São Paulo (UTC−3): 10:00 there is 13:00 UTC.
    expect(created.endsAt).toBe('2099-01-01T13:00:00.000Z');
    await shot(page, 'silences');
    await expectAccessible(page);
    await page.getByRole('button', { name: 'Encerrar: Tipo de origem = Connector' }).click();
    await page.getByRole('button', { name: 'Confirmar' }).click();
    await page.getByRole('cell', { name: 'encerrado', exact: true }).waitFor();
    expect((await t.admin('GET', `/orgs/${orgId}/silences`)).json()[0].active).toBe(false);
  });

  it('shows health, keeps an event as skipped while disabled, and recovers it after enabling', async () => {
    const orgId = await createOrg('Saúde SA');
    const rx = await receiver();
    const { id: destinationId } = await createWebhook(orgId, 'Plantão Ops', `${rx.origin}/hook`);
    await deliveredAlert(orgId, destinationId, 'ds-saude', 'Falha na atualização do conjunto Saúde');
    const page = await openConsole('Saúde SA');
    await page.getByRole('link', { name: 'Plantão Ops' }).click();
    // Every delivery so far succeeded: the health block says so.
    await page.getByText('Sucesso em 24 h').waitFor();
    await expect(page.getByText('saudável').first().isVisible()).resolves.toBe(true);

    await page.getByRole('button', { name: 'Desativar', exact: true }).click();
    await page.getByRole('button', { name: 'Ativar', exact: true }).waitFor();
    // Disabled by a person: said so, and the server's reason in the console's language.
    await page.getByText('desativado manualmente').first().waitFor();
    await expect(page.getByText('desativado automaticamente').count()).resolves.toBe(0);
    await expect(page.getByText('desativado por uma pessoa', { exact: false }).isVisible()).resolves.toBe(true);
    await expect(page.getByText('disabled through the admin API', { exact: false }).count()).resolves.toBe(0);
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
    // 1 h ago in São Paulo (UTC−3), typed as the Portuguese console reads it: dd/mm/aaaa hh:mm.
    const [day, time] = new Date(Date.now() - 3 * 3600_000 - 3600_000).toISOString().slice(0, 16).split('T');
    const [y, mo, d] = day!.split('-');
    await page.locator('#recover-since').fill(`${d}/${mo}/${y} ${time}`);
    await page.getByRole('button', { name: 'Reenviar falhas' }).click();
    // Said by its code in Portuguese; the server's English detail follows, marked as English.
    const refused = page.locator('[role=alert]').filter({ hasText: 'Conflito: a operação não pode ser feita agora' }).first();
    await refused.waitFor();
    expect(await refused.locator('[lang="en"]').textContent()).toContain('enable it');
    await page.getByRole('button', { name: 'Ativar', exact: true }).click();
    await page.getByRole('button', { name: 'Desativar', exact: true }).waitFor();
    await page.getByRole('button', { name: 'Reenviar falhas' }).click();
    await page.getByText('1 entrega reenfileirada.').waitFor();
    const [recovered] = (await rx.waitFor(before + 1, 30_000)).slice(before);
    expect(recovered!.headers['idempotency-key']).toBe(skipped[0].id);
    expect(rx.requests.length).toBe(before + 1);
  });

  it('redelivers, rotates the secret, disables and deletes the destination', async () => {
    const orgId = await createOrg('Reenvio SA');
    const rx = await receiver();
    const { id: destinationId, secret } = await createWebhook(orgId, 'Plantão Ops', `${rx.origin}/hook`);
    await deliveredAlert(orgId, destinationId, 'ds-reenvio', 'Falha na atualização do conjunto Reenvio');
    const page = await openConsole('Reenvio SA');
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
    secretsSeen.push(rotated);

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
    await createOrg('Idiomas SA');
    const page = await openConsole('Idiomas SA');
    await page.getByLabel('Idioma').selectOption('en');
    await page.locator('nav a[href="/destinations"]', { hasText: 'Destinations' }).waitFor({ state: 'attached' });
    await expect(page.getByRole('button', { name: 'Sign out' }).isVisible()).resolves.toBe(true);
    await page.reload();
    await page.locator('nav a[href="/destinations"]', { hasText: 'Destinations' }).waitFor({ state: 'attached' });
    expect(await page.evaluate(() => document.documentElement.lang)).toBe('en');
  });

  it('never logged the admin token or a signing secret', () => {
    expect(t.ctx.logs.text).not.toContain(TEST_ADMIN_TOKEN);
    for (const secret of secretsSeen) expect(t.ctx.logs.text).not.toContain(secret);
  });
});
