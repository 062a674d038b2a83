/**
 * The SMTP relay with OAuth (XOAUTH2), as Microsoft 365 asks once basic authentication is off:
 * VIGIA_SMTP_URL `?auth=oauth2` with the mailbox as user, an Entra ID app's client-credentials
 * token from the tenant simulator's token endpoint (real HTTPS, msal-node), and a real SMTP server
 * on loopback that accepts only AUTH XOAUTH2 with a token for Exchange Online's audience. Also the
 * configuration's refusals, a refused app secret, and a token the relay turns down (renewed once).
 */
import { afterAll, afterEach, beforeAll, describe, expect, it } from 'vitest';
import { loadConfig } from '../../src/config.js';
import { startDispatcher, type Dispatcher } from '../../src/delivery/dispatcher.js';
import type { TenantSim } from '../../src/tenant-sim/index.js';
import { createTestApp, type TestApp } from '../helpers/context.js';
import { createOrg, openAlert } from '../helpers/fixtures.js';
import { SmtpFake } from '../fakes/smtp.js';
import { startSim } from '../tenant-sim/helpers.js';

const MAILBOX = 'alertas@contoso.example';

/** The claims of a JWT (the relay's check; the signature is the token endpoint's business). */
function claims(jwt: string): Record<string, unknown> {
  try {
    return JSON.parse(Buffer.from(jwt.split('.')[1] ?? '', 'base64url').toString('utf8'));
  } catch {
    return {};
  }
}

describe('e-mail through a relay that takes OAuth (XOAUTH2) only', () => {
  let sim: TenantSim;
  const smtp = new SmtpFake({
    oauth: {
      accepts: (user, token) => {
        const c = claims(token);
        return user === MAILBOX && c.aud === 'https://outlook.office365.com' && c.appid === sim.clientId;
      },
    },
  });
  let t: TestApp | undefined;
  let worker: Dispatcher | undefined;

  const env = (over: Record<string, string> = {}) => ({
    VIGIA_SMTP_URL: `smtp://${encodeURIComponent(MAILBOX)}@localhost:${smtp.port}?auth=oauth2`,
    VIGIA_SMTP_FROM: `Vigia <${MAILBOX}>`,
    VIGIA_SMTP_OAUTH_TENANT_ID: sim.tenantId,
    VIGIA_SMTP_OAUTH_CLIENT_ID: sim.clientId,
    VIGIA_SMTP_OAUTH_CLIENT_SECRET: sim.clientSecret,
    VIGIA_SMTP_OAUTH_AUTHORITY: sim.origin,
    ...over,
  });
  const tokenCalls = () => sim.countCalls({ family: 'token' });

  beforeAll(async () => {
    sim = await startSim({ seed: 91, sizes: { capacities: 1, workspaces: 1 } });
    await smtp.start();
  });
  afterEach(async () => {
    await worker?.stop();
    worker = undefined;
    await t?.close();
    t = undefined;
    smtp.clear();
  });
  afterAll(async () => {
    await smtp.stop();
    await sim.stop();
  });

  async function emailDestination(app: TestApp, orgId: string, recipients: string[]): Promise<string> {
    const res = await app.admin('POST', `/orgs/${orgId}/destinations`, { name: 'BI (M365)', kind: 'email', config: { recipients, groupWaitSeconds: 0 } });
    expect(res.statusCode, res.body).toBe(201);
    return res.json().id;
  }

  it('sends as the mailbox with an Entra ID app token for Exchange Online, one token for many messages', async () => {
    t = await createTestApp({ env: env() });
    const org = await createOrg(t);
    await emailDestination(t, org.id, ['bi-a@example.com', 'bi-b@example.com']);
    const before = tokenCalls();
    await openAlert(t, org.id, { sourceId: 'gw-oauth-1' });
    await openAlert(t, org.id, { sourceId: 'gw-oauth-2' });
    worker = await startDispatcher(t.ctx);
    await worker.pass();
    const mails = await smtp.waitFor(4);
    expect(mails.every((m) => m.user === MAILBOX && m.secure)).toBe(true);
    expect(mails.map((m) => m.from)).toEqual([MAILBOX, MAILBOX, MAILBOX, MAILBOX]);
    expect(claims(smtp.accessTokens.at(-1)!)).toMatchObject({ aud: 'https://outlook.office365.com', tid: sim.tenantId });
    // msal's cache: one token request for the pooled connection's four messages.
    expect(tokenCalls() - before).toBe(1);
    expect(sim.violations).toEqual([]);
    expect(t.ctx.logs.text).not.toContain(sim.clientSecret);
  });

  it('a token the relay turns down is renewed once and the message goes out', async () => {
    t = await createTestApp({ env: env() });
    const org = await createOrg(t);
    await emailDestination(t, org.id, ['renew@example.com']);
    // The relay turns the first AUTH down (a revoked token): nodemailer asks again with renew, and
    // msal goes to the token endpoint instead of its cache.
    const first = smtp.accessTokens.length;
    const before = tokenCalls();
    const origAccepts = smtp['opts'].oauth!.accepts;
    let seen = 0;
    smtp['opts'].oauth!.accepts = (user, token) => {
      seen += 1;
      return seen > 1 && origAccepts(user, token);
    };
    try {
      await openAlert(t, org.id, { sourceId: 'gw-renew' });
      worker = await startDispatcher(t.ctx);
      await worker.pass();
      const [m] = await smtp.waitFor(1);
      expect(m!.to).toEqual(['renew@example.com']);
      expect(smtp.accessTokens.length - first).toBe(2);
      expect(tokenCalls() - before).toBe(2);
    } finally {
      smtp['opts'].oauth!.accepts = origAccepts;
    }
  });

  it('a refused app secret keeps the delivery pending with an error naming the token, never the secret', async () => {
    const wrong = 'wrong-secret-Zq8~0123456789';
    t = await createTestApp({ env: env({ VIGIA_SMTP_OAUTH_CLIENT_SECRET: wrong }) });
    const org = await createOrg(t);
    const dest = await emailDestination(t, org.id, ['nobody@example.com']);
    await openAlert(t, org.id, { sourceId: 'gw-bad-secret' });
    worker = await startDispatcher(t.ctx);
    await worker.pass();
    const [d] = (await t.admin('GET', `/orgs/${org.id}/destinations/${dest}/deliveries`)).json().value;
    expect(d.status).toBe('pending');
    expect(d.lastError).toBe('no OAuth token for the SMTP relay: the token endpoint answered invalid_client (check VIGIA_SMTP_OAUTH_*)');
    expect(JSON.stringify(d)).not.toContain(wrong);
    expect(t.ctx.logs.text).not.toContain(wrong);
    expect(smtp.mails).toHaveLength(0);
  });
});

describe('VIGIA_SMTP_URL with auth=oauth2: configuration refused with a clear message', () => {
  const base = {
    VIGIA_BASE_URL: 'https://vigia.example.test',
    VIGIA_SECRET_KEY: Buffer.alloc(32, 7).toString('base64'),
    VIGIA_ADMIN_TOKEN: 'admin-token-0123456789abcdef-0123456789',
    VIGIA_SMTP_FROM: 'alertas@contoso.example',
    VIGIA_SMTP_OAUTH_TENANT_ID: '00000000-0000-0000-0000-000000000001',
    VIGIA_SMTP_OAUTH_CLIENT_ID: '00000000-0000-0000-0000-000000000002',
    VIGIA_SMTP_OAUTH_CLIENT_SECRET: 'app-secret-4567',
  };
  const url = 'smtp://alertas%40contoso.example@smtp.office365.com:587?auth=oauth2';

  it('defaults to Microsoft 365 and keeps the secret out of every message', () => {
    const c = loadConfig({ ...base, VIGIA_SMTP_URL: url });
    expect(c.smtp?.auth).toMatchObject({ kind: 'oauth2', user: 'alertas@contoso.example', authorityHost: 'https://login.microsoftonline.com', scope: 'https://outlook.office365.com/.default' });
    const cases: [Record<string, string | undefined>, RegExp][] = [
      [{ VIGIA_SMTP_URL: 'smtp://smtp.office365.com:587?auth=oauth2' }, /must name the mailbox as its user/],
      [{ VIGIA_SMTP_URL: 'smtp://alertas%40contoso.example:pw-app-secret-4567@smtp.office365.com:587?auth=oauth2' }, /takes no password/],
      [{ VIGIA_SMTP_URL: url, VIGIA_SMTP_OAUTH_CLIENT_SECRET: '' }, /VIGIA_SMTP_OAUTH_CLIENT_SECRET is required/],
      [{ VIGIA_SMTP_URL: url, VIGIA_SMTP_OAUTH_TENANT_ID: 'a/b' }, /VIGIA_SMTP_OAUTH_TENANT_ID must be/],
      [{ VIGIA_SMTP_URL: url, VIGIA_SMTP_OAUTH_AUTHORITY: 'http://login.example' }, /VIGIA_SMTP_OAUTH_AUTHORITY must be an https/],
      [{ VIGIA_SMTP_URL: url, VIGIA_SMTP_OAUTH_SCOPE: 'https://outlook.office365.com/SMTP.Send' }, /VIGIA_SMTP_OAUTH_SCOPE must be/],
      [{ VIGIA_SMTP_URL: `${url.replace('oauth2', 'kerberos')}` }, /auth must be password or oauth2/],
    ];
    for (const [over, message] of cases) {
      let err: Error | undefined;
      try {
        loadConfig({ ...base, ...over });
      } catch (e) {
        err = e as Error;
      }
      expect(err?.message, JSON.stringify(over)).toMatch(message);
      expect(err?.message).not.toContain('app-secret-4567');
    }
  });
});
