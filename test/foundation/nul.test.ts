/** U+0000 cannot be stored in PostgreSQL text: every owned admin endpoint answers 400, not 500. */
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { createTestApp, type TestApp } from '../helpers/context.js';
import { createOrg, signal } from '../helpers/fixtures.js';

describe('NUL characters in admin input', () => {
  let t: TestApp;
  let orgId: string;
  beforeAll(async () => {
    t = await createTestApp();
    orgId = (await createOrg(t)).id;
  });
  afterAll(() => t.close());

  it.each([
    ['POST', '/orgs', { name: 'a\u0000b' }],
    ['PATCH', '/orgs/ORG', { name: 'a\u0000b' }],
    ['GET', '/orgs/org%00x', undefined],
    ['POST', '/orgs/ORG/api-keys', { name: 'k\u0000', scopes: ['ReadSla'] }],
    ['PUT', '/orgs/ORG/capacities', [{ name: 'c\u0000', sku: 'F2', state: 'Active', region: 'r' }]],
    ['PUT', '/orgs/ORG/workspaces', [{ name: 'w', remoteId: 'r\u0000' }]],
    ['POST', '/orgs/ORG/costs', [{ date: '2026-06-01', capacityName: 'c\u0000', currency: 'BRL', cost: 1, amortizedCost: 1, overageCost: 0 }]],
    ['POST', '/orgs/ORG/signals', signal({ message: 'boom\u0000' })],
    ['POST', '/orgs/ORG/signals', [signal(), signal({ sourceId: 'x\u0000' })]],
    ['POST', '/orgs/ORG/silences', { matchers: {}, endsAt: '2026-06-15T13:00:00Z', comment: '\u0000' }],
    ['POST', '/orgs/ORG/alerts/alr_x/acknowledge', { by: 'a\u0000' }],
  ] as const)('%s %s → 400', async (method, url, body) => {
    const before = (await t.ctx.db.query('SELECT (SELECT count(*) FROM orgs) + (SELECT count(*) FROM alerts) + (SELECT count(*) FROM capacities) AS n')).rows[0]!.n;
    const res = await t.admin(method, url.replace('ORG', orgId), body);
    expect(res.statusCode).toBe(400);
    expect(res.json().error.code).toBe('invalid_request');
    expect(res.json().error.message).toContain('NUL');
    const after = (await t.ctx.db.query('SELECT (SELECT count(*) FROM orgs) + (SELECT count(*) FROM alerts) + (SELECT count(*) FROM capacities) AS n')).rows[0]!.n;
    expect(after).toBe(before);
  });
});
