/**
 * The alert lifecycle's transitions (docs/alerts.md), table-driven: every (state, trigger) pair through the real admin API,
 * asserting the response, the alert row and the events written to the outbox.
 */
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { ManualClock } from '../../src/clock.js';
import { runEscalationPass } from '../../src/alerts/jobs.js';
import { createTestApp, type TestApp } from '../helpers/context.js';
import { alertEvents, createOrg, openAlert, sendSignals, signal } from '../helpers/fixtures.js';

type State = 'none' | 'open' | 'acknowledged' | 'resolved' | 'escalated';
type Trigger = 'failure' | 'recovery' | 'acknowledge' | 'resolve' | 'escalation-due' | 'escalation-not-due';

interface Row {
  from: State;
  trigger: Trigger;
  /** HTTP status or signal outcome. */
  result: string | number;
  to: { status: string | null; acknowledged?: boolean; failureCount?: number };
  /** Events emitted by this trigger only. */
  events: string[];
}

const TABLE: Row[] = [
  { from: 'none', trigger: 'failure', result: 'opened', to: { status: 'open', acknowledged: false, failureCount: 1 }, events: ['alert.opened'] },
  { from: 'none', trigger: 'recovery', result: 'ignored', to: { status: null }, events: [] },
  { from: 'open', trigger: 'failure', result: 'reoccurred', to: { status: 'open', failureCount: 2 }, events: [] },
  { from: 'open', trigger: 'acknowledge', result: 200, to: { status: 'open', acknowledged: true }, events: ['alert.acknowledged'] },
  { from: 'open', trigger: 'escalation-due', result: 'escalated', to: { status: 'open', acknowledged: false }, events: ['alert.escalated'] },
  { from: 'open', trigger: 'escalation-not-due', result: 'none', to: { status: 'open' }, events: [] },
  { from: 'open', trigger: 'recovery', result: 'recovered', to: { status: 'resolved' }, events: ['alert.recovered'] },
  { from: 'open', trigger: 'resolve', result: 200, to: { status: 'resolved' }, events: ['alert.recovered'] },
  { from: 'acknowledged', trigger: 'failure', result: 'reoccurred', to: { status: 'open', acknowledged: true, failureCount: 2 }, events: [] },
  { from: 'acknowledged', trigger: 'acknowledge', result: 409, to: { status: 'open', acknowledged: true }, events: [] },
  { from: 'acknowledged', trigger: 'escalation-due', result: 'none', to: { status: 'open', acknowledged: true }, events: [] },
  { from: 'acknowledged', trigger: 'recovery', result: 'recovered', to: { status: 'resolved', acknowledged: true }, events: ['alert.recovered'] },
  { from: 'acknowledged', trigger: 'resolve', result: 200, to: { status: 'resolved', acknowledged: true }, events: ['alert.recovered'] },
  { from: 'escalated', trigger: 'escalation-due', result: 'none', to: { status: 'open' }, events: [] },
  { from: 'escalated', trigger: 'acknowledge', result: 200, to: { status: 'open', acknowledged: true }, events: ['alert.acknowledged'] },
  { from: 'escalated', trigger: 'recovery', result: 'recovered', to: { status: 'resolved' }, events: ['alert.recovered'] },
  { from: 'resolved', trigger: 'recovery', result: 'ignored', to: { status: 'resolved' }, events: [] },
  { from: 'resolved', trigger: 'acknowledge', result: 409, to: { status: 'resolved' }, events: [] },
  { from: 'resolved', trigger: 'resolve', result: 409, to: { status: 'resolved' }, events: [] },
  { from: 'resolved', trigger: 'escalation-due', result: 'none', to: { status: 'resolved' }, events: [] },
  // A resolved incident never reopens: a failure after resolution opens a NEW incident.
  { from: 'resolved', trigger: 'failure', result: 'opened-new', to: { status: 'resolved' }, events: [] },
];

describe('alert lifecycle', () => {
  let t: TestApp;
  let clock: ManualClock;
  beforeAll(async () => {
    clock = new ManualClock('2026-06-15T12:00:00Z');
    t = await createTestApp({ clock });
  });
  afterAll(() => t.close());

  const events = async (alertId: string) => (await alertEvents(t, alertId)).map((e) => e.event);

  async function reach(orgId: string, state: State, sig: ReturnType<typeof signal>): Promise<string | null> {
    if (state === 'none') return null;
    const id = await openAlert(t, orgId, sig);
    if (state === 'acknowledged') expect((await t.admin('POST', `/orgs/${orgId}/alerts/${id}/acknowledge`, {})).statusCode).toBe(200);
    if (state === 'resolved') expect((await t.admin('POST', `/orgs/${orgId}/alerts/${id}/resolve`)).statusCode).toBe(200);
    if (state === 'escalated') {
      clock.advance(31 * 60_000);
      expect((await runEscalationPass(t.ctx)).map((e) => e.alertId)).toContain(id);
    }
    return id;
  }

  it.each(TABLE)('$from + $trigger → $result', async (row) => {
    clock.set('2026-06-15T12:00:00Z');
    const org = await createOrg(t, { escalationMinutes: 30 });
    const sig = signal({ sourceId: `src-${row.from}-${row.trigger}` });
    const id = await reach(org.id, row.from, sig);
    const before = id ? await events(id) : [];
    clock.advance(60_000);

    let alertId = id;
    switch (row.trigger) {
      case 'failure':
      case 'recovery': {
        const [o] = await sendSignals(t, org.id, { ...sig, kind: row.trigger });
        if (row.result === 'opened-new') {
          expect(o!.outcome).toBe('opened');
          expect(o!.alertId).not.toBe(id);
          expect(await events(o!.alertId!)).toEqual(['alert.opened']);
        } else {
          expect(o!.outcome).toBe(row.result);
          alertId = o!.alertId ?? id;
        }
        break;
      }
      case 'acknowledge':
      case 'resolve': {
        const res = await t.admin('POST', `/orgs/${org.id}/alerts/${id}/${row.trigger}`, {});
        expect(res.statusCode).toBe(row.result);
        if (res.statusCode === 409) expect(res.json().error.code).toBe('conflict');
        break;
      }
      case 'escalation-due':
      case 'escalation-not-due': {
        clock.advance(row.trigger === 'escalation-due' ? 30 * 60_000 : 20 * 60_000);
        const emitted = (await runEscalationPass(t.ctx)).filter((e) => e.alertId === id);
        expect(emitted.length > 0 ? 'escalated' : 'none').toBe(row.result);
        break;
      }
    }

    if (row.to.status === null) {
      const { rows } = await t.ctx.db.query('SELECT count(*)::int AS n FROM alerts WHERE org_id = $1', [org.id]);
      expect(rows[0]!.n).toBe(0);
      return;
    }
    const alert = (await t.admin('GET', `/orgs/${org.id}/alerts/${alertId}`)).json();
    expect(alert.status).toBe(row.to.status);
    if (row.to.acknowledged !== undefined) expect(alert.acknowledged).toBe(row.to.acknowledged);
    if (row.to.failureCount !== undefined) expect(alert.failureCount).toBe(row.to.failureCount);
    expect((await events(alertId!)).slice(before.length)).toEqual(row.events);
    expect(alert.events.map((e: { event: string }) => e.event)).toEqual(await events(alertId!));
  });
});

describe('alert details', () => {
  let t: TestApp;
  let clock: ManualClock;
  beforeAll(async () => {
    clock = new ManualClock('2026-06-15T12:00:00Z');
    t = await createTestApp({ clock });
  });
  afterAll(() => t.close());

  it('opens with occurredAt defaulting to the clock, and stores the SPEC 2.2 snapshot in the outbox', async () => {
    const org = await createOrg(t);
    const res = await t.admin('POST', `/orgs/${org.id}/signals`, signal({ workspaceName: 'Sales', capacityName: 'cap-a' }));
    expect(res.statusCode).toBe(200);
    const outcome = res.json();
    expect(outcome).toEqual({ alertId: expect.any(String), outcome: 'opened', silenced: false, correlated: false });
    const alert = (await t.admin('GET', `/orgs/${org.id}/alerts/${outcome.alertId}`)).json();
    expect(alert).toMatchObject({
      id: outcome.alertId, sourceType: 'Gateway', sourceId: 'gw-1', sourceName: 'Gateway One', notificationKind: 'GatewayOffline',
      severity: 'error', status: 'open', acknowledged: false, acknowledgedAt: null, createdAt: '2026-06-15T12:00:00.000Z',
      lastOccurrenceAt: '2026-06-15T12:00:00.000Z', failureCount: 1, resolvedAt: null, workspaceName: 'Sales', capacityName: 'cap-a',
      url: `https://vigia.example.test/alerts/${outcome.alertId}`,
    });
    const { rows } = await t.ctx.db.query('SELECT event, occurred_at, snapshot FROM alert_events WHERE alert_id = $1', [outcome.alertId]);
    expect(rows).toEqual([{
      event: 'alert.opened',
      occurred_at: new Date('2026-06-15T12:00:00Z'),
      snapshot: {
        id: outcome.alertId, title: 'Gateway offline', message: 'The gateway stopped answering', sourceType: 'Gateway', sourceId: 'gw-1',
        workspaceName: 'Sales', capacityName: 'cap-a', severity: 'error', status: 'open', acknowledged: false,
        openedAt: '2026-06-15T12:00:00.000Z', resolvedAt: null, failureCount: 1, url: `https://vigia.example.test/alerts/${outcome.alertId}`,
      },
    }]);
  });

  it('counts reoccurrences and keeps the latest occurrence; severity defaults to error', async () => {
    const org = await createOrg(t);
    const s = signal({ sourceId: 'ds-1', sourceType: 'Dataset', notificationKind: 'RefreshFailed' });
    delete s.severity;
    const outcomes = await sendSignals(t, org.id, [
      { ...s, occurredAt: '2026-06-15T10:00:00Z' },
      { ...s, occurredAt: '2026-06-15T11:00:00+01:00' },
      { ...s, occurredAt: '2026-06-15T10:30:00Z' },
    ]);
    expect(outcomes.map((o) => o.outcome)).toEqual(['opened', 'reoccurred', 'reoccurred']);
    expect(new Set(outcomes.map((o) => o.alertId)).size).toBe(1);
    const alert = (await t.admin('GET', `/orgs/${org.id}/alerts/${outcomes[0]!.alertId}`)).json();
    expect(alert).toMatchObject({ failureCount: 3, createdAt: '2026-06-15T10:00:00.000Z', lastOccurrenceAt: '2026-06-15T10:30:00.000Z', severity: 'error' });
    expect(alert.events.map((e: { event: string }) => e.event)).toEqual(['alert.opened']);
  });

  it('keys incidents by sourceType, sourceId and notificationKind', async () => {
    const org = await createOrg(t);
    const outcomes = await sendSignals(t, org.id, [
      signal(),
      signal({ notificationKind: 'GatewayDegraded' }),
      signal({ sourceId: 'gw-2' }),
      signal({ sourceType: 'Connector' }),
    ]);
    expect(outcomes.map((o) => o.outcome)).toEqual(['opened', 'opened', 'opened', 'opened']);
    const [rec] = await sendSignals(t, org.id, signal({ kind: 'recovery', notificationKind: 'GatewayDegraded' }));
    expect(rec).toMatchObject({ outcome: 'recovered', alertId: outcomes[1]!.alertId });
  });

  it('truncates a message over 1000 characters instead of refusing it', async () => {
    const org = await createOrg(t);
    const [o] = await sendSignals(t, org.id, signal({ message: 'é'.repeat(999) + '😀' + 'x'.repeat(500) }));
    const alert = (await t.admin('GET', `/orgs/${org.id}/alerts/${o!.alertId}`)).json();
    expect(Array.from(alert.message)).toHaveLength(1000);
    expect(alert.message.endsWith('😀')).toBe(true);
    const { rows } = await t.ctx.db.query("SELECT snapshot->>'message' AS m FROM alert_events WHERE alert_id = $1", [o!.alertId]);
    expect(rows[0]!.m).toBe(alert.message);
  });

  it('records who acknowledged, and the resolve time from the clock', async () => {
    const org = await createOrg(t);
    const id = await openAlert(t, org.id);
    clock.advance(5 * 60_000);
    const ack = await t.admin('POST', `/orgs/${org.id}/alerts/${id}/acknowledge`, { by: 'ana' });
    expect(ack.statusCode).toBe(200);
    expect(ack.json()).toMatchObject({ acknowledged: true, acknowledgedBy: 'ana', acknowledgedAt: clock.now().toISOString() });
    clock.advance(5 * 60_000);
    const res = await t.admin('POST', `/orgs/${org.id}/alerts/${id}/resolve`);
    expect(res.statusCode).toBe(200);
    expect(res.json()).toMatchObject({ status: 'resolved', resolvedAt: clock.now().toISOString() });
    const { rows } = await t.ctx.db.query("SELECT event, snapshot->>'status' AS status, (snapshot->>'acknowledged')::boolean AS ack FROM alert_events WHERE alert_id = $1 ORDER BY seq", [id]);
    expect(rows).toEqual([
      { event: 'alert.opened', status: 'open', ack: false },
      { event: 'alert.acknowledged', status: 'open', ack: true },
      { event: 'alert.recovered', status: 'resolved', ack: true },
    ]);
  });

  it('records an acknowledgement made earlier (acknowledgedAt), never in the future nor before the opening', async () => {
    const org = await createOrg(t);
    const id = await openAlert(t, org.id);
    const opened = clock.now().getTime();
    clock.advance(60 * 60_000);
    const ack = (body: unknown) => t.admin('POST', `/orgs/${org.id}/alerts/${id}/acknowledge`, body);
    const future = await ack({ acknowledgedAt: new Date(clock.now().getTime() + 60_000).toISOString() });
    expect(future.statusCode).toBe(400);
    expect(future.body).toMatch(/acknowledgedAt must not be in the future/);
    const early = await ack({ acknowledgedAt: new Date(opened - 60_000).toISOString() });
    expect(early.statusCode).toBe(400);
    expect(early.body).toMatch(/acknowledgedAt must not be before the alert opened/);
    expect((await ack({ acknowledgedAt: 'yesterday' })).statusCode).toBe(400);
    const at = new Date(opened + 12 * 60_000).toISOString();
    const ok = await ack({ by: 'ana', acknowledgedAt: at });
    expect(ok.statusCode).toBe(200);
    expect(ok.json()).toMatchObject({ acknowledged: true, acknowledgedBy: 'ana', acknowledgedAt: at });
    const { rows } = await t.ctx.db.query<{ occurred_at: Date }>(
      "SELECT occurred_at FROM alert_events WHERE alert_id = $1 AND event = 'alert.acknowledged'",
      [id],
    );
    expect(new Date(rows[0]!.occurred_at).toISOString()).toBe(at);
  });

  it('escalates only once, never with escalation disabled, and counts from the opening', async () => {
    const on = await createOrg(t, { escalationMinutes: 10 });
    const off = await createOrg(t, { escalationMinutes: null });
    const a = await openAlert(t, on.id);
    const b = await openAlert(t, off.id);
    clock.advance(9 * 60_000 + 59_000);
    expect((await runEscalationPass(t.ctx)).filter((e) => e.alertId === a)).toHaveLength(0);
    clock.advance(1000);
    const first = await runEscalationPass(t.ctx);
    expect(first.filter((e) => e.alertId === a).map((e) => e.event)).toEqual(['alert.escalated']);
    expect(first.filter((e) => e.alertId === b)).toHaveLength(0);
    clock.advance(24 * 3600_000);
    const later = await runEscalationPass(t.ctx);
    expect(later.filter((e) => e.alertId === a || e.alertId === b)).toHaveLength(0);
    const alert = (await t.admin('GET', `/orgs/${on.id}/alerts/${a}`)).json();
    expect(alert.escalatedAt).not.toBeNull();
  });
});
