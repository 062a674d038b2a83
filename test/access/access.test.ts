/** Roles, personal tokens, sessions, CSRF and the audit log through the admin API (docs/access.md). */
import Fastify from 'fastify';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { ManualClock } from '../../src/clock.js';
import { adminApi } from '../../src/admin-api/index.js';
import { declaredAccess, installAdminAuth } from '../../src/admin-api/auth.js';
import { installErrorHandling } from '../../src/http/errors.js';
import { openSession } from '../../src/access/sessions.js';
import { purgeAudit } from '../../src/access/audit.js';
import { createTestApp, TEST_ADMIN_TOKEN, type TestApp } from '../helpers/context.js';
import { createOrg, openAlert } from '../helpers/fixtures.js';

const clock = new ManualClock('2026-06-15T12:00:00Z');
const TIMES = { idleMs: 3_600_000, maxMs: 43_200_000 };

interface Caller {
  cookie: string;
  csrf: string;
}

describe('people: roles, personal tokens, sessions, audit', () => {
  let t: TestApp;
  let orgId: string;
  let otherOrgId: string;
  const ids: Record<string, string> = {};

  /** A person signed in to the console (the session is opened as sign-in opens it). */
  async function signIn(personId: string): Promise<Caller> {
    const s = await openSession(t.ctx.db, { personId, now: clock.now(), times: TIMES });
    return { cookie: `vigia_session=${s.id}`, csrf: s.csrfToken };
  }
  function as(c: Caller, method: 'GET' | 'POST' | 'PUT' | 'PATCH' | 'DELETE', url: string, payload?: unknown, csrf = true) {
    return t.app.inject({
      method,
      url: `/api/admin/v1${url}`,
      headers: { cookie: c.cookie, ...(csrf ? { 'x-csrf-token': c.csrf } : {}) },
      ...(payload === undefined ? {} : { payload: payload as never }),
    });
  }
  function bearer(token: string, method: 'GET' | 'POST', url: string, payload?: unknown) {
    return t.app.inject({ method, url: `/api/admin/v1${url}`, headers: { authorization: `Bearer ${token}` }, ...(payload === undefined ? {} : { payload: payload as never }) });
  }

  beforeAll(async () => {
    t = await createTestApp({ clock });
    orgId = (await createOrg(t)).id;
    otherOrgId = (await createOrg(t)).id;
    for (const [who, role] of [['owner', 'owner'], ['operator', 'operator'], ['viewer', 'viewer']] as const) {
      const res = await t.admin('PUT', `/orgs/${orgId}/members`, { email: `${who}@example.test`, role });
      expect(res.statusCode).toBe(200);
      ids[who] = res.json().id;
    }
  });
  afterAll(() => t.close());

  it('every admin route declares who may call it', async () => {
    const app = Fastify();
    const routes: Array<{ method: string | string[]; url: string; access: unknown }> = [];
    app.addHook('onRoute', (r) => {
      routes.push({ method: r.method, url: r.url, access: declaredAccess(r.config) });
    });
    await app.register(adminApi, { prefix: '/api/admin/v1', ctx: t.ctx });
    await app.ready();
    const admin = routes.filter((r) => r.url.startsWith('/api/admin/v1') && r.method !== 'HEAD');
    expect(admin.length).toBeGreaterThan(30);
    expect(admin.filter((r) => r.access === null)).toEqual([]);
    await app.close();
  });

  it('a route that declares nothing is refused even to the instance admin', async () => {
    const app = Fastify();
    installErrorHandling(app);
    installAdminAuth(app, t.ctx);
    app.get('/undeclared', async () => ({ ok: true }));
    const res = await app.inject({ method: 'GET', url: '/undeclared', headers: { authorization: `Bearer ${TEST_ADMIN_TOKEN}` } });
    expect(res.statusCode).toBe(403);
    expect(res.json().error.code).toBe('forbidden');
    await app.close();
  });

  it('a viewer reads but cannot create a destination or acknowledge; other organizations are closed', async () => {
    const viewer = await signIn(ids.viewer!);
    expect((await as(viewer, 'GET', `/orgs/${orgId}/destinations`)).statusCode).toBe(200);
    const create = await as(viewer, 'POST', `/orgs/${orgId}/destinations`, { name: 'x', kind: 'webhook', url: 'https://hooks.example.test/x' });
    expect(create.statusCode).toBe(403);
    expect(create.json().error.code).toBe('forbidden');
    const alertId = await openAlert(t, orgId, { sourceId: 'viewer-gw' });
    expect((await as(viewer, 'POST', `/orgs/${orgId}/alerts/${alertId}/acknowledge`)).statusCode).toBe(403);
    expect((await as(viewer, 'GET', `/orgs/${otherOrgId}/destinations`)).statusCode).toBe(403);
    const orgs = await as(viewer, 'GET', '/orgs');
    expect(orgs.json().map((o: { id: string }) => o.id)).toEqual([orgId]);
    expect((await as(viewer, 'POST', '/orgs', { name: 'Mine' })).statusCode).toBe(403);
  });

  it('an operator acknowledges and the alert says who', async () => {
    const operator = await signIn(ids.operator!);
    const alertId = await openAlert(t, orgId, { sourceId: 'operator-gw' });
    const res = await as(operator, 'POST', `/orgs/${orgId}/alerts/${alertId}/acknowledge`, { by: 'someone else' });
    expect(res.statusCode).toBe(200);
    expect(res.json().acknowledgedBy).toBe('operator@example.test');
    const read = await t.admin('GET', `/orgs/${orgId}/alerts/${alertId}`);
    expect(read.json().acknowledgedBy).toBe('operator@example.test');
  });

  it('state-changing calls with the session cookie need the CSRF header', async () => {
    const operator = await signIn(ids.operator!);
    const alertId = await openAlert(t, orgId, { sourceId: 'csrf-gw' });
    const noHeader = await as(operator, 'POST', `/orgs/${orgId}/alerts/${alertId}/acknowledge`, undefined, false);
    expect(noHeader.statusCode).toBe(403);
    expect(noHeader.json().error.code).toBe('forbidden');
    const wrong = await t.app.inject({
      method: 'POST',
      url: `/api/admin/v1/orgs/${orgId}/alerts/${alertId}/acknowledge`,
      headers: { cookie: operator.cookie, 'x-csrf-token': 'x'.repeat(64) },
    });
    expect(wrong.statusCode).toBe(403);
    const alert = await t.admin('GET', `/orgs/${orgId}/alerts/${alertId}`);
    expect(alert.json().acknowledged).toBe(false);
    expect((await as(operator, 'GET', `/orgs/${orgId}/alerts/${alertId}`, undefined, false)).statusCode).toBe(200);
  });

  it('admin-token sign-in: cookie flags, rotation, CSRF token, sign-out ends the session on the server', async () => {
    const first = await t.app.inject({ method: 'POST', url: '/api/admin/v1/session', payload: { adminToken: TEST_ADMIN_TOKEN } });
    expect(first.statusCode).toBe(201);
    const setCookie = String(first.headers['set-cookie']);
    expect(setCookie).toMatch(/^vigia_session=[0-9A-Za-z]+;/);
    expect(setCookie).toContain('HttpOnly');
    expect(setCookie).toContain('SameSite=Lax');
    expect(setCookie).toContain('Secure'); // the tests' base URL is https
    expect(first.body).not.toContain(TEST_ADMIN_TOKEN);
    const cookie1 = setCookie.split(';')[0]!;
    const csrf1 = first.json().csrfToken as string;
    const who = await t.app.inject({ method: 'GET', url: '/api/admin/v1/session', headers: { cookie: cookie1 } });
    expect(who.json()).toMatchObject({ kind: 'instance-admin', instanceAdmin: true, csrfToken: csrf1 });

    // Signing in again from the same browser gives a new id; the old one no longer works.
    const second = await t.app.inject({ method: 'POST', url: '/api/admin/v1/session', headers: { cookie: cookie1 }, payload: { adminToken: TEST_ADMIN_TOKEN } });
    const cookie2 = String(second.headers['set-cookie']).split(';')[0]!;
    expect(cookie2).not.toBe(cookie1);
    expect((await t.app.inject({ method: 'GET', url: '/api/admin/v1/orgs', headers: { cookie: cookie1 } })).statusCode).toBe(401);
    expect((await t.app.inject({ method: 'GET', url: '/api/admin/v1/orgs', headers: { cookie: cookie2 } })).statusCode).toBe(200);

    const out = await t.app.inject({ method: 'DELETE', url: '/api/admin/v1/session', headers: { cookie: cookie2, 'x-csrf-token': second.json().csrfToken } });
    expect(out.statusCode).toBe(204);
    expect(String(out.headers['set-cookie'])).toContain('Max-Age=0');
    expect((await t.app.inject({ method: 'GET', url: '/api/admin/v1/orgs', headers: { cookie: cookie2 } })).statusCode).toBe(401);
  });

  it('sessions expire when idle and at their absolute limit', async () => {
    const viewer = await signIn(ids.viewer!);
    clock.advance(TIMES.idleMs + 1000);
    expect((await as(viewer, 'GET', '/session')).statusCode).toBe(401);
    const again = await signIn(ids.viewer!);
    for (let i = 0; i < 13; i++) {
      clock.advance(TIMES.idleMs - 60_000);
      const res = await as(again, 'GET', '/session');
      if (i < 12) expect(res.statusCode).toBe(200);
      else expect(res.statusCode).toBe(401);
    }
  });

  it('failed admin-token sign-ins are limited per address', async () => {
    let last = 0;
    for (let i = 0; i < 11; i++) {
      const res = await t.app.inject({ method: 'POST', url: '/api/admin/v1/session', remoteAddress: '10.9.9.9', payload: { adminToken: 'vat_wrong' } });
      last = res.statusCode;
      if (i < 10) expect(res.statusCode).toBe(401);
    }
    expect(last).toBe(429);
    const good = await t.app.inject({ method: 'POST', url: '/api/admin/v1/session', remoteAddress: '10.9.9.9', payload: { adminToken: TEST_ADMIN_TOKEN } });
    expect(good.statusCode).toBe(429);
  });

  it('personal tokens: shown once, no higher than the role, expiry, last use, revocation', async () => {
    const operator = await signIn(ids.operator!);
    const tooHigh = await as(operator, 'POST', `/orgs/${orgId}/tokens`, { name: 'ci', role: 'owner', expiresAt: '2026-07-01T00:00:00Z' });
    expect(tooHigh.statusCode).toBe(400);
    const created = await as(operator, 'POST', `/orgs/${orgId}/tokens`, { name: 'ci', role: 'operator', expiresAt: new Date(clock.now().getTime() + 86_400_000).toISOString() });
    expect(created.statusCode).toBe(201);
    const { token, id } = created.json();
    expect(token).toMatch(/^vpt_/);
    const listed = await as(operator, 'GET', `/orgs/${orgId}/tokens`);
    expect(listed.body).not.toContain(token);
    expect(listed.json()[0].lastUsedAt).toBeNull();

    expect((await bearer(token, 'GET', `/orgs/${orgId}/destinations`)).statusCode).toBe(200);
    expect((await bearer(token, 'GET', `/orgs/${otherOrgId}/destinations`)).statusCode).toBe(403);
    expect((await bearer(token, 'POST', `/orgs/${orgId}/destinations`, { name: 'x' })).statusCode).toBe(403);
    expect((await as(operator, 'GET', `/orgs/${orgId}/tokens`)).json()[0].lastUsedAt).not.toBeNull();
    // A token cannot make tokens.
    expect((await bearer(token, 'POST', `/orgs/${orgId}/tokens`, { name: 'x', role: 'viewer', expiresAt: '2026-07-01T00:00:00Z' })).statusCode).toBe(403);

    expect((await as(operator, 'DELETE', `/orgs/${orgId}/tokens/${id}`)).statusCode).toBe(204);
    expect((await bearer(token, 'GET', `/orgs/${orgId}/destinations`)).statusCode).toBe(401);

    const short = await as(operator, 'POST', `/orgs/${orgId}/tokens`, { name: 'short', role: 'viewer', expiresAt: new Date(clock.now().getTime() + 60_000).toISOString() });
    expect((await bearer(short.json().token, 'GET', `/orgs/${orgId}/alerts`)).statusCode).toBe(200);
    clock.advance(61_000);
    expect((await bearer(short.json().token, 'GET', `/orgs/${orgId}/alerts`)).statusCode).toBe(401);
  });

  it('a revoked membership ends the person’s sessions and tokens at once', async () => {
    const put = await t.admin('PUT', `/orgs/${orgId}/members`, { email: 'leaver@example.test', role: 'operator' });
    const leaver = await signIn(put.json().id);
    const tok = (await as(leaver, 'POST', `/orgs/${orgId}/tokens`, { name: 't', role: 'viewer', expiresAt: new Date(clock.now().getTime() + 86_400_000).toISOString() })).json().token;
    expect((await bearer(tok, 'GET', `/orgs/${orgId}/alerts`)).statusCode).toBe(200);

    const owner = await signIn(ids.owner!);
    expect((await as(owner, 'DELETE', `/orgs/${orgId}/members/${put.json().id}`)).statusCode).toBe(204);
    expect((await as(leaver, 'GET', '/session')).statusCode).toBe(401);
    expect((await bearer(tok, 'GET', `/orgs/${orgId}/alerts`)).statusCode).toBe(401);
  });

  it('the audit log lists every change with who, where and what, and no secret', async () => {
    const owner = await signIn(ids.owner!);
    const key = await as(owner, 'POST', `/orgs/${orgId}/api-keys`, { name: 'reporting', scopes: ['ReadAlerts'] });
    expect(key.statusCode).toBe(201);
    const clearKey = key.json().key as string;
    const audit = await as(owner, 'GET', `/orgs/${orgId}/audit?pageSize=500`);
    expect(audit.statusCode).toBe(200);
    const actions = audit.json().value.map((e: { action: string }) => e.action);
    for (const a of ['orgs.create', 'members.put', 'alerts.acknowledge', 'tokens.create', 'tokens.delete', 'members.delete', 'api-keys.create', 'signals.create']) {
      expect(actions).toContain(a);
    }
    const ack = audit.json().value.find((e: { action: string; actor: { label: string } }) => e.action === 'alerts.acknowledge' && e.actor.label === 'operator@example.test');
    expect(ack).toMatchObject({ actor: { kind: 'person' }, address: '127.0.0.1' });
    const text = audit.body;
    expect(text).not.toContain(clearKey);
    expect(text).not.toContain(TEST_ADMIN_TOKEN);
    expect(text).not.toMatch(/vpt_[0-9A-Za-z]{8}_/);

    const byOwner = await as(owner, 'GET', `/orgs/${orgId}/audit?actor=owner@example.test&action=api-keys.create`);
    expect(byOwner.json().totalCount).toBe(1);
    // Viewers do not read the audit log.
    expect((await as(await signIn(ids.viewer!), 'GET', `/orgs/${orgId}/audit`)).statusCode).toBe(403);
    expect((await as(owner, 'GET', `/orgs/${orgId}/audit?from=nonsense`)).statusCode).toBe(400);
  });

  it('the audit log is append-only except for the 400-day purge', async () => {
    await expect(t.ctx.db.query(`UPDATE audit_log SET action = 'x'`)).rejects.toThrow(/append-only/);
    await expect(t.ctx.db.query('DELETE FROM audit_log')).rejects.toThrow(/append-only/);
    const before = (await t.ctx.db.query<{ n: number }>('SELECT count(*)::int AS n FROM audit_log')).rows[0]!.n;
    expect(await purgeAudit(t.ctx.db, clock.now())).toBe(0);
    expect(await purgeAudit(t.ctx.db, new Date(clock.now().getTime() + 401 * 86_400_000))).toBe(before);
  });
});
