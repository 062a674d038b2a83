/**
 * Changing a destination while another change of it is in flight (PostgreSQL: two connections
 * at once; the embedded engine runs one transaction at a time, so the interleaving cannot
 * happen there). The other change is held open in its own transaction; the admin API's
 * request must wait for it and build on what it wrote, never on a read taken before it.
 */
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { createTestApp, type TestApp } from '../helpers/context.js';
import { insertOrg, until } from './support.js';

describe('destination changes under concurrency', () => {
  let t: TestApp;

  beforeAll(async () => {
    t = await createTestApp({ config: { destinationAllowlist: ['127.0.0.1'] } });
  });
  afterAll(async () => {
    await t.close();
  });

  async function webhook(orgId: string): Promise<string> {
    const res = await t.admin('POST', `/orgs/${orgId}/destinations`, { name: 'Hook', kind: 'webhook', url: 'https://127.0.0.1:9/one' });
    expect(res.statusCode, res.body).toBe(201);
    return res.json().id as string;
  }

  /** Runs `change` in a transaction kept open until `request` is waiting for its row lock. */
  async function whileHeldOpen<T>(change: string, params: unknown[], request: () => Promise<T>): Promise<T> {
    let changed!: () => void;
    let commit!: () => void;
    const isChanged = new Promise<void>((r) => (changed = r));
    const mayCommit = new Promise<void>((r) => (commit = r));
    const other = t.ctx.db.tx(async (q) => {
      await q.query(change, params);
      changed();
      await mayCommit;
    });
    await isChanged;
    const pending = request();
    await until(
      async () =>
        (
          await t.ctx.db.query<{ n: number }>(
            `SELECT count(*)::int AS n FROM pg_stat_activity WHERE datname = current_database() AND wait_event_type = 'Lock'`,
          )
        ).rows[0]!.n > 0,
      10_000,
      'the request waiting for the row',
    );
    commit();
    await other;
    return pending;
  }

  it('a PATCH of the name does not write back the url another change just stored', async () => {
    const orgId = await insertOrg(t.ctx);
    const id = await webhook(orgId);
    const res = await whileHeldOpen(`UPDATE destinations SET url = 'https://127.0.0.1:9/two' WHERE id = $1`, [id], () =>
      t.admin('PATCH', `/orgs/${orgId}/destinations/${id}`, { name: 'Renamed' }),
    );
    expect(res.statusCode, res.body).toBe(200);
    expect(res.json()).toMatchObject({ name: 'Renamed', url: 'https://127.0.0.1:9/two' });
    const { rows } = await t.ctx.db.query<{ name: string; url: string }>('SELECT name, url FROM destinations WHERE id = $1', [id]);
    expect(rows[0]).toEqual({ name: 'Renamed', url: 'https://127.0.0.1:9/two' });
  });

  it('rotating the secret of a destination deleted meanwhile answers 404 and returns no secret', async () => {
    const orgId = await insertOrg(t.ctx);
    const id = await webhook(orgId);
    const res = await whileHeldOpen(`UPDATE destinations SET deleted_at = now(), enabled = false WHERE id = $1`, [id], () =>
      t.admin('POST', `/orgs/${orgId}/destinations/${id}/rotate-secret`),
    );
    expect(res.statusCode, res.body).toBe(404);
    expect(res.body).not.toContain('whsec_');
  });
});
