/** API keys and the admin token never appear in logs or in any response after creation. */
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { createTestApp, TEST_ADMIN_TOKEN, type TestApp } from '../helpers/context.js';
import { createApiKey, createOrg } from '../helpers/fixtures.js';

describe('secrets stay secret', () => {
  let t: TestApp;
  beforeAll(async () => {
    t = await createTestApp();
  });
  afterAll(() => t.close());

  it('never logs or re-shows an API key or the admin token', async () => {
    const org = await createOrg(t);
    const created = await t.admin('POST', `/orgs/${org.id}/api-keys`, { name: 'k', scopes: ['ReadAlerts'] });
    const { key, id } = created.json();
    const other = await createApiKey(t, org.id, ['ReadSla']);

    // Every admin read, plus error paths that log, plus uses of the keys on the public API.
    const responses = [
      await t.admin('GET', `/orgs/${org.id}/api-keys`),
      await t.admin('GET', `/orgs/${org.id}`),
      await t.admin('GET', '/orgs'),
      await t.admin('DELETE', `/orgs/${org.id}/api-keys/${id}`),
      await t.admin('GET', `/orgs/${org.id}/api-keys`),
      await t.admin('POST', `/orgs/${org.id}/api-keys`, { name: 'k', scopes: ['Nope'], key }),
      await t.app.inject({ method: 'GET', url: '/api/public/v1/alerts', headers: { 'x-api-key': key } }),
      await t.app.inject({ method: 'GET', url: '/api/public/v1/alerts', headers: { authorization: `ApiKey ${other.key}` } }),
      await t.app.inject({ method: 'GET', url: '/api/admin/v1/orgs', headers: { authorization: `Bearer ${key}` } }),
    ];
    for (const res of responses) {
      expect(res.body).not.toContain(key);
      expect(res.body).not.toContain(other.key);
      expect(res.body).not.toContain(TEST_ADMIN_TOKEN);
      expect(res.body).not.toMatch(/key_?hash/i);
    }
    const logs = t.ctx.logs.text;
    expect(logs).not.toContain(key);
    expect(logs).not.toContain(other.key);
    expect(logs).not.toContain(TEST_ADMIN_TOKEN);
    // The key's random part is not in the database either (only its hash and lookup prefix).
    const { rows } = await t.ctx.db.query('SELECT * FROM api_keys');
    expect(JSON.stringify(rows)).not.toContain(key.split('_')[2]);
  });
});
