// @engine-neutral: what the browser shows; the queries behind each page run on both engines in the API tests
/**
 * OpenID Connect sign-in against a real, certified provider (oidc-provider) on loopback with the
 * test CA, the whole flow in headless Chromium; then the refusals: wrong state, wrong nonce,
 * replayed callback, forged and expired ID tokens, a callback completed in another browser (login
 * CSRF), an invitation claimed with an unverified e-mail.
 */
import { readFileSync } from 'node:fs';
import { createServer, type Server } from 'node:https';
import type { IncomingMessage, ServerResponse } from 'node:http';
import type { AddressInfo } from 'node:net';
import path from 'node:path';
import { fileURLToPath } from 'node:url';
import Provider from 'oidc-provider';
import type { Browser, BrowserContext, Cookie, Page } from 'playwright-core';
import { startConsoleServer, type ConsoleServer } from '../helpers/console-session.js';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { Clock } from '../../src/clock.js';
import type { TestApp } from '../helpers/context.js';
import { createOrg } from '../helpers/fixtures.js';

const CERT_DIR = path.resolve(path.dirname(fileURLToPath(import.meta.url)), '..', '..', '.test-certs');
const CALLBACK = '/api/admin/v1/session/oidc/callback';
const CLIENT = { id: 'vigia-console', secret: 'client-secret-0123456789abcdefghijklmnopqrstuvwxyz' };
/** How long the provider's ID tokens are valid: short, so Vigia's clock can pass it while a sign-in state (10 min) still holds. */
const ID_TOKEN_TTL_S = 60;

/** Real time (the provider and Chromium run on it) that the test can move Vigia ahead of. */
class AheadClock implements Clock {
  aheadMs = 0;
  now(): Date {
    return new Date(Date.now() + this.aheadMs);
  }
}

describe('OpenID Connect sign-in', () => {
  let server: ConsoleServer;
  let t: TestApp;
  let idp: Server;
  let issuer: string;
  let origin: string;
  let browser: Browser;
  let orgId: string;
  const clock = new AheadClock();
  let alterTokenResponse: ((body: { id_token: string }) => unknown) | null = null;
  let handler: (req: IncomingMessage, res: ServerResponse) => void = (_req, res) => res.end();

  beforeAll(async () => {
    const tls = { cert: readFileSync(path.join(CERT_DIR, 'server.crt')), key: readFileSync(path.join(CERT_DIR, 'server.key')) };
    idp = createServer(tls, (req, res) => handler(req, res));
    await new Promise<void>((resolve) => idp.listen(0, '127.0.0.1', resolve));
    issuer = `https://127.0.0.1:${(idp.address() as AddressInfo).port}`;

    server = await startConsoleServer({ clock, config: { oidc: { issuer, clientId: CLIENT.id, clientSecret: CLIENT.secret, roleMap: [] } } });
    ({ t, origin, browser } = server);

    const provider = new Provider(issuer, {
      clients: [{ client_id: CLIENT.id, client_secret: CLIENT.secret, redirect_uris: [`${origin}${CALLBACK}`], grant_types: ['authorization_code'], response_types: ['code'] }],
      claims: { openid: ['sub'], email: ['email', 'email_verified'] },
      scopes: ['openid', 'email', 'profile'],
      ttl: { IdToken: ID_TOKEN_TTL_S },
      async findAccount(_ctx, sub) {
        // "unverified-x" claims x's address unverified; "twin-x" is another account with x's verified address.
        const unverified = sub.startsWith('unverified-');
        const local = sub.replace(/^(unverified|twin)-/, '');
        return { accountId: sub, claims: async () => ({ sub, email: `${local}@example.test`, email_verified: !unverified }) };
      },
    });
    provider.proxy = false;
    const serve = provider.callback();
    handler = (req, res) => {
      const change = alterTokenResponse;
      if (change && req.url?.startsWith('/token')) {
        // Stands between Vigia and the provider's token endpoint, like a forger would.
        const chunks: Buffer[] = [];
        const end = res.end.bind(res) as (body: string) => ServerResponse;
        res.write = ((c: unknown) => (chunks.push(Buffer.from(c as string)), true)) as typeof res.write;
        res.end = ((c?: unknown) => {
          if (c) chunks.push(Buffer.from(c as string));
          const text = JSON.stringify(change(JSON.parse(Buffer.concat(chunks).toString('utf8'))));
          res.setHeader('content-length', Buffer.byteLength(text));
          return end(text);
        }) as typeof res.end;
      }
      serve(req, res);
    };

    orgId = (await createOrg(t)).id;
    expect((await t.admin('PUT', `/orgs/${orgId}/members`, { email: 'alice@example.test', role: 'operator' })).statusCode).toBe(200);
    expect((await t.admin('PUT', `/orgs/${orgId}/members`, { email: 'bob@example.test', role: 'viewer' })).statusCode).toBe(200);
  });

  afterAll(async () => {
    await server?.close();
    await new Promise((resolve) => idp?.close(resolve));
  });

  /** Goes through the provider's sign-in pages as `login`; returns the callback URL the browser was sent to. */
  async function signInThroughProvider(login: string, beforeCallback?: (context: BrowserContext) => Promise<void>) {
    // The provider's certificate is from the test CA, which Chromium does not know.
    const context = await browser.newContext({ ignoreHTTPSErrors: true, locale: 'pt-BR' });
    const page = await context.newPage();
    let callbackUrl = '';
    page.on('request', (r) => {
      if (r.url().startsWith(`${origin}${CALLBACK}`)) callbackUrl = r.url();
    });
    await page.goto(`${origin}/`);
    await page.getByRole('link', { name: 'Entrar com a conta da empresa' }).click();
    await page.locator('input[name=login]').fill(login);
    await page.locator('input[name=password]').fill('any');
    await page.locator('button[type=submit]').click();
    const consent = page.locator('button:has-text("Continue")');
    await consent.waitFor({ timeout: 15_000 });
    if (beforeCallback) await beforeCallback(context);
    await consent.click();
    // The callback is on the origin too: wait for where it sends the browser, not the callback itself.
    await page.waitForURL((u) => u.href.startsWith(origin) && !u.pathname.startsWith(CALLBACK), { timeout: 15_000 });
    await page.waitForLoadState();
    return { context, page, callbackUrl };
  }

  /**
   * A refused sign-in lands on the console's sign-in page (not a raw JSON page): the reason in
   * Portuguese, the platform's error code beside it, no English envelope.
   */
  async function refusedOnConsole(page: Page, code: string): Promise<void> {
    const shown = page.getByTestId('sso-error');
    await shown.waitFor({ timeout: 15_000 });
    expect(new URL(page.url()).pathname).toBe('/');
    expect(new URL(page.url()).searchParams.get('signInError')).toBe(code);
    expect(await shown.textContent()).toContain(`(código: ${code})`);
    expect(await page.getByRole('heading', { name: 'Entrar no console do Vigia' }).count()).toBe(1);
    expect(await page.content()).not.toContain('"error":');
  }

  it('signs a person in through the provider into a session cookie; a replayed callback is refused', async () => {
    const { context, page, callbackUrl } = await signInThroughProvider('alice');
    expect(callbackUrl).toContain('code=');
    await page.getByRole('button', { name: 'Sair' }).waitFor({ timeout: 15_000 });
    const cookie = (await context.cookies(origin)).find((c) => c.name === 'vigia_session');
    expect(cookie).toMatchObject({ httpOnly: true, sameSite: 'Lax' });
    const who = await t.app.inject({ method: 'GET', url: '/api/admin/v1/session', headers: { cookie: `vigia_session=${cookie!.value}` } });
    expect(who.json()).toMatchObject({ kind: 'person', email: 'alice@example.test', roles: [{ orgId, role: 'operator' }] });
    expect(await page.evaluate(() => JSON.stringify(sessionStorage))).not.toMatch(/vigia_session|code=/);
    // The sign-in (a GET callback) is in the audit log of the organization it gives access to,
    // with the invitation's link to the provider's subject.
    const audit = (await t.admin('GET', `/orgs/${orgId}/audit?actor=alice@example.test`)).json().value as Array<{ action: string; changes: Record<string, unknown> }>;
    expect(audit.map((e) => e.action)).toEqual(expect.arrayContaining(['session.create', 'members.link']));
    expect(audit.find((e) => e.action === 'session.create')!.changes).toMatchObject({ method: 'oidc' });

    // The same callback again (same code, same state): refused, no session.
    const replay = await fetch(callbackUrl, { redirect: 'manual' });
    expect(replay.status).toBe(400);
    expect(replay.headers.get('set-cookie')).toBeNull();
    await context.close();
  });

  it('binds the sign-in to the browser that started it: a callback URL taken to another browser is refused', async () => {
    // Mallory signs in as herself; just before the provider sends the browser back, the browser
    // loses the sign-in cookie: it arrives at the callback as a victim's browser would, with
    // a callback URL it did not start.
    let loginCookie: Cookie | undefined;
    const { context, page, callbackUrl } = await signInThroughProvider('alice', async (ctx) => {
      loginCookie = (await ctx.cookies(`${origin}${CALLBACK}`)).find((c) => c.name === 'vigia_oidc_login');
      await ctx.clearCookies({ name: 'vigia_oidc_login' });
    });
    expect(callbackUrl).toContain('code=');
    // The browser lands on the console's sign-in page, which says why (in its language, pt-BR here).
    expect(new URL(page.url()).searchParams.get('signInError')).toBe('invalid_request');
    expect(await page.getByTestId('sso-error').textContent()).toContain('não foi iniciada neste navegador');
    expect((await context.cookies(origin)).find((c) => c.name === 'vigia_session')).toBeUndefined();
    expect(loginCookie).toMatchObject({ httpOnly: true, sameSite: 'Lax', path: '/api/admin/v1/session/oidc/' });
    expect(loginCookie!.expires - Date.now() / 1000).toBeLessThanOrEqual(600);

    // Without the cookie, or with another sign-in's: refused, no session.
    const victim = await fetch(callbackUrl, { redirect: 'manual' });
    expect(victim.status).toBe(400);
    expect(await victim.text()).toContain('not started in this browser');
    expect(victim.headers.get('set-cookie') ?? '').not.toContain('vigia_session=');
    const other = await fetch(callbackUrl, { redirect: 'manual', headers: { cookie: `vigia_oidc_login=${'x'.repeat(43)}` } });
    expect(other.status).toBe(400);
    // The browser that started it completes it.
    const own = await fetch(callbackUrl, { redirect: 'manual', headers: { cookie: `vigia_oidc_login=${loginCookie!.value}` } });
    expect(own.status).toBe(303);
    expect(own.headers.get('set-cookie')).toContain('vigia_session=');
    await context.close();
  });

  it('the sign-in cookie is Secure when the service is reached over https', async () => {
    const before = t.ctx.config.baseUrl;
    t.ctx.config.baseUrl = 'https://vigia.example.test';
    try {
      const res = await t.app.inject({ method: 'GET', url: '/api/admin/v1/session/oidc/login' });
      expect(res.statusCode).toBe(302);
      const cookie = String(res.headers['set-cookie']);
      expect(cookie).toMatch(/^vigia_oidc_login=[\w-]{43};/);
      expect(cookie).toContain('HttpOnly');
      expect(cookie).toContain('Secure');
      expect(cookie).toContain('SameSite=Lax');
      expect(cookie).toContain('Max-Age=600');
    } finally {
      t.ctx.config.baseUrl = before;
    }
  });

  it('an invitation is taken only with a verified e-mail; then the person is known by the subject, not the e-mail', async () => {
    expect((await t.admin('PUT', `/orgs/${orgId}/members`, { email: 'carol@example.test', role: 'owner' })).statusCode).toBe(200);
    // An account whose provider does not vouch for carol's address cannot take her owner invitation.
    const impostor = await signInThroughProvider('unverified-carol');
    expect(new URL(impostor.page.url()).searchParams.get('signInError')).toBe('forbidden');
    expect(await impostor.page.getByTestId('sso-error').textContent()).toContain('marca como verificado');
    expect((await impostor.context.cookies(origin)).find((c) => c.name === 'vigia_session')).toBeUndefined();
    await impostor.context.close();
    const { rows } = await t.ctx.db.query(`SELECT oidc_subject FROM people WHERE email = 'carol@example.test'`);
    expect(rows[0].oidc_subject).toBeNull();

    // Carol herself still can.
    const carol = await signInThroughProvider('carol');
    await carol.page.getByRole('button', { name: 'Sair' }).waitFor({ timeout: 15_000 });
    const cookie = (await carol.context.cookies(origin)).find((c) => c.name === 'vigia_session')!;
    const who = await t.app.inject({ method: 'GET', url: '/api/admin/v1/session', headers: { cookie: `vigia_session=${cookie.value}` } });
    expect(who.json()).toMatchObject({ email: 'carol@example.test', roles: [{ orgId, role: 'owner' }] });
    await carol.context.close();

    // Another account with the same verified address is not carol: the link is the subject.
    const twin = await signInThroughProvider('twin-carol');
    await refusedOnConsole(twin.page, 'forbidden');
    expect((await twin.context.cookies(origin)).find((c) => c.name === 'vigia_session')).toBeUndefined();
    await twin.context.close();
    // Carol's address changes in Vigia; her next sign-in still finds her by subject.
    await t.ctx.db.query(`UPDATE people SET email = 'carol.new@example.test' WHERE email = 'carol@example.test'`);
    const again = await signInThroughProvider('carol');
    await again.page.getByRole('button', { name: 'Sair' }).waitFor({ timeout: 15_000 });
    await again.context.close();
  });

  it('a viewer sees destinations without the form to create one, and the API refuses it', async () => {
    const { context, page } = await signInThroughProvider('bob');
    await page.getByRole('button', { name: 'Sair' }).waitFor({ timeout: 15_000 });
    await page.evaluate((id) => sessionStorage.setItem('vigia.orgId', id), orgId);
    await page.goto(`${origin}/destinations`);
    await page.getByText('Nenhum destino. Crie um para receber os alertas.').waitFor();
    expect(await page.getByRole('button', { name: 'Criar' }).count()).toBe(0);
    // The audit log is for owners: not even in a closed navigation group.
    expect(await page.locator('nav a[href="/audit"]').count()).toBe(0);
    expect(await page.locator('nav a[href="/members"]').count()).toBe(1);
    const status = await page.evaluate(async () => {
      const me = await (await fetch('/api/admin/v1/session')).json();
      const orgs = await (await fetch('/api/admin/v1/orgs')).json();
      const res = await fetch(`/api/admin/v1/orgs/${orgs[0].id}/destinations`, {
        method: 'POST',
        headers: { 'content-type': 'application/json', 'x-csrf-token': me.csrfToken },
        body: JSON.stringify({ name: 'x', kind: 'webhook', url: 'https://hooks.example.test/x' }),
      });
      return res.status;
    });
    expect(status).toBe(403);
    await context.close();
  });

  it('refuses a wrong state and a wrong nonce; someone Vigia does not know gets 403', async () => {
    const bogus = await fetch(`${origin}${CALLBACK}?code=abc&state=not-ours`, { redirect: 'manual' });
    expect(bogus.status).toBe(400);

    // The nonce Vigia expects is changed before the callback: the ID token no longer matches it.
    const wrongNonce = await signInThroughProvider('alice', async () => {
      await t.ctx.db.query(`UPDATE oidc_logins SET nonce = 'someone-elses-nonce'`);
    });
    await refusedOnConsole(wrongNonce.page, 'unauthorized');
    expect((await wrongNonce.context.cookies(origin)).find((c) => c.name === 'vigia_session')).toBeUndefined();
    await wrongNonce.context.close();

    // mallory signs in, and the ID token on its way is rewritten to say "alice": its signature no longer matches.
    alterTokenResponse = (body) => {
      const [header, payload, signature] = body.id_token.split('.');
      const claims = JSON.parse(Buffer.from(payload!, 'base64url').toString('utf8'));
      const forged = Buffer.from(JSON.stringify({ ...claims, sub: 'alice', email: 'alice@example.test' })).toString('base64url');
      return { ...body, id_token: `${header}.${forged}.${signature}` };
    };
    const forged = await signInThroughProvider('mallory');
    alterTokenResponse = null;
    await refusedOnConsole(forged.page, 'unauthorized');
    expect((await forged.context.cookies(origin)).find((c) => c.name === 'vigia_session')).toBeUndefined();
    await forged.context.close();

    const stranger = await signInThroughProvider('mallory');
    await refusedOnConsole(stranger.page, 'forbidden');
    expect(await stranger.page.getByTestId('sso-error').textContent()).toBe('Você ainda não tem papel no Vigia (um convite só vale com um e-mail que o provedor de identidade marca como verificado). Peça a um proprietário da sua organização que o adicione. (código: forbidden)');
    await stranger.page.getByLabel('Idioma').selectOption('en');
    await expect.poll(() => stranger.page.getByTestId('sso-error').textContent()).toBe('You have no role in Vigia yet (an invitation is taken only with an e-mail address your identity provider marks as verified). Ask an owner of your organization to add you. (code: forbidden)');
    expect((await stranger.context.cookies(origin)).find((c) => c.name === 'vigia_session')).toBeUndefined();
    await stranger.context.close();
  });

  it('refuses an ID token that has expired by the service clock; back in step, the sign-in goes through', async () => {
    // Vigia's clock moves past the ID token's expiry (and openid-client's 30 s tolerance) while the
    // person is at the provider; the sign-in state is still fresh, only the token is too old.
    const logsBefore = t.ctx.logs.lines.length;
    try {
      const late = await signInThroughProvider('alice', async () => {
        clock.aheadMs = (ID_TOKEN_TTL_S + 60) * 1000;
      });
      await refusedOnConsole(late.page, 'unauthorized');
      expect((await late.context.cookies(origin)).find((c) => c.name === 'vigia_session')).toBeUndefined();
      expect(t.ctx.logs.lines.slice(logsBefore).join('\n')).toContain('OAUTH_JWT_TIMESTAMP_CHECK_FAILED');
      await late.context.close();
    } finally {
      clock.aheadMs = 0;
    }

    // The same sign-in with Vigia's clock back in step goes through.
    const onTime = await signInThroughProvider('alice');
    await onTime.page.getByRole('button', { name: 'Sair' }).waitFor({ timeout: 15_000 });
    expect((await onTime.context.cookies(origin)).find((c) => c.name === 'vigia_session')).toBeDefined();
    await onTime.context.close();
  });
});
