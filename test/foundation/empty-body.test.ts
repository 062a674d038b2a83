/**
 * A body-less admin action accepts an empty body whatever Content-Type the client sends (shell
 * aliases send `Content-Type: application/json` on every call). Real HTTP on loopback, so the
 * request is exactly what curl would put on the wire: the header and Content-Length: 0.
 */
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { createTestApp, TEST_ADMIN_TOKEN, type TestApp } from '../helpers/context.js';
import { createApiKey, createOrg, openAlert } from '../helpers/fixtures.js';
import { setResolver } from '../../src/delivery/guarded-http.js';

describe('admin API: empty bodies', () => {
  let t: TestApp;
  let base: string;
  beforeAll(async () => {
    t = await createTestApp();
    setResolver(t.ctx, async () => [{ address: '93.184.216.34', family: 4 }]);
    base = `${await t.app.listen({ port: 0, host: '127.0.0.1' })}/api/admin/v1`;
  });
  afterAll(() => t.close());

  const call = (method: string, path: string, contentType: string | null, body = '') =>
    fetch(`${base}${path}`, {
      method,
      headers: { authorization: `Bearer ${TEST_ADMIN_TOKEN}`, ...(contentType ? { 'content-type': contentType } : {}) },
      body: method === 'GET' ? undefined : body,
    });

  for (const contentType of ['application/json', 'application/json; charset=utf-8', 'text/plain', 'application/x-www-form-urlencoded', null]) {
    it(`acknowledge, resolve, rotate-secret and DELETE succeed with an empty body (Content-Type: ${contentType ?? 'none'})`, async () => {
      const org = await createOrg(t);
      const alertId = await openAlert(t, org.id);
      const ack = await call('POST', `/orgs/${org.id}/alerts/${alertId}/acknowledge`, contentType);
      expect(ack.status).toBe(200);
      expect((await ack.json()).acknowledged).toBe(true);
      const resolved = await call('POST', `/orgs/${org.id}/alerts/${alertId}/resolve`, contentType);
      expect(resolved.status).toBe(200);
      expect((await resolved.json()).status).toBe('resolved');

      const dest = await t.admin('POST', `/orgs/${org.id}/destinations`, { name: 'hook', kind: 'webhook', url: 'https://hooks.example.com/x' });
      expect(dest.statusCode).toBe(201);
      const { id, signingSecret } = dest.json();
      const rotated = await call('POST', `/orgs/${org.id}/destinations/${id}/rotate-secret`, contentType);
      expect(rotated.status).toBe(200);
      expect((await rotated.json()).signingSecret).not.toBe(signingSecret);
      const removed = await call('DELETE', `/orgs/${org.id}/destinations/${id}`, contentType);
      expect(removed.status).toBe(204);
      expect((await t.admin('GET', `/orgs/${org.id}/destinations/${id}`)).statusCode).toBe(404);

      const key = await createApiKey(t, org.id);
      const revoked = await call('DELETE', `/orgs/${org.id}/api-keys/${key.id}`, contentType);
      expect(revoked.status).toBe(204);
    });
  }

  it('a route that needs a body still answers 400 in the envelope when the body is empty', async () => {
    const res = await call('POST', '/orgs', 'application/json');
    expect(res.status).toBe(400);
    expect((await res.json()).error.code).toBe('invalid_request');
  });

  it('a non-empty body that is not JSON is 415; broken JSON is 400', async () => {
    const org = await createOrg(t);
    const alertId = await openAlert(t, org.id);
    const text = await call('POST', `/orgs/${org.id}/alerts/${alertId}/acknowledge`, 'text/plain', 'by=me');
    expect(text.status).toBe(415);
    expect((await text.json()).error.code).toBe('unsupported_media_type');
    const broken = await call('POST', `/orgs/${org.id}/alerts/${alertId}/acknowledge`, 'application/json', '{"by":');
    expect(broken.status).toBe(400);
    expect((await broken.json()).error.code).toBe('invalid_request');
    const ok = await call('POST', `/orgs/${org.id}/alerts/${alertId}/acknowledge`, 'application/json', '{"by":"me"}');
    expect(ok.status).toBe(200);
  });
});
