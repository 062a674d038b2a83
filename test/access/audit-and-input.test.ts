/**
 * The audit log written in the transaction of the change it records, what it records (validated
 * fields, side effects, the instance-level log), and the admin API's input guards that run for
 * every caller: NUL in the path, invalid UTF-8 in a body, e-mail addresses (docs/access.md).
 */
import type { AddressInfo } from 'node:net';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { ManualClock } from '../../src/clock.js';
import { openSession } from '../../src/access/sessions.js';
import { createPersonalToken } from '../../src/access/personal-tokens.js';
import { isWrite } from '../../src/access/audit-context.js';
import { createTestApp, type TestApp } from '../helpers/context.js';
import { createOrg, openAlert } from '../helpers/fixtures.js';
import { rawRequest } from '../helpers/raw-http.js';

const clock = new ManualClock('2026-06-15T12:00:00Z');
const TIMES = { idleMs: 3_600_000, maxMs: 43_200_000 };

describe('audit in the change’s transaction; input guards for every caller', () => {
  let t: TestApp;
  let orgId: string;
  let port: number;
  const ids: Record<string, string> = {};

  async function session(personId: string) {
    const s = await openSession(t.ctx.db, { personId, now: clock.now(), times: TIMES });
    return { cookie: `vigia_session=${s.id}`, 'x-csrf-token': s.csrfToken };
  }
  async function audit(action: string, org: string | null = orgId) {
    const url = org === null ? `/audit?action=${action}` : `/orgs/${org}/audit?action=${action}`;
    const res = await t.admin('GET', url);
    expect(res.statusCode).toBe(200);
    return res.json().value as Array<{ action: string; target: string | null; actor: { label: string; kind: string }; changes: Record<string, unknown> }>;
  }
  /** Makes every audit insert of `action` fail, as a full disk or a broken constraint would. */
  async function failAuditOf(action: string) {
    await t.ctx.db.exec(`ALTER TABLE audit_log ADD CONSTRAINT refuse_test CHECK (action <> '${action}') NOT VALID`);
  }
  async function restoreAudit() {
    await t.ctx.db.exec('ALTER TABLE audit_log DROP CONSTRAINT refuse_test');
  }

  beforeAll(async () => {
    t = await createTestApp({ clock });
    await t.app.listen({ host: '127.0.0.1', port: 0 });
    port = (t.app.server.address() as AddressInfo).port;
    orgId = (await createOrg(t)).id;
    for (const [who, role] of [['owner', 'owner'], ['operator', 'operator'], ['viewer', 'viewer']] as const) {
      const res = await t.admin('PUT', `/orgs/${orgId}/members`, { email: `${who}@example.test`, role });
      expect(res.statusCode).toBe(200);
      ids[who] = res.json().id;
    }
  });
  afterAll(() => t.close());

  it('a change whose audit insert fails is rolled back (transaction and lone statement alike)', async () => {
    await failAuditOf('members.put');
    try {
      const res = await t.admin('PUT', `/orgs/${orgId}/members`, { email: 'ghost@example.test', role: 'viewer' });
      expect(res.statusCode).toBe(500);
      expect(res.json().error.code).toBeDefined();
    } finally {
      await restoreAudit();
    }
    const members = (await t.admin('GET', `/orgs/${orgId}/members`)).json() as Array<{ email: string }>;
    expect(members.map((m) => m.email)).not.toContain('ghost@example.test');

    // A silence is one INSERT outside any transaction: it gets one, with its audit row.
    await failAuditOf('silences.create');
    try {
      const res = await t.admin('POST', `/orgs/${orgId}/silences`, { matchers: { sourceId: 'gw-x' }, endsAt: '2026-06-16T00:00:00Z' });
      expect(res.statusCode).toBe(500);
    } finally {
      await restoreAudit();
    }
    const { rows } = await t.ctx.db.query<{ n: number }>('SELECT count(*)::int AS n FROM silences WHERE org_id = $1', [orgId]);
    expect(rows[0]!.n).toBe(0);

    // A domain function's own transaction (an API key) carries the entry too.
    await failAuditOf('api-keys.create');
    try {
      const res = await t.admin('POST', `/orgs/${orgId}/api-keys`, { name: 'rolled back', scopes: ['ReadAlerts'] });
      expect(res.statusCode).toBe(500);
    } finally {
      await restoreAudit();
    }
    const keys = await t.ctx.db.query<{ n: number }>('SELECT count(*)::int AS n FROM api_keys WHERE org_id = $1', [orgId]);
    expect(keys.rows[0]!.n).toBe(0);

    // With the audit working, the same calls commit and are recorded with their target.
    const ok = await t.admin('POST', `/orgs/${orgId}/silences`, { matchers: { sourceId: 'gw-x' }, endsAt: '2026-06-16T00:00:00Z' });
    expect(ok.statusCode).toBe(201);
    expect((await audit('silences.create')).map((e) => e.target)).toEqual([ok.json().id]);
  });

  it('tells a write from a read (a locking SELECT is not a change)', () => {
    expect(isWrite('UPDATE alerts SET acknowledged_at = $1 WHERE id = $2')).toBe(true);
    expect(isWrite('WITH x AS (DELETE FROM sessions WHERE person_id = $1 RETURNING 1) SELECT count(*) FROM x')).toBe(true);
    expect(isWrite('INSERT INTO t (a) VALUES (1) ON CONFLICT (a) DO UPDATE SET a = 2')).toBe(true);
    expect(isWrite('SELECT id, updated_at, deleted_at FROM tenants WHERE id = $1 FOR UPDATE')).toBe(false);
    expect(isWrite('SELECT 1 FROM memberships WHERE org_id = $1 FOR NO KEY UPDATE')).toBe(false);
  });

  it('records only validated fields: a body the route has no schema for is not logged', async () => {
    const operator = await session(ids.operator!);
    const alertId = await openAlert(t, orgId, { sourceId: 'audit-ack' });
    const res = await t.app.inject({ method: 'POST', url: `/api/admin/v1/orgs/${orgId}/alerts/${alertId}/acknowledge`, headers: operator, payload: { by: 'ceo@example.test' } });
    expect(res.statusCode).toBe(200);
    const [entry] = (await audit('alerts.acknowledge')).filter((e) => e.target === alertId);
    expect(entry!.actor.label).toBe('operator@example.test');
    expect(JSON.stringify(entry!.changes)).not.toContain('ceo@example.test');
  });

  it('side effects are recorded: removing a member records revoked tokens and ended sessions', async () => {
    const res = await t.admin('PUT', `/orgs/${orgId}/members`, { email: 'leaver@example.test', role: 'operator' });
    const leaver = res.json().id as string;
    const token = await createPersonalToken(t.ctx.db, { personId: leaver, orgId, heldRole: 'operator', name: 'ci', role: 'operator', expiresAt: new Date('2026-07-01T00:00:00Z'), now: clock.now() });
    await session(leaver);
    expect((await t.admin('DELETE', `/orgs/${orgId}/members/${leaver}`)).statusCode).toBe(204);
    const revoked = await audit('tokens.revoke');
    expect(revoked.find((e) => e.target === leaver)?.changes).toMatchObject({ revoked: [token.id], reason: 'membership removed' });
    expect((await audit('sessions.end')).find((e) => e.target === leaver)?.changes).toMatchObject({ sessions: 1 });
    // A lowered role revokes tokens asking for more, also recorded.
    const lowered = (await t.admin('PUT', `/orgs/${orgId}/members`, { email: 'lowered@example.test', role: 'owner' })).json().id as string;
    const big = await createPersonalToken(t.ctx.db, { personId: lowered, orgId, heldRole: 'owner', name: 'big', role: 'owner', expiresAt: new Date('2026-07-01T00:00:00Z'), now: clock.now() });
    await t.admin('PUT', `/orgs/${orgId}/members`, { email: 'lowered@example.test', role: 'viewer' });
    expect((await audit('tokens.revoke')).find((e) => e.target === lowered)?.changes).toMatchObject({ revoked: [big.id], reason: 'role lowered to viewer' });
  });

  it('admin-token sign-ins are in the instance-level log, readable by the instance administrator only', async () => {
    const res = await t.app.inject({ method: 'POST', url: '/api/admin/v1/session', payload: { adminToken: 'vat_test_admin_token_0123456789abcdefghijklmnop' } });
    expect(res.statusCode).toBe(201);
    const entries = await audit('session.create', null);
    expect(entries[0]).toMatchObject({ action: 'session.create', actor: { kind: 'admin_session', label: 'instance admin' }, changes: { adminToken: '[redacted]' } });
    const owner = await session(ids.owner!);
    const refused = await t.app.inject({ method: 'GET', url: '/api/admin/v1/audit', headers: owner });
    expect(refused.statusCode).toBe(403);
  });

  it('a NUL in orgId is 400 for session, admin-token and personal-token callers alike', async () => {
    const viewer = await session(ids.viewer!);
    const pat = await createPersonalToken(t.ctx.db, { personId: ids.viewer!, orgId, heldRole: 'viewer', name: 'nul', role: 'viewer', expiresAt: new Date('2026-07-01T00:00:00Z'), now: clock.now() });
    for (const url of ['/api/admin/v1/orgs/org%00/tokens', '/api/admin/v1/orgs/org%00/members', '/api/admin/v1/orgs/org%00/alerts']) {
      for (const headers of [viewer, { authorization: 'Bearer vat_test_admin_token_0123456789abcdefghijklmnop' }, { authorization: `Bearer ${pat.token}` }]) {
        const res = await t.app.inject({ method: 'GET', url, headers });
        expect(res.statusCode, `${url} ${Object.keys(headers)[0]}`).toBe(400);
        expect(res.json().error).toMatchObject({ code: 'invalid_request' });
        expect(res.json().error.message).toContain('NUL');
      }
    }
  });

  it('invalid UTF-8 in a JSON body is 400 naming the field, on the admin and the public API', async () => {
    const sendTo = (method: string, path: string, body: Buffer) =>
      rawRequest(
        port,
        Buffer.concat([
          Buffer.from(`${method} ${path} HTTP/1.1\r\nhost: 127.0.0.1\r\nauthorization: Bearer vat_test_admin_token_0123456789abcdefghijklmnop\r\ncontent-type: application/json\r\ncontent-length: ${body.length}\r\nconnection: close\r\n\r\n`),
          body,
        ]),
      );
    const send = (path: string, body: Buffer) => sendTo('POST', path, body);
    for (const b of [0xff, 0xfe]) {
      const body = Buffer.concat([
        Buffer.from('[{"sourceType":"Gateway","sourceId":"ds-'),
        Buffer.from([b]),
        Buffer.from('","sourceName":"x","kind":"failure","notificationKind":"GatewayOffline","severity":"error","title":"t","message":"m"}]'),
      ]);
      const res = await send(`/api/admin/v1/orgs/${orgId}/signals`, body);
      expect(res.status).toBe(400);
      expect(JSON.parse(res.body).error).toMatchObject({ code: 'invalid_request' });
      expect(JSON.parse(res.body).error.message).toMatch(/^body\[0\]\.sourceId must be valid UTF-8/);
    }
    const { rows } = await t.ctx.db.query<{ n: number }>(`SELECT count(*)::int AS n FROM alerts WHERE org_id = $1 AND source_id LIKE 'ds-%'`, [orgId]);
    expect(rows[0]!.n).toBe(0);
    // One parser for every JSON body (installed on the root, so the public API shares it).
    const member = await sendTo('PUT', `/api/admin/v1/orgs/${orgId}/members`, Buffer.concat([Buffer.from('{"email":"x'), Buffer.from([0xc3]), Buffer.from('@example.test","role":"viewer"}')]));
    expect(member.status).toBe(400);
    expect(JSON.parse(member.body).error.message).toMatch(/^body\.email must be valid UTF-8/);
  });

  it('member e-mail addresses are validated: markup, bidi controls, over-long parts refused naming the field', async () => {
    for (const email of ['<script>alert(1)</script>@example.test', 'ad\u202Emin@example.test', `${'a'.repeat(310)}@example.test`, `a@${'b'.repeat(250)}.test`, 'no-at-sign', 'a@b..test']) {
      const res = await t.admin('PUT', `/orgs/${orgId}/members`, { email, role: 'viewer' });
      expect(res.statusCode, email).toBe(400);
      expect(res.json().error).toMatchObject({ code: 'invalid_request' });
      expect(res.json().error.message).toMatch(/email/);
    }
    expect((await t.admin('PUT', `/orgs/${orgId}/members`, { email: 'josé.o\'neil+ops@exemplo.com.br', role: 'viewer' })).statusCode).toBe(200);
  });

  it('the OpenAPI document is open to any signed-in caller, not to anonymous ones', async () => {
    const viewer = await session(ids.viewer!);
    expect((await t.app.inject({ method: 'GET', url: '/api/admin/v1/openapi.json', headers: viewer })).statusCode).toBe(200);
    expect((await t.app.inject({ method: 'GET', url: '/api/admin/v1/openapi.json' })).statusCode).toBe(401);
  });

  it('freshness settings are owners’ like every tenant setting', async () => {
    const tenant = await t.ctx.db.query<{ id: string }>('SELECT id FROM tenants WHERE org_id = $1 LIMIT 1', [orgId]);
    const tenantId = tenant.rows[0]?.id ?? 'tnt_none';
    const operator = await session(ids.operator!);
    const put = await t.app.inject({ method: 'PUT', url: `/api/admin/v1/orgs/${orgId}/tenants/${tenantId}/freshness`, headers: operator, payload: { graceMinutes: 10 } });
    expect(put.statusCode).toBe(403);
    const del = await t.app.inject({ method: 'DELETE', url: `/api/admin/v1/orgs/${orgId}/tenants/${tenantId}/freshness`, headers: operator });
    expect(del.statusCode).toBe(403);
  });
});
