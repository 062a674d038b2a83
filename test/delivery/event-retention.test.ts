/**
 * Alert events are purged with the delivery history (30 days) by the periodic retention pass —
 * but an incident's events go only together, once it was resolved more than 30 days ago and no
 * delivery left in history references them. What a user sees: the alert page (GET …/alerts/{id})
 * keeps every event of an open, recent or still-delivering incident.
 */
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { ManualClock } from '../../src/clock.js';
import { runRetentionPass } from '../../src/delivery/retention.js';
import { purgeAlertEvents } from '../../src/outbox/index.js';
import { createTestApp, type TestApp } from '../helpers/context.js';
import { acknowledgeAlert, createOrg, openAlert, resolveAlert } from '../helpers/fixtures.js';

const T0 = '2026-03-01T08:00:00.000Z';
const HOUR = 3_600_000;
const DAY = 24 * HOUR;

describe('alert event retention', () => {
  let t: TestApp;
  let clock: ManualClock;

  beforeAll(async () => {
    clock = new ManualClock(T0);
    t = await createTestApp({ clock, config: { destinationAllowlist: ['127.0.0.1'] } });
  });
  afterAll(async () => {
    await t?.close();
  });

  /** An organization with one webhook destination, enabled or not (disabled: deliveries are `skipped`, final at once). */
  async function orgWithDestination(enabled: boolean): Promise<string> {
    const org = await createOrg(t);
    const res = await t.admin('POST', `/orgs/${org.id}/destinations`, { name: 'hook', kind: 'webhook', url: 'https://127.0.0.1:9/hook', enabled });
    expect(res.statusCode).toBe(201);
    return org.id;
  }

  async function eventsOnPage(orgId: string, alertId: string): Promise<string[]> {
    const res = await t.admin('GET', `/orgs/${orgId}/alerts/${alertId}`);
    expect(res.statusCode).toBe(200);
    return (res.json().events as { event: string }[]).map((e) => e.event);
  }

  it('purges the events of an incident resolved over 30 days ago, and keeps the others whole', async () => {
    clock.set(T0);
    const quiet = await orgWithDestination(false);
    const busy = await orgWithDestination(true); // no dispatcher runs: its deliveries stay pending
    const resolvedLongAgo = await openAlert(t, quiet, { sourceId: 'old-resolved' });
    const stillOpen = await openAlert(t, quiet, { sourceId: 'old-open' });
    const resolvedLater = await openAlert(t, quiet, { sourceId: 'resolved-day-15' });
    const undelivered = await openAlert(t, busy, { sourceId: 'old-undelivered' });
    await acknowledgeAlert(t, quiet, resolvedLongAgo, 'ana');
    clock.advance(HOUR);
    await resolveAlert(t, quiet, resolvedLongAgo);
    await resolveAlert(t, busy, undelivered);
    clock.advance(15 * DAY);
    await resolveAlert(t, quiet, resolvedLater);
    clock.advance(5 * DAY);
    const recent = await openAlert(t, quiet, { sourceId: 'recent' });
    await resolveAlert(t, quiet, recent);

    clock.set(new Date(Date.parse(T0) + 40 * DAY));
    const purged = await runRetentionPass(t.ctx);
    expect(purged.events).toBe(3);

    expect(await eventsOnPage(quiet, resolvedLongAgo)).toEqual([]);
    expect(await eventsOnPage(quiet, stillOpen)).toEqual(['alert.opened']);
    expect(await eventsOnPage(quiet, resolvedLater)).toEqual(['alert.opened', 'alert.recovered']);
    expect(await eventsOnPage(quiet, recent)).toEqual(['alert.opened', 'alert.recovered']);
    expect(await eventsOnPage(busy, undelivered)).toEqual(['alert.opened', 'alert.recovered']);
    const { rows } = await t.ctx.db.query<{ status: string }>(
      'SELECT d.status FROM deliveries d JOIN alert_events e ON e.id = d.event_id WHERE e.alert_id = $1',
      [undelivered],
    );
    expect(rows.map((r) => r.status)).toEqual(['pending', 'pending']);

    // Once the pending deliveries end and age out, the incident's events go too.
    await t.ctx.db.query(`UPDATE deliveries SET status = 'abandoned', completed_at = created_at WHERE alert_id = $1`, [undelivered]);
    expect((await runRetentionPass(t.ctx)).events).toBe(2);
    expect(await eventsOnPage(busy, undelivered)).toEqual([]);
  });

  it('steps over events still needed, batch after batch', async () => {
    clock.set(T0);
    const org = await orgWithDestination(false);
    const open = await openAlert(t, org, { sourceId: 'batch-open' }); // oldest event: kept, and first in every batch
    const done = [];
    for (let i = 0; i < 3; i += 1) {
      const id = await openAlert(t, org, { sourceId: `batch-${i}` });
      await resolveAlert(t, org, id);
      done.push(id);
    }
    const now = new Date(Date.parse(T0) + 31 * DAY);
    await t.ctx.db.query('DELETE FROM deliveries WHERE org_id = $1', [org]); // history already aged out
    expect(await purgeAlertEvents(t.ctx.db, now, 1)).toBe(6);
    expect(await eventsOnPage(org, open)).toEqual(['alert.opened']);
    for (const id of done) expect(await eventsOnPage(org, id)).toEqual([]);
  });
});
