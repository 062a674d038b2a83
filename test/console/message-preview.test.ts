// @engine-neutral: what the browser shows; the preview API runs on both engines in test/notify/preview-api.test.ts
/**
 * The message preview and the chat / e-mail destination forms in headless Chromium (issue 37
 * item 5): the new-destination form previews the Teams card JSON, the Slack blocks (with the
 * buttons once a signing secret is typed) and the e-mail's subject, text and HTML, in the
 * organization's language; a destination's page previews its own kind and edits it, and a Slack
 * destination's page shows the interactivity Request URL the server built from its public address;
 * the e-mail form offers the group window as Teams' and Slack's do.
 */
import { describe, expect, it } from 'vitest';
import { openConsole, useConsoleServer } from '../helpers/console-session.js';
import { TEAMS_FAKE_PATH } from '../fakes/chat.js';

const ORG_NAME = 'Preview org';

describe('message preview in Chromium', () => {
  const session = useConsoleServer({ orgName: ORG_NAME, config: { destinationAllowlist: ['127.0.0.1'] } });

  it('previews teams, slack (buttons once a signing secret is typed) and e-mail in pt-BR from the new-destination form', async () => {
    const p = await openConsole(session.server, ORG_NAME, { path: '/destinations' });
    await p.locator('#dest-kind').selectOption('teams');
    const preview = p.getByTestId('message-preview');
    await preview.getByRole('button', { name: 'Pré-visualizar' }).click();
    const json = preview.getByTestId('preview-json');
    await json.waitFor();
    const card = JSON.parse((await json.textContent())!);
    expect(card.attachments[0].contentType).toBe('application/vnd.microsoft.card.adaptive');
    expect(JSON.stringify(card)).toContain('Falha na atualização');

    await p.locator('#dest-kind').selectOption('slack');
    await preview.getByRole('button', { name: 'Pré-visualizar' }).click();
    await preview.getByTestId('preview-json').waitFor();
    expect(JSON.parse((await preview.getByTestId('preview-json').textContent())!).blocks.some((b: { type: string }) => b.type === 'actions')).toBe(false);
    await p.getByLabel('URL do incoming webhook do Slack').fill('https://127.0.0.1:9/services/T0/B0/abcdefgh');
    await p.getByLabel('Signing secret do app Slack (botões que agem, opcional)').fill('0123456789abcdef0123456789abcdef');
    await preview.getByRole('button', { name: 'Pré-visualizar' }).click();
    await expect.poll(async () => (await preview.getByTestId('preview-json').textContent()) ?? '').toContain('vigia.resolve');

    await p.locator('#dest-kind').selectOption('email');
    await preview.getByRole('button', { name: 'Pré-visualizar' }).click();
    await preview.getByTestId('preview-subject').waitFor();
    expect(await preview.getByTestId('preview-subject').textContent()).toMatch(/^\[Vigia\]\[erro\] Falha na atualização: Vendas \(diário\)$/i);
    expect(await preview.getByTestId('preview-text').textContent()).toContain('Reconhecer: ');
    expect(await preview.getByTestId('preview-html').textContent()).toContain('Ver no Vigia');
    expect(await preview.locator('iframe.preview-frame').getAttribute('sandbox')).toBe('');
    await p.context().close();
  });

  it('an English organization previews in English; a destination page edits and previews its kind', async () => {
    const t = session.server.t;
    expect((await t.admin('PATCH', `/orgs/${session.orgId}`, { language: 'en' })).statusCode).toBe(200);
    const created = await t.admin('POST', `/orgs/${session.orgId}/destinations`, {
      name: 'Canal BI', kind: 'teams', credentials: { webhookUrl: `https://127.0.0.1:9${TEAMS_FAKE_PATH}?api-version=1&sp=%2Ftriggers%2Fmanual%2Frun&sv=1.0&sig=abc` },
    });
    expect(created.statusCode, created.body).toBe(201);
    const id = created.json().id;
    const p = await openConsole(session.server, ORG_NAME, { path: `/destinations/${id}` });
    const preview = p.getByTestId('message-preview');
    await preview.getByRole('button', { name: 'Pré-visualizar' }).click();
    await expect.poll(async () => (await preview.getByTestId('preview-json').textContent()) ?? '').toContain('Refresh failed');
    const form = p.getByTestId('edit-destination');
    await form.getByLabel('Nome').fill('Canal BI (prod)');
    await form.getByLabel('Agrupar aberturas por (segundos, padrão 30)').fill('45');
    await form.getByRole('button', { name: 'Salvar' }).click();
    await form.getByText('Configurações salvas.').waitFor();
    const saved = (await t.admin('GET', `/orgs/${session.orgId}/destinations/${id}`)).json();
    expect(saved).toMatchObject({ name: 'Canal BI (prod)', config: { groupWaitSeconds: 45 }, credentialsSet: true });
    await p.context().close();
  });

  it('a Slack destination\'s page shows the Request URL the server builds from its public address, not the browser\'s origin', async () => {
    const server = session.server;
    const created = await server.t.admin('POST', `/orgs/${session.orgId}/destinations`, {
      name: '#bi', kind: 'slack', credentials: { webhookUrl: 'https://127.0.0.1:9/services/T0FAKE01/B0FAKE02/abcdefghijkl' },
    });
    expect(created.statusCode, created.body).toBe(201);
    const id = created.json().id;
    const p = await openConsole(server, ORG_NAME, { path: '/destinations' });
    // The operator reaches the console by an internal address; Slack must call the public one.
    const origin = server.t.ctx.config.baseUrl;
    server.t.ctx.config.baseUrl = 'http://vigia.contoso.example/monitor';
    try {
      await p.goto(`${server.origin}/destinations/${id}`);
      const shown = p.getByTestId('slack-request-url');
      await shown.waitFor();
      expect(await shown.textContent()).toBe(`http://vigia.contoso.example/monitor/api/inbound/v1/slack/${id}`);
    } finally {
      server.t.ctx.config.baseUrl = origin;
      await p.context().close();
    }
  });

  it('the e-mail form offers the group window: created with it, and edited on the destination page keeping recipients and digest', async () => {
    const t = session.server.t;
    const p = await openConsole(session.server, ORG_NAME, { path: '/destinations' });
    await p.locator('#dest-kind').selectOption('email');
    await p.getByLabel('Nome', { exact: true }).fill('Time de BI');
    await p.getByLabel('Destinatários (e-mails separados por vírgula)').fill('bi@example.com, ops@example.com');
    await p.getByLabel('Agrupar aberturas por (segundos, padrão 30)').fill('60');
    await p.getByRole('button', { name: 'Criar' }).click();
    await p.getByRole('link', { name: 'Time de BI' }).waitFor();
    const list = (await t.admin('GET', `/orgs/${session.orgId}/destinations`)).json() as { id: string; name: string; config: Record<string, unknown> }[];
    const created = list.find((d) => d.name === 'Time de BI')!;
    expect(created.config).toEqual({ recipients: ['bi@example.com', 'ops@example.com'], groupWaitSeconds: 60 });
    expect((await t.admin('PATCH', `/orgs/${session.orgId}/destinations/${created.id}`, { config: { ...created.config, digest: 'daily' } })).statusCode).toBe(200);
    await p.goto(`${session.server.origin}/destinations/${created.id}`);
    const form = p.getByTestId('edit-destination');
    const wait = form.getByLabel('Agrupar aberturas por (segundos, padrão 30)');
    await expect.poll(() => wait.inputValue()).toBe('60');
    await wait.fill('0');
    await form.getByRole('button', { name: 'Salvar' }).click();
    await form.getByText('Configurações salvas.').waitFor();
    const saved = (await t.admin('GET', `/orgs/${session.orgId}/destinations/${created.id}`)).json();
    expect(saved.config).toEqual({ recipients: ['bi@example.com', 'ops@example.com'], digest: 'daily', groupWaitSeconds: 0 });
    await p.context().close();
  });
});
