// @engine-neutral: what the browser shows; the link rules run on both engines in test/inbound/ack-links.test.ts
/**
 * The acknowledge page in headless Chromium (issue 37 items 4 and 5): a link from a message
 * opens a confirmation page in the organization's language (pt-BR and en) that acts only when
 * its button is pressed; with sign-in required it sends the person through the console's
 * sign-in and back; the organization's settings page saves language, time zone and that option.
 */
import { describe, expect, it } from 'vitest';
import { ackLinkUrl, loadAckKey } from '../../src/delivery/ack-links.js';
import { TEST_ADMIN_TOKEN } from '../helpers/context.js';
import { openConsole, signInWithToken, useConsoleServer } from '../helpers/console-session.js';
import { createOrg, openAlert } from '../helpers/fixtures.js';

const ORG_NAME = 'Equipe de dados';

describe('acknowledge page and organization settings in Chromium', () => {
  const session = useConsoleServer({ orgName: ORG_NAME, config: { destinationAllowlist: ['127.0.0.1'] } });
  let n = 0;

  async function link(orgId: string): Promise<{ url: string; alertId: string }> {
    const t = session.server.t;
    const dest = await t.admin('POST', `/orgs/${orgId}/destinations`, { name: `canal-${++n}`, kind: 'webhook', url: `https://127.0.0.1:9/${n}` });
    expect(dest.statusCode, dest.body).toBe(201);
    const alertId = await openAlert(t, orgId, { sourceId: `ds-${n}`, title: `Atualização falhou ${n}` });
    const url = ackLinkUrl(t.ctx.config.baseUrl, await loadAckKey(t.ctx), { orgId, alertId, destinationId: dest.json().id, now: new Date() });
    return { url, alertId };
  }
  const acknowledged = async (orgId: string, alertId: string) => (await session.server.t.admin('GET', `/orgs/${orgId}/alerts/${alertId}`)).json();

  for (const [language, texts] of [
    ['pt-BR', { heading: 'Reconhecer este alerta?', button: 'Reconhecer', done: 'Alerta reconhecido', view: 'Ver no Vigia', again: 'já foi usado' }],
    ['en', { heading: 'Acknowledge this alert?', button: 'Acknowledge', done: 'Alert acknowledged', view: 'View in Vigia', again: 'already used' }],
  ] as const) {
    it(`${language}: opening the link changes nothing; the button acknowledges once`, async () => {
      const orgId = language === 'pt-BR' ? session.orgId : (await createOrg(session.server.t, { name: 'English team', language: 'en' })).id;
      const { url, alertId } = await link(orgId);
      const context = await session.server.browser.newContext({ locale: language });
      const p = await context.newPage();
      p.on('pageerror', (err) => session.server.pageErrors.push(err.message));
      const first = await p.goto(url);
      expect(first?.status()).toBe(200);
      await p.getByRole('heading', { level: 1, name: texts.heading }).waitFor();
      expect(await p.locator('html').getAttribute('lang')).toBe(language);
      expect(await p.getByRole('link', { name: texts.view }).getAttribute('href')).toBe(`${session.server.origin}/alerts/${alertId}`);
      expect((await acknowledged(orgId, alertId)).acknowledged).toBe(false);
      await p.getByRole('button', { name: texts.button }).click();
      await p.getByRole('heading', { level: 1, name: texts.done }).waitFor();
      expect((await acknowledged(orgId, alertId)).acknowledged).toBe(true);
      // The same link again (a reload re-posts nothing: a new GET says it was used).
      const again = await p.goto(url);
      expect(again?.status()).toBe(410);
      await p.getByText(texts.again).waitFor();
      await context.close();
    });
  }

  it('with sign-in required: the page sends to the console sign-in and back, and the person is recorded', async () => {
    const t = session.server.t;
    expect((await t.admin('PATCH', `/orgs/${session.orgId}`, { ackRequiresSignIn: true })).statusCode).toBe(200);
    const { url, alertId } = await link(session.orgId);
    const context = await session.server.browser.newContext({ locale: 'pt-BR' });
    const p = await context.newPage();
    p.on('pageerror', (err) => session.server.pageErrors.push(err.message));
    await p.goto(url);
    await p.getByRole('heading', { level: 1, name: 'Entre para reconhecer' }).waitFor();
    expect(await p.getByRole('button', { name: 'Reconhecer' }).count()).toBe(0);
    await p.getByRole('link', { name: 'Entrar no Vigia' }).click();
    await signInWithToken(p, TEST_ADMIN_TOKEN);
    await p.waitForURL(url);
    await p.getByRole('button', { name: 'Reconhecer' }).click();
    await p.getByRole('heading', { level: 1, name: 'Alerta reconhecido' }).waitFor();
    expect((await acknowledged(session.orgId, alertId)).acknowledgedBy).toBe('instance admin');
    await context.close();
    await t.admin('PATCH', `/orgs/${session.orgId}`, { ackRequiresSignIn: false });
  });

  it('the settings page saves the language, the time zone and the sign-in option', async () => {
    const p = await openConsole(session.server, ORG_NAME, { path: '/settings' });
    await p.getByRole('heading', { level: 1, name: 'Configurações da organização' }).waitFor();
    await p.getByLabel('Idioma das mensagens').selectOption('en');
    await p.getByLabel('Fuso horário').fill('Europe/Lisbon');
    await p.getByLabel('Exigir entrar no Vigia para reconhecer por link').check();
    // The page reloads the organization after a save; hold that reload until someone has typed again,
    // so the test shows the reload does not overwrite what was typed meanwhile.
    let typed!: () => void;
    const afterTyping = new Promise<void>((r) => (typed = r));
    const orgUrl = (url: URL) => url.pathname.endsWith(`/orgs/${session.orgId}`);
    await p.route(orgUrl, async (route) => {
      if (route.request().method() === 'GET') await afterTyping;
      await route.continue();
    });
    const reloaded = p.waitForResponse((r) => r.request().method() === 'GET' && orgUrl(new URL(r.url())));
    await p.getByRole('button', { name: 'Salvar' }).click();
    await p.getByText('Configurações salvas.').waitFor();
    const org = (await session.server.t.admin('GET', `/orgs/${session.orgId}`)).json();
    expect({ language: org.language, timeZone: org.timeZone, ackRequiresSignIn: org.ackRequiresSignIn }).toEqual({ language: 'en', timeZone: 'Europe/Lisbon', ackRequiresSignIn: true });
    const zone = p.getByLabel('Fuso horário');
    await zone.fill('Marte/Olimpo');
    typed();
    await reloaded;
    await p.unroute(orgUrl);
    expect(await zone.inputValue()).toBe('Marte/Olimpo');
    const refused = p.waitForResponse((r) => r.request().method() === 'PATCH');
    await p.getByRole('button', { name: 'Salvar' }).click();
    expect((await refused).status()).toBe(400);
    expect((await session.server.t.admin('GET', `/orgs/${session.orgId}`)).json().timeZone).toBe('Europe/Lisbon');
    await p.context().close();
  });
});
