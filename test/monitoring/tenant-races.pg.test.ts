/**
 * Concurrent changes of one tenant connection: each PATCH changes only what it names, so two
 * (or four) at once of different fields all survive. Only on PostgreSQL (a *.pg.test.ts file):
 * the embedded engine runs one transaction at a time, so there no race can happen.
 */
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { updateTenant } from '../../src/monitoring/tenants.js';
import { createTestApp, type TestApp } from '../helpers/context.js';
import { insertOrg, tenantBody } from './support.js';

const WS = (i: number) => `aaaaaaaa-0000-0000-0000-${String(i).padStart(12, '0')}`;

describe('concurrent tenant changes', () => {
  let t: TestApp;
  beforeAll(async () => {
    t = await createTestApp();
  });
  afterAll(() => t.close());

  it('two concurrent changes of different fields (workspaces, mirroringLag) both survive, 20 times out of 20', async () => {
    const orgId = await insertOrg(t.ctx);
    const created = (await t.admin('POST', `/orgs/${orgId}/tenants`, tenantBody())).json();
    for (let i = 1; i <= 20; i++) {
      await Promise.all([
        updateTenant(t.ctx, orgId, created.id, { workspaces: [WS(i)] }),
        updateTenant(t.ctx, orgId, created.id, { mirroringLag: { infoSeconds: 600 + i, errorSeconds: 3600 + i } }),
      ]);
      const v = (await t.admin('GET', `/orgs/${orgId}/tenants/${created.id}`)).json();
      expect([i, v.workspaces, v.mirroringLag]).toEqual([i, [WS(i)], { infoSeconds: 600 + i, errorSeconds: 3600 + i }]);
    }
  });

  it('four concurrent PATCHes of different fields through the HTTP API all survive', async () => {
    const orgId = await insertOrg(t.ctx);
    const created = (await t.admin('POST', `/orgs/${orgId}/tenants`, tenantBody())).json();
    for (let i = 1; i <= 5; i++) {
      const scope = `/subscriptions/00000000-0000-0000-0000-0000000000aa/resourceGroups/rg-${i}`;
      const answers = await Promise.all([
        t.admin('PATCH', `/orgs/${orgId}/tenants/${created.id}`, { name: `Contoso ${i}` }),
        t.admin('PATCH', `/orgs/${orgId}/tenants/${created.id}`, { workspaces: [WS(i)] }),
        t.admin('PATCH', `/orgs/${orgId}/tenants/${created.id}`, { mirroringLag: { infoSeconds: 600 + i, errorSeconds: 3600 + i } }),
        t.admin('PATCH', `/orgs/${orgId}/tenants/${created.id}`, { costScopes: [scope] }),
      ]);
      expect(answers.map((a) => a.statusCode)).toEqual([200, 200, 200, 200]);
      const v = (await t.admin('GET', `/orgs/${orgId}/tenants/${created.id}`)).json();
      expect({ name: v.name, workspaces: v.workspaces, mirroringLag: v.mirroringLag, costScopes: v.costScopes }).toEqual({
        name: `Contoso ${i}`,
        workspaces: [WS(i)],
        mirroringLag: { infoSeconds: 600 + i, errorSeconds: 3600 + i },
        costScopes: [scope],
      });
    }
  });
});
