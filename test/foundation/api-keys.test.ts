import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { createTestApp, type TestApp } from '../helpers/context.js';
import { ALL_SCOPES, createApiKey, createOrg } from '../helpers/fixtures.js';
import { hashToken, parseApiKey } from '../../src/secrets/tokens.js';

describe('admin API: API keys', () => {
  let t: TestApp;
  beforeAll(async () => {
    t = await createTestApp();
  });
  afterAll(() => t.close());

  it('creates a key shown once, stores only its hash, lists it without the key', async () => {
    const org = await createOrg(t);
    const res = await t.admin('POST', `/orgs/${org.id}/api-keys`, { name: 'BI export', scopes: ['ReadAlerts', 'ReadCosts'], expiresAt: '2026-12-31T00:00:00Z' });
    expect(res.statusCode).toBe(201);
    const body = res.json();
    expect(Object.keys(body).sort()).toEqual(['createdAt', 'expiresAt', 'id', 'key', 'name', 'prefix', 'scopes']);
    expect(body).toMatchObject({ name: 'BI export', scopes: ['ReadAlerts', 'ReadCosts'], expiresAt: '2026-12-31T00:00:00.000Z', createdAt: '2026-06-15T12:00:00.000Z' });
    expect(parseApiKey(body.key)).toEqual({ prefix: body.prefix });
    expect(body.key).toMatch(/^vgk_[0-9A-Za-z]{8}_[0-9A-Za-z]{32,}$/);

    const rows = (await t.ctx.db.query('SELECT * FROM api_keys WHERE id = $1', [body.id])).rows;
    expect(rows[0]!.key_hash).toBe(hashToken(body.key));
    expect(JSON.stringify(rows)).not.toContain(body.key);

    const list = await t.admin('GET', `/orgs/${org.id}/api-keys`);
    expect(list.statusCode).toBe(200);
    expect(list.json()).toEqual([
      { id: body.id, name: 'BI export', scopes: ['ReadAlerts', 'ReadCosts'], expiresAt: '2026-12-31T00:00:00.000Z', prefix: body.prefix, createdAt: body.createdAt, lastUsedAt: null, revokedAt: null },
    ]);
    expect(list.body).not.toContain(body.key);
    expect(t.ctx.logs.text).not.toContain(body.key);
  });

  it('revokes a key (204), idempotently, and lists revokedAt', async () => {
    const org = await createOrg(t);
    const { id } = await createApiKey(t, org.id, ALL_SCOPES);
    const del = await t.admin('DELETE', `/orgs/${org.id}/api-keys/${id}`);
    expect(del.statusCode).toBe(204);
    expect((await t.admin('DELETE', `/orgs/${org.id}/api-keys/${id}`)).statusCode).toBe(204);
    expect((await t.admin('GET', `/orgs/${org.id}/api-keys`)).json()[0].revokedAt).toBe('2026-06-15T12:00:00.000Z');
  });

  it('keeps keys of one org invisible to another (404)', async () => {
    const a = await createOrg(t);
    const b = await createOrg(t);
    const { id } = await createApiKey(t, a.id);
    const del = await t.admin('DELETE', `/orgs/${b.id}/api-keys/${id}`);
    expect(del.statusCode).toBe(404);
    expect(del.json().error.code).toBe('not_found');
    expect((await t.admin('GET', `/orgs/${b.id}/api-keys`)).json()).toEqual([]);
    expect((await t.admin('GET', `/orgs/${a.id}/api-keys`)).json()[0].revokedAt).toBeNull();
    expect((await t.admin('GET', '/orgs/org_missing/api-keys')).statusCode).toBe(404);
    expect((await t.admin('POST', '/orgs/org_missing/api-keys', { name: 'k', scopes: ['ReadAlerts'] })).statusCode).toBe(404);
    expect((await t.admin('DELETE', `/orgs/${a.id}/api-keys/key_missing`)).statusCode).toBe(404);
  });

  it.each([
    ['missing scopes', { name: 'k' }],
    ['empty scopes', { name: 'k', scopes: [] }],
    ['unknown scope', { name: 'k', scopes: ['WriteAlerts'] }],
    ['duplicate scope', { name: 'k', scopes: ['ReadSla', 'ReadSla'] }],
    ['scopes not an array', { name: 'k', scopes: 'ReadSla' }],
    ['unknown field', { name: 'k', scopes: ['ReadSla'], key: 'vgk_mine' }],
    ['expiresAt not a date', { name: 'k', scopes: ['ReadSla'], expiresAt: 'tomorrow' }],
    ['expiresAt without zone', { name: 'k', scopes: ['ReadSla'], expiresAt: '2026-12-01T00:00:00' }],
    ['expiresAt impossible day', { name: 'k', scopes: ['ReadSla'], expiresAt: '2026-02-30T00:00:00Z' }],
    ['expiresAt in the past', { name: 'k', scopes: ['ReadSla'], expiresAt: '2026-06-01T00:00:00Z' }],
    ['name a number', { name: 5, scopes: ['ReadSla'] }],
  ])('refuses %s with 400 and writes nothing', async (_l, body) => {
    const org = await createOrg(t);
    const res = await t.admin('POST', `/orgs/${org.id}/api-keys`, body);
    expect(res.statusCode).toBe(400);
    expect(res.json().error.code).toBe('invalid_request');
    expect((await t.ctx.db.query('SELECT count(*)::int AS n FROM api_keys WHERE org_id = $1', [org.id])).rows[0]!.n).toBe(0);
  });
});
