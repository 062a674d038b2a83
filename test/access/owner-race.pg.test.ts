/**
 * The last owner's write skew, made certain (PostgreSQL: two connections at once). Owner X's
 * demotion of Y is held open in its transaction after its check and its write; Y's demotion
 * of X, sent meanwhile, must wait for it and then see that X is the last owner (409). Without
 * the lock both checks read two owners and the organization is left with none.
 */
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { assertNotLastOwner, putMember } from '../../src/access/people.js';
import { createTestApp, type TestApp } from '../helpers/context.js';
import { createOrg } from '../helpers/fixtures.js';
import { waitFor } from '../helpers/wait.js';

describe('the last owner while another demotion is in flight', () => {
  let t: TestApp;
  beforeAll(async () => {
    t = await createTestApp();
  });
  afterAll(() => t.close());

  it('the second demotion waits for the first and is refused: one owner is left', async () => {
    const orgId = (await createOrg(t)).id;
    await t.admin('PUT', `/orgs/${orgId}/members`, { email: 'x@example.test', role: 'owner' });
    const y = (await t.admin('PUT', `/orgs/${orgId}/members`, { email: 'y@example.test', role: 'owner' })).json().id as string;
    let changed!: () => void;
    let commit!: () => void;
    const isChanged = new Promise<void>((r) => (changed = r));
    const mayCommit = new Promise<void>((r) => (commit = r));
    // X demotes Y, as the PUT route does, and holds its transaction open.
    const first = t.ctx.db.tx(async (q) => {
      await assertNotLastOwner(q, orgId, y);
      await putMember(q, orgId, 'y@example.test', 'operator', t.ctx.clock.now());
      changed();
      await mayCommit;
    });
    await isChanged;
    let done = false;
    const second = t.admin('PUT', `/orgs/${orgId}/members`, { email: 'x@example.test', role: 'operator' }).finally(() => (done = true));
    // Either it waits for the first transaction's lock (fixed) or it has already answered (the race).
    await waitFor(async () => done || (await t.ctx.db.query('SELECT 1 FROM pg_locks WHERE NOT granted')).rows.length > 0, { what: 'the second demotion to wait or answer' });
    commit();
    await first;
    const res = await second;
    expect(res.statusCode).toBe(409);
    const { rows } = await t.ctx.db.query<{ n: number }>("SELECT count(*)::int AS n FROM memberships WHERE org_id = $1 AND role = 'owner'", [orgId]);
    expect(rows[0]!.n).toBe(1);
  });
});
