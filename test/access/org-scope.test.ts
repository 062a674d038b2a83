/**
 * Removing a person from an organization ends their access to that organization only; a token
 * scoped to one organization touches nothing of another; people who hold a role only through the
 * identity provider (VIGIA_OIDC_ROLE_MAP) are listed with that source, can be removed, make no
 * permanent owners and get no personal token for that role (docs/access.md).
 */
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { ManualClock } from '../../src/clock.js';
import { openSession } from '../../src/access/sessions.js';
import type { Role } from '../../src/access/roles.js';
import { createTestApp, type TestApp } from '../helpers/context.js';
import { createOrg } from '../helpers/fixtures.js';

const clock = new ManualClock('2026-06-15T12:00:00Z');
const TIMES = { idleMs: 3_600_000, maxMs: 43_200_000 };
const inADay = () => new Date(clock.now().getTime() + 86_400_000).toISOString();

interface Caller {
  cookie: string;
  csrf: string;
}

describe('access scoped to one organization', () => {
  let t: TestApp;
  let orgA: string;
  let orgB: string;

  /** A console session opened as the OIDC callback opens it (with the provider's role grants). */
  async function signIn(personId: string, idpRoles: Array<{ orgId: string; role: Role }> = []): Promise<Caller> {
    const s = await openSession(t.ctx.db, { personId, idpRoles, now: clock.now(), times: TIMES });
    return { cookie: `vigia_session=${s.id}`, csrf: s.csrfToken };
  }
  function as(c: Caller, method: 'GET' | 'POST' | 'PUT' | 'DELETE', url: string, payload?: unknown) {
    return t.app.inject({ method, url: `/api/admin/v1${url}`, headers: { cookie: c.cookie, 'x-csrf-token': c.csrf }, ...(payload === undefined ? {} : { payload: payload as never }) });
  }
  function bearer(token: string, method: 'GET' | 'DELETE', url: string) {
    return t.app.inject({ method, url: `/api/admin/v1${url}`, headers: { authorization: `Bearer ${token}` } });
  }
  async function member(orgId: string, email: string, role: Role): Promise<string> {
    const res = await t.admin('PUT', `/orgs/${orgId}/members`, { email, role });
    expect(res.statusCode).toBe(200);
    return res.json().id;
  }

  beforeAll(async () => {
    t = await createTestApp({ clock });
    orgA = (await createOrg(t)).id;
    orgB = (await createOrg(t)).id;
  });
  afterAll(() => t.close());

  it("an owner of A who adds then removes a person of B ends nothing of theirs in B; A's token revokes nothing in B", async () => {
    const ownerA = await signIn(await member(orgA, 'owner-a@example.test', 'owner'));
    const pat = await member(orgB, 'pat@example.test', 'operator');
    const patSession = await signIn(pat);
    const tokenB = (await as(patSession, 'POST', `/orgs/${orgB}/tokens`, { name: 'b', role: 'operator', expiresAt: inADay() })).json();
    expect((await bearer(tokenB.token, 'GET', `/orgs/${orgB}/alerts`)).statusCode).toBe(200);

    // Pat joins A and makes a token there; with it (or in A's name) Pat's token of B cannot be revoked.
    expect((await as(ownerA, 'PUT', `/orgs/${orgA}/members`, { email: 'pat@example.test', role: 'viewer' })).statusCode).toBe(200);
    const tokenA = (await as(patSession, 'POST', `/orgs/${orgA}/tokens`, { name: 'a', role: 'viewer', expiresAt: inADay() })).json();
    expect((await bearer(tokenA.token, 'DELETE', `/orgs/${orgA}/tokens/${tokenB.id}`)).statusCode).toBe(404);
    expect((await as(patSession, 'DELETE', `/orgs/${orgA}/tokens/${tokenB.id}`)).statusCode).toBe(404);
    expect((await bearer(tokenB.token, 'GET', `/orgs/${orgB}/alerts`)).statusCode).toBe(200);

    // The owner of A removes Pat from A: Pat's access to A ends, to B not.
    expect((await as(ownerA, 'DELETE', `/orgs/${orgA}/members/${pat}`)).statusCode).toBe(204);
    expect((await as(patSession, 'GET', `/orgs/${orgA}/alerts`)).statusCode).toBe(403);
    expect((await bearer(tokenA.token, 'GET', `/orgs/${orgA}/alerts`)).statusCode).toBe(401);
    expect((await as(patSession, 'GET', `/orgs/${orgB}/alerts`)).statusCode).toBe(200);
    expect((await bearer(tokenB.token, 'GET', `/orgs/${orgB}/alerts`)).statusCode).toBe(200);

    // The removal is in A's log, and B's log has nothing of A's owner.
    const auditA = (await t.admin('GET', `/orgs/${orgA}/audit?action=members.delete`)).json().value;
    expect(auditA).toEqual([expect.objectContaining({ target: pat, actor: expect.objectContaining({ label: 'owner-a@example.test' }) })]);
    const auditB = (await t.admin('GET', `/orgs/${orgB}/audit?actor=owner-a@example.test`)).json().value;
    expect(auditB).toEqual([]);
  });

  it('an owner only through the identity provider is listed with that source, makes no owners, gets no token for that role, and can be removed', async () => {
    const ownerA = await signIn(await member(orgA, 'owner-a2@example.test', 'owner'));
    const quinn = await member(orgB, 'quinn@example.test', 'viewer');
    const quinnSession = await signIn(quinn, [{ orgId: orgA, role: 'owner' }]);

    const listed = (await as(ownerA, 'GET', `/orgs/${orgA}/members`)).json();
    expect(listed).toContainEqual(expect.objectContaining({ id: quinn, email: 'quinn@example.test', role: 'owner', source: 'identity-provider' }));
    expect(listed).toContainEqual(expect.objectContaining({ email: 'owner-a2@example.test', role: 'owner', source: 'membership' }));

    // No permanent owner from a role the provider may take back; other roles may be given.
    const makeOwner = await as(quinnSession, 'PUT', `/orgs/${orgA}/members`, { email: 'friend@example.test', role: 'owner' });
    expect(makeOwner.statusCode).toBe(403);
    expect(makeOwner.json().error.message).toContain('identity provider');
    expect((await as(quinnSession, 'PUT', `/orgs/${orgA}/members`, { email: 'helper@example.test', role: 'operator' })).statusCode).toBe(200);

    // A personal token would outlive the provider's revocation: refused with the reason, not created to fail later.
    const token = await as(quinnSession, 'POST', `/orgs/${orgA}/tokens`, { name: 'ci', role: 'viewer', expiresAt: inADay() });
    expect(token.statusCode).toBe(403);
    expect(token.json().error.message).toContain('identity provider');
    expect((await as(quinnSession, 'GET', `/orgs/${orgA}/tokens`)).json()).toEqual([]);
    // In B, where Quinn is a member, a token works.
    const tokenB = await as(quinnSession, 'POST', `/orgs/${orgB}/tokens`, { name: 'ci', role: 'viewer', expiresAt: inADay() });
    expect(tokenB.statusCode).toBe(201);
    expect((await bearer(tokenB.json().token, 'GET', `/orgs/${orgB}/alerts`)).statusCode).toBe(200);

    // Removing Quinn from A ends the provider's grant there now; B stays.
    expect((await as(ownerA, 'DELETE', `/orgs/${orgA}/members/${quinn}`)).statusCode).toBe(204);
    expect((await as(quinnSession, 'GET', `/orgs/${orgA}/alerts`)).statusCode).toBe(403);
    expect((await as(quinnSession, 'GET', `/orgs/${orgB}/alerts`)).statusCode).toBe(200);
    expect((await as(ownerA, 'GET', `/orgs/${orgA}/members`)).json().map((m: { id: string }) => m.id)).not.toContain(quinn);
    expect((await as(ownerA, 'DELETE', `/orgs/${orgA}/members/${quinn}`)).statusCode).toBe(404);
  });

  it('a member with a lower membership than the provider grants gets tokens up to the membership only', async () => {
    const rae = await member(orgA, 'rae@example.test', 'viewer');
    const raeSession = await signIn(rae, [{ orgId: orgA, role: 'operator' }]);
    const operatorToken = await as(raeSession, 'POST', `/orgs/${orgA}/tokens`, { name: 'ci', role: 'operator', expiresAt: inADay() });
    expect(operatorToken.statusCode).toBe(403);
    expect(operatorToken.json().error.message).toContain('membership only (yours: viewer)');
    const viewerToken = await as(raeSession, 'POST', `/orgs/${orgA}/tokens`, { name: 'ci', role: 'viewer', expiresAt: inADay() });
    expect(viewerToken.statusCode).toBe(201);
    expect((await bearer(viewerToken.json().token, 'GET', `/orgs/${orgA}/alerts`)).statusCode).toBe(200);
  });
});
