/**
 * Silences and correlation (docs/alerts.md): suppressed incidents emit nothing until
 * released; release happens when the silence ends (DELETE or expiry) or the cause resolves while
 * the incident is still open. Table-driven over the release rules.
 */
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { ManualClock } from '../../src/clock.js';
import { runEscalationPass, runReleasePass } from '../../src/alerts/jobs.js';
import { createTestApp, type TestApp } from '../helpers/context.js';
import { alertEvents, createOrg, sendSignals, signal } from '../helpers/fixtures.js';

describe('silences and correlation', () => {
  let t: TestApp;
  let clock: ManualClock;
  beforeAll(async () => {
    clock = new ManualClock('2026-06-15T12:00:00Z');
    t = await createTestApp({ clock });
  });
  afterAll(() => t.close());

  const events = async (alertId: string) => (await alertEvents(t, alertId)).map((e) => e.event);
  async function silence(orgId: string, matchers: Record<string, string>, minutes = 60, startsInMinutes = 0) {
    const res = await t.admin('POST', `/orgs/${orgId}/silences`, {
      matchers,
      ...(startsInMinutes ? { startsAt: new Date(clock.now().getTime() + startsInMinutes * 60_000).toISOString() } : {}),
      endsAt: new Date(clock.now().getTime() + (startsInMinutes + minutes) * 60_000).toISOString(),
      comment: 'maintenance',
    });
    expect(res.statusCode).toBe(201);
    return res.json();
  }

  it('creates, lists and ends a silence', async () => {
    const org = await createOrg(t);
    const s = await silence(org.id, { sourceType: 'Gateway' });
    expect(s).toEqual({
      id: expect.any(String), matchers: { sourceType: 'Gateway' }, startsAt: '2026-06-15T12:00:00.000Z',
      endsAt: '2026-06-15T13:00:00.000Z', comment: 'maintenance', createdAt: '2026-06-15T12:00:00.000Z', active: true,
    });
    expect((await t.admin('GET', `/orgs/${org.id}/silences`)).json()).toEqual([s]);
    clock.advance(60_000);
    expect((await t.admin('DELETE', `/orgs/${org.id}/silences/${s.id}`)).statusCode).toBe(204);
    const [ended] = (await t.admin('GET', `/orgs/${org.id}/silences`)).json();
    expect(ended).toMatchObject({ endsAt: '2026-06-15T12:01:00.000Z', active: false });
    const other = await createOrg(t);
    expect((await t.admin('DELETE', `/orgs/${other.id}/silences/${s.id}`)).statusCode).toBe(404);
    expect((await t.admin('GET', `/orgs/${other.id}/silences`)).json()).toEqual([]);
  });

  it.each([
    ['sourceType', { sourceType: 'Gateway' }, true],
    ['sourceId', { sourceId: 'gw-1' }, true],
    ['notificationKind', { notificationKind: 'GatewayOffline' }, true],
    ['all three', { sourceType: 'Gateway', sourceId: 'gw-1', notificationKind: 'GatewayOffline' }, true],
    ['no matchers (everything)', {}, true],
    ['another sourceId', { sourceId: 'gw-2' }, false],
    ['another kind', { sourceType: 'Gateway', notificationKind: 'GatewayDegraded' }, false],
  ])('a silence on %s silences the opening: %s', async (_l, matchers, silenced) => {
    const org = await createOrg(t);
    await silence(org.id, matchers);
    const [o] = await sendSignals(t, org.id, signal());
    expect(o).toMatchObject({ outcome: 'opened', silenced, correlated: false });
    expect(await events(o!.alertId!)).toEqual(silenced ? [] : ['alert.opened']);
  });

  it('ignores a silence that has not started or has ended', async () => {
    const org = await createOrg(t);
    await silence(org.id, { sourceId: 'gw-1' }, 60, 30);
    const [o] = await sendSignals(t, org.id, signal());
    expect(o!.silenced).toBe(false);
    const org2 = await createOrg(t);
    await silence(org2.id, { sourceId: 'gw-1' }, 10);
    clock.advance(10 * 60_000);
    const [o2] = await sendSignals(t, org2.id, signal());
    expect(o2!.silenced).toBe(false);
  });

  /** Release rules: what happens to a suppressed incident after each move. */
  const RELEASE: {
    name: string;
    suppress: 'silence' | 'cause' | 'both';
    moves: ('ack' | 'reoccur' | 'end-silence' | 'expire-silence' | 'resolve-cause' | 'recover' | 'escalation-due' | 'release-pass')[];
    events: string[];
  }[] = [
    { name: 'silenced and recovered before the silence ends: nothing ever', suppress: 'silence', moves: ['reoccur', 'ack', 'recover', 'end-silence', 'release-pass'], events: [] },
    { name: 'silence ended by DELETE while open: opened at once, later events delivered', suppress: 'silence', moves: ['end-silence', 'ack', 'recover'], events: ['alert.opened', 'alert.acknowledged', 'alert.recovered'] },
    { name: 'silence expires while open: released by the pass', suppress: 'silence', moves: ['expire-silence', 'release-pass', 'recover'], events: ['alert.opened', 'alert.recovered'] },
    { name: 'silence expires, not released before the pass', suppress: 'silence', moves: ['expire-silence'], events: [] },
    { name: 'silenced: no escalation while held', suppress: 'silence', moves: ['escalation-due'], events: [] },
    { name: 'released late: escalation counts from the release', suppress: 'silence', moves: ['escalation-due', 'end-silence', 'escalation-due'], events: ['alert.opened', 'alert.escalated'] },
    { name: 'acknowledged while silenced, then released: opened only', suppress: 'silence', moves: ['ack', 'end-silence', 'escalation-due', 'recover'], events: ['alert.opened', 'alert.recovered'] },
    { name: 'correlated, cause resolves while open: opened at once', suppress: 'cause', moves: ['resolve-cause', 'ack'], events: ['alert.opened', 'alert.acknowledged'] },
    { name: 'correlated, recovers before the cause: nothing ever', suppress: 'cause', moves: ['recover', 'resolve-cause', 'release-pass'], events: [] },
    { name: 'correlated, no release while the cause is open', suppress: 'cause', moves: ['reoccur', 'release-pass', 'escalation-due'], events: [] },
    { name: 'silenced and correlated: the cause resolving is not enough', suppress: 'both', moves: ['resolve-cause', 'release-pass'], events: [] },
    { name: 'silenced and correlated: released when both are gone', suppress: 'both', moves: ['resolve-cause', 'end-silence'], events: ['alert.opened'] },
    { name: 'silenced and correlated: silence first, then the cause', suppress: 'both', moves: ['end-silence', 'release-pass', 'resolve-cause'], events: ['alert.opened'] },
  ];

  it.each(RELEASE)('$name', async (row) => {
    clock.set('2026-06-15T12:00:00Z');
    const org = await createOrg(t, { escalationMinutes: 30 });
    const cause = signal({ sourceType: 'Capacity', sourceId: 'cap-1', sourceName: 'Capacity 1', notificationKind: 'CapacityOverloaded' });
    const effect = signal({ sourceType: 'Dataset', sourceId: 'ds-1', notificationKind: 'RefreshFailed', causes: row.suppress !== 'silence' ? [{ sourceType: 'Capacity', sourceId: 'cap-1' }] : undefined });
    let causeId: string | undefined;
    if (row.suppress !== 'silence') causeId = (await sendSignals(t, org.id, cause))[0]!.alertId!;
    let silenceId: string | undefined;
    if (row.suppress !== 'cause') silenceId = (await silence(org.id, { sourceType: 'Dataset' }, 60)).id;
    const [o] = await sendSignals(t, org.id, effect);
    expect(o).toMatchObject({ outcome: 'opened', silenced: row.suppress !== 'cause', correlated: row.suppress !== 'silence' });
    const id = o!.alertId!;

    for (const move of row.moves) {
      clock.advance(60_000);
      switch (move) {
        case 'ack':
          expect((await t.admin('POST', `/orgs/${org.id}/alerts/${id}/acknowledge`, {})).statusCode).toBe(200);
          break;
        case 'reoccur':
          expect((await sendSignals(t, org.id, effect))[0]!.outcome).toBe('reoccurred');
          break;
        case 'recover':
          expect((await sendSignals(t, org.id, { ...effect, kind: 'recovery' }))[0]!.outcome).toBe('recovered');
          break;
        case 'end-silence':
          expect((await t.admin('DELETE', `/orgs/${org.id}/silences/${silenceId}`)).statusCode).toBe(204);
          break;
        case 'expire-silence':
          clock.advance(60 * 60_000);
          break;
        case 'resolve-cause':
          expect((await t.admin('POST', `/orgs/${org.id}/alerts/${causeId}/resolve`)).statusCode).toBe(200);
          break;
        case 'escalation-due':
          clock.advance(31 * 60_000);
          await runEscalationPass(t.ctx);
          break;
        case 'release-pass':
          await runReleasePass(t.ctx);
          break;
      }
    }
    expect(await events(id)).toEqual(row.events);
    const alert = (await t.admin('GET', `/orgs/${org.id}/alerts/${id}`)).json();
    // An incident that was never released stays marked suppressed, resolved or not.
    expect(alert.suppressed).toBe(row.events.length === 0);
  });

  it('correlates only to an OPEN cause, of any notification kind, and lists the cause ids', async () => {
    const org = await createOrg(t);
    const [c1] = await sendSignals(t, org.id, signal({ sourceType: 'Capacity', sourceId: 'cap-9', notificationKind: 'Throttled' }));
    const [none] = await sendSignals(t, org.id, signal({ sourceId: 'x1', causes: [{ sourceType: 'Capacity', sourceId: 'cap-404' }] }));
    expect(none!.correlated).toBe(false);
    const [yes] = await sendSignals(t, org.id, signal({ sourceId: 'x2', causes: [{ sourceType: 'Capacity', sourceId: 'cap-9' }, { sourceType: 'Capacity', sourceId: 'cap-404' }] }));
    expect(yes!.correlated).toBe(true);
    const alert = (await t.admin('GET', `/orgs/${org.id}/alerts/${yes!.alertId}`)).json();
    expect(alert).toMatchObject({ correlated: true, suppressed: true, causeAlertIds: [c1!.alertId] });
    // another org's open incident with the same source never correlates
    const other = await createOrg(t);
    const [o] = await sendSignals(t, other.id, signal({ sourceId: 'x3', causes: [{ sourceType: 'Capacity', sourceId: 'cap-9' }] }));
    expect(o!.correlated).toBe(false);
  });

  it('releases by expiry in the background pass exactly once', async () => {
    const org = await createOrg(t);
    await silence(org.id, { sourceId: 'gw-exp' }, 5);
    const [o] = await sendSignals(t, org.id, signal({ sourceId: 'gw-exp' }));
    clock.advance(5 * 60_000);
    const [a, b] = await Promise.all([runReleasePass(t.ctx), runReleasePass(t.ctx)]);
    expect([...a, ...b].filter((e) => e.alertId === o!.alertId).map((e) => e.event)).toEqual(['alert.opened']);
    expect(await runReleasePass(t.ctx)).toEqual([]);
    expect(await events(o!.alertId!)).toEqual(['alert.opened']);
  });
});
