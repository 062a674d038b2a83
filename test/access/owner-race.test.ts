/**
 * The last owner under concurrency: two owners demoting or removing each other at once leave
 * the organization with one owner (one request wins, the other is refused with 409).
 */
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { createTestApp, type TestApp } from '../helpers/context.js';
import { createOrg } from '../helpers/fixtures.js';

describe('the last owner, two requests at once', () => {
  let t: TestApp;
  beforeAll(async () => {
    t = await createTestApp();
  });
  afterAll(() => t.close());

  async function twoOwners(): Promise<{ orgId: string; x: string; y: string }> {
    const orgId = (await createOrg(t)).id;
    const x = (await t.admin('PUT', `/orgs/${orgId}/members`, { email: 'x@example.test', role: 'owner' })).json().id as string;
    const y = (await t.admin('PUT', `/orgs/${orgId}/members`, { email: 'y@example.test', role: 'owner' })).json().id as string;
    return { orgId, x, y };
  }
  const owners = async (orgId: string) =>
    (await t.ctx.db.query<{ n: number }>("SELECT count(*)::int AS n FROM memberships WHERE org_id = $1 AND role = 'owner'", [orgId])).rows[0]!.n;

  it('two owners demoting each other at once: one owner is left, the other request is 409', async () => {
    for (let i = 0; i < 5; i++) {
      const { orgId } = await twoOwners();
      const answers = await Promise.all([
        t.admin('PUT', `/orgs/${orgId}/members`, { email: 'y@example.test', role: 'operator' }),
        t.admin('PUT', `/orgs/${orgId}/members`, { email: 'x@example.test', role: 'viewer' }),
      ]);
      expect(answers.map((a) => a.statusCode).sort()).toEqual([200, 409]);
      expect(await owners(orgId)).toBe(1);
    }
  });

  it('two owners removing each other at once: one owner is left', async () => {
    for (let i = 0; i < 5; i++) {
      const { orgId, x, y } = await twoOwners();
      const answers = await Promise.all([t.admin('DELETE', `/orgs/${orgId}/members/${y}`), t.admin('DELETE', `/orgs/${orgId}/members/${x}`)]);
      expect(answers.map((a) => a.statusCode).sort()).toEqual([204, 409]);
      expect(await owners(orgId)).toBe(1);
    }
  });
});
