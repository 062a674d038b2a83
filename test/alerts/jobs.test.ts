/** The background alert jobs as the service runs them (startAlertJobs), driven by a ManualClock. */
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { ManualClock } from '../../src/clock.js';
import { ALERT_JOB_INTERVAL_MS, startAlertJobs } from '../../src/alerts/jobs.js';
import { createTestApp, type TestApp } from '../helpers/context.js';
import { createOrg, openAlert, signal, sendSignals } from '../helpers/fixtures.js';
import { waitFor } from '../helpers/wait.js';

describe('startAlertJobs', () => {
  let t: TestApp;
  let clock: ManualClock;
  beforeAll(async () => {
    clock = new ManualClock('2026-06-15T12:00:00Z');
    t = await createTestApp({ clock });
  });
  afterAll(() => t.close());

  /** The jobs tick every ALERT_JOB_INTERVAL_MS of real time: a few ticks bound the wait. */
  async function waitForEvent(alertId: string, event: string): Promise<void> {
    await waitFor(
      async () => (await t.ctx.db.query('SELECT 1 FROM alert_events WHERE alert_id = $1 AND event = $2', [alertId, event])).rows.length > 0,
      { what: `${event} of ${alertId}`, timeoutMs: 6 * ALERT_JOB_INTERVAL_MS, intervalMs: 250 },
    );
  }

  it('escalates due incidents and releases expired silences on its own, and stops cleanly', async () => {
    const org = await createOrg(t, { escalationMinutes: 10 });
    const due = await openAlert(t, org.id, { sourceId: 'job-esc' });
    const s = await t.admin('POST', `/orgs/${org.id}/silences`, { matchers: { sourceId: 'job-sil' }, endsAt: '2026-06-15T12:05:00Z' });
    expect(s.statusCode).toBe(201);
    const [held] = await sendSignals(t, org.id, signal({ sourceId: 'job-sil' }));
    expect(held!.silenced).toBe(true);
    clock.advance(10 * 60_000);

    const jobs = await startAlertJobs(t.ctx);
    try {
      await Promise.all([waitForEvent(due, 'alert.escalated'), waitForEvent(held!.alertId!, 'alert.opened')]);
    } finally {
      await jobs.stop();
    }
    const { rows } = await t.ctx.db.query<{ alert_id: string; event: string }>(
      'SELECT alert_id, event FROM alert_events WHERE org_id = $1 ORDER BY seq',
      [org.id],
    );
    expect(rows.filter((r) => r.alert_id === due).map((r) => r.event)).toEqual(['alert.opened', 'alert.escalated']);
    // Released at the pass, then escalated on a later pass only once 10 minutes after the release.
    expect(rows.filter((r) => r.alert_id === held!.alertId).map((r) => r.event)).toEqual(['alert.opened']);
  }, 60_000);
});
