/**
 * Which openings share a message (delivery/grouping.ts), as fan-out writes them: per destination,
 * openings within groupWaitSeconds that share a tenant — or, without one, a root cause — join the
 * first one's group and its due time; another tenant, a later window, a wait of 0 or a webhook
 * destination do not group. E-mail destinations group the same way, except the `info` openings
 * their digest takes.
 */
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { ManualClock } from '../../src/clock.js';
import { recordEvent } from '../../src/alerts/events.js';
import { createTestApp, type TestApp } from '../helpers/context.js';
import { ENGINE } from '../helpers/db.js';
import { waitFor } from '../helpers/wait.js';
import { createOrg } from '../helpers/fixtures.js';
import { emit, insertAlert, snapshotFor } from '../delivery/support.js';

describe('grouped openings at fan-out', () => {
  let t: TestApp;
  let clock: ManualClock;
  beforeAll(async () => {
    clock = new ManualClock('2026-06-15T12:00:00Z');
    t = await createTestApp({ clock, config: { destinationAllowlist: ['127.0.0.1'] } });
  });
  afterAll(() => t.close());

  const TEAMS_URL = 'https://127.0.0.1:9/powerautomate/automations/direct/workflows/0123456789abcdef0123456789abcdef/triggers/manual/paths/invoke?api-version=1&sig=abcdefgh';

  it('groups by tenant, then by root cause, per window and per destination', async () => {
    const org = await createOrg(t);
    const mk = async (body: Record<string, unknown>) => {
      const res = await t.admin('POST', `/orgs/${org.id}/destinations`, body);
      expect(res.statusCode, res.body).toBe(201);
      return res.json().id as string;
    };
    const teams = await mk({ name: 'teams', kind: 'teams', credentials: { webhookUrl: TEAMS_URL } });
    const noWait = await mk({ name: 'teams now', kind: 'teams', credentials: { webhookUrl: TEAMS_URL }, config: { groupWaitSeconds: 0 } });
    const hook = await mk({ name: 'hook', kind: 'webhook', url: 'https://127.0.0.1:9/hook' });
    const alert = async (tenant: string | null, cause: string | null = null) => {
      const id = await insertAlert(t.ctx, org.id);
      await t.ctx.db.query('UPDATE alerts SET tenant_ref = $2, cause_alert_ids = $3 WHERE id = $1', [id, tenant, cause ? [cause] : []]);
      await emit(t.ctx, org.id, 'alert.opened', { alertId: id });
      return id;
    };
    const a1 = await alert('ten_a');
    clock.advance(10_000);
    const a2 = await alert('ten_a');
    const b1 = await alert('ten_b');
    const c1 = await alert(null, a1);
    const c2 = await alert(null, a1);
    const o1 = await alert(null);
    clock.advance(25_000);
    const a3 = await alert('ten_a');
    const { rows } = await t.ctx.db.query<{ id: string; destination_id: string; alert_id: string; group_key: string | null; group_id: string | null; next_attempt_at: Date }>(
      'SELECT id, destination_id, alert_id, group_key, group_id, next_attempt_at FROM deliveries WHERE org_id = $1',
      [org.id],
    );
    const at = (dest: string, alertId: string) => rows.find((r) => r.destination_id === dest && r.alert_id === alertId)!;
    const due = (dest: string, alertId: string) => new Date(at(dest, alertId).next_attempt_at).toISOString();
    expect(at(teams, a1)).toMatchObject({ group_key: 'tenant:ten_a', group_id: at(teams, a1).id });
    expect(at(teams, a2).group_id).toBe(at(teams, a1).id);
    expect(due(teams, a2)).toBe('2026-06-15T12:00:30.000Z');
    expect(at(teams, b1)).toMatchObject({ group_key: 'tenant:ten_b', group_id: at(teams, b1).id });
    expect(due(teams, b1)).toBe('2026-06-15T12:00:40.000Z');
    expect(at(teams, c1).group_key).toBe(`cause:${a1}`);
    expect(at(teams, c2).group_id).toBe(at(teams, c1).id);
    expect(at(teams, o1)).toMatchObject({ group_key: 'org', group_id: at(teams, o1).id });
    // 35 s after a1: its group was due at 30 s, so a3 leads a new one.
    expect(at(teams, a3).group_id).toBe(at(teams, a3).id);
    expect(due(teams, a3)).toBe('2026-06-15T12:01:05.000Z');
    for (const id of [a1, a2, b1, a3]) {
      expect(at(noWait, id)).toMatchObject({ group_key: null, group_id: null });
      expect(at(hook, id)).toMatchObject({ group_key: null, group_id: null });
    }
    expect(due(noWait, a3)).toBe('2026-06-15T12:00:35.000Z');
  });

  it('e-mail destinations group openings too; an info opening at a destination with a digest stays out of groups', async () => {
    const org = await createOrg(t);
    const mk = async (config: Record<string, unknown>) => {
      const res = await t.admin('POST', `/orgs/${org.id}/destinations`, { name: 'mail', kind: 'email', config: { recipients: ['bi@example.com'], ...config } });
      expect(res.statusCode, res.body).toBe(201);
      return res.json().id as string;
    };
    const mail = await mk({});
    const digest = await mk({ digest: 'hourly' });
    const noWait = await mk({ groupWaitSeconds: 0 });
    const alert = async (severity: 'error' | 'info') => {
      const id = await insertAlert(t.ctx, org.id, { severity });
      await t.ctx.db.query("UPDATE alerts SET tenant_ref = 'ten_mail' WHERE id = $1", [id]);
      await emit(t.ctx, org.id, 'alert.opened', { alertId: id, snapshot: { severity } });
      return id;
    };
    const e1 = await alert('error');
    const i1 = await alert('info');
    const e2 = await alert('error');
    const { rows } = await t.ctx.db.query<{ id: string; destination_id: string; alert_id: string; group_id: string | null }>(
      'SELECT id, destination_id, alert_id, group_id FROM deliveries WHERE org_id = $1',
      [org.id],
    );
    const at = (dest: string, alertId: string) => rows.find((r) => r.destination_id === dest && r.alert_id === alertId)!;
    for (const id of [e1, i1, e2]) expect(at(mail, id).group_id).toBe(at(mail, e1).id);
    expect(at(digest, e2).group_id).toBe(at(digest, e1).id);
    expect(at(digest, i1).group_id).toBeNull();
    for (const id of [e1, i1, e2]) expect(at(noWait, id).group_id).toBeNull();
  });

  it('two transactions opening the first incidents of one tenant at once make one group, not two', async () => {
    const org = await createOrg(t);
    const res = await t.admin('POST', `/orgs/${org.id}/destinations`, { name: 'teams', kind: 'teams', credentials: { webhookUrl: TEAMS_URL } });
    expect(res.statusCode, res.body).toBe(201);
    const alert = async () => {
      const id = await insertAlert(t.ctx, org.id);
      await t.ctx.db.query("UPDATE alerts SET tenant_ref = 'ten_race' WHERE id = $1", [id]);
      return id;
    };
    const [a1, a2] = [await alert(), await alert()];
    const open = (q: Parameters<Parameters<typeof t.ctx.db.tx>[0]>[0], alertId: string) => {
      const now = t.ctx.clock.now();
      return recordEvent(q, { orgId: org.id, alertId, event: 'alert.opened', occurredAt: now, snapshot: snapshotFor(t.ctx, alertId), now });
    };
    let release!: () => void;
    const held = new Promise<void>((r) => (release = r));
    let planned!: () => void;
    const firstPlanned = new Promise<void>((r) => (planned = r));
    // The first transaction plans its opening (a new group's leader) and stays open.
    const first = t.ctx.db.tx(async (q) => {
      await open(q, a1);
      planned();
      await held;
    });
    await firstPlanned;
    const second = t.ctx.db.tx((q) => open(q, a2));
    if (ENGINE === 'pg') {
      // PostgreSQL: the second fan-out waits for the group key's lock (PGlite runs one transaction at a time anyway).
      await waitFor(async () => (await t.ctx.db.query("SELECT 1 FROM pg_locks WHERE locktype = 'advisory' AND NOT granted")).rows.length > 0, { what: 'the second fan-out to wait for the key' });
    }
    release();
    await Promise.all([first, second]);
    const { rows } = await t.ctx.db.query<{ alert_id: string; id: string; group_id: string }>(
      'SELECT alert_id, id, group_id FROM deliveries WHERE org_id = $1 ORDER BY created_at, id',
      [org.id],
    );
    const leader = rows.find((r) => r.alert_id === a1)!;
    expect(Object.fromEntries(rows.map((r) => [r.alert_id, r.group_id]))).toEqual({ [a1]: leader.id, [a2]: leader.id });
  });
});
