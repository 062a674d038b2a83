/**
 * Connectors end to end: destinations created through the admin API, incidents driven through
 * the signals/alerts API and the escalation pass, the real dispatcher sending through the guarded
 * client to the vendor fakes over HTTPS. Asserts the fakes' final state, zero spec violations,
 * opening-first ordering (`waiting`), abandonment when the opening fails for good, duplicate-safe
 * creation after a timed-out create, and the destinations' Test action.
 */
import { afterAll, afterEach, beforeAll, describe, expect, it } from 'vitest';
import { ManualClock } from '../../src/clock.js';
import { startDispatcher, type Dispatcher } from '../../src/delivery/dispatcher.js';
import { escalateDue } from '../../src/alerts/escalation.js';
import { clearAzureDevOpsStateCache } from '../../src/delivery/connectors/azure-devops.js';
import { createTestApp, type TestApp } from '../helpers/context.js';
import { acknowledgeAlert, createOrg, openAlert, resolveAlert } from '../helpers/fixtures.js';
import { until } from '../delivery/support.js';
import { PagerDutyFake } from '../fakes/pagerduty.js';
import { OpsgenieFake } from '../fakes/opsgenie.js';
import { ServiceNowFake } from '../fakes/servicenow.js';
import { AzureDevOpsFake } from '../fakes/azure-devops.js';

const T0 = '2026-06-15T12:00:00.000Z';
const ROUTING_KEY = 'PIPEL1NEKEY0123456789abcdefABCDE';
const GENIE_KEY = 'genie-pipeline-key-0123456789';
const SN_PASSWORD = 'sn-pipeline-password-42';
const PAT = 'ado-pipeline-pat-0123456789abcdef';
const SECRETS = [ROUTING_KEY, GENIE_KEY, SN_PASSWORD, PAT];

describe('connectors through the delivery pipeline', () => {
  let t: TestApp;
  let clock: ManualClock;
  let worker: Dispatcher | undefined;
  const pd = new PagerDutyFake(ROUTING_KEY);
  const og = new OpsgenieFake(GENIE_KEY);
  const sn = new ServiceNowFake('vigia', SN_PASSWORD);
  const ado = new AzureDevOpsFake('acme', PAT, 'Scrum');
  const fakes = [pd, og, sn, ado];

  beforeAll(async () => {
    clock = new ManualClock(T0);
    t = await createTestApp({ clock, config: { destinationAllowlist: ['127.0.0.1'], deliveryTimeoutMs: 1500 } });
    await Promise.all(fakes.map((f) => f.start()));
  });
  afterEach(async () => {
    await worker?.stop();
    worker = undefined;
    await t.ctx.db.query(`UPDATE deliveries SET status = 'abandoned' WHERE status IN ('pending', 'waiting')`);
    clock.set(T0);
    clearAzureDevOpsStateCache();
    for (const f of fakes) expect(f.violations).toEqual([]);
    // Credentials never reach a log line.
    for (const s of SECRETS) expect(t.ctx.logs.text).not.toContain(s);
  });
  afterAll(async () => {
    await Promise.all(fakes.map((f) => f.stop()));
    await t.close();
  });

  async function destination(orgId: string, kind: string, config: Record<string, unknown>, credentials: Record<string, string>): Promise<string> {
    const res = await t.admin('POST', `/orgs/${orgId}/destinations`, { name: kind, kind, config, credentials });
    expect(res.statusCode, res.body).toBe(201);
    for (const s of SECRETS) expect(res.body).not.toContain(s);
    return res.json().id;
  }

  const pdDest = (orgId: string) => destination(orgId, 'pagerduty', { region: 'eu', apiBaseUrl: pd.url }, { routingKey: ROUTING_KEY });
  const ogDest = (orgId: string) => destination(orgId, 'opsgenie', { region: 'us', apiBaseUrl: og.url, priority: 'P1' }, { apiKey: GENIE_KEY });
  const snDest = (orgId: string) => destination(orgId, 'servicenow', { instanceUrl: sn.url }, { username: 'vigia', password: SN_PASSWORD });
  const adoDest = (orgId: string) => destination(orgId, 'azure-devops', { organizationUrl: ado.organizationUrl, project: 'Dados' }, { personalAccessToken: PAT });

  async function rows(destId: string) {
    const { rows } = await t.ctx.db.query<any>('SELECT * FROM deliveries WHERE destination_id = $1 AND NOT test ORDER BY event_seq, created_at', [destId]);
    return rows;
  }

  async function settled(destIds: string[]) {
    return until(async () => {
      const all = (await Promise.all(destIds.map(rows))).flat();
      return all.length > 0 && all.every((r) => ['succeeded', 'failed', 'abandoned'].includes(r.status) && r.locked_by === null) ? all : undefined;
    }, 30_000, 'deliveries to settle');
  }

  async function escalate() {
    clock.advance(31 * 60_000);
    return t.ctx.db.tx((q) => escalateDue(q, t.ctx.config.baseUrl, clock.now()));
  }

  it('delivers a whole incident to all four tools, later events waiting for the opening (rule 1)', async () => {
    const org = await createOrg(t, { escalationMinutes: 30 });
    const ids = [await pdDest(org.id), await ogDest(org.id), await snDest(org.id), await adoDest(org.id)];
    // All four events exist before any is sent: the later ones must wait, then go out in order.
    const alertId = await openAlert(t, org.id, { sourceId: 'gw-e2e-1', title: 'Gateway gw-e2e-1 offline' });
    expect((await escalate()).map((e) => e.event)).toEqual(['alert.escalated']);
    await acknowledgeAlert(t, org.id, alertId);
    await resolveAlert(t, org.id, alertId);
    for (const id of ids) {
      expect((await rows(id)).map((r) => [r.event, r.status])).toEqual([
        ['alert.opened', 'pending'],
        ['alert.escalated', 'waiting'],
        ['alert.acknowledged', 'waiting'],
        ['alert.recovered', 'waiting'],
      ]);
    }
    worker = await startDispatcher(t.ctx);
    const done = await settled(ids);
    expect(done.every((r) => r.status === 'succeeded')).toBe(true);

    // PagerDuty: trigger, [ESCALADO] trigger, acknowledge, resolve — on the alert id.
    const p = pd.alerts.get(alertId)!;
    expect(p.events.map((e) => e.action)).toEqual(['trigger', 'trigger', 'acknowledge', 'resolve']);
    expect(p.events[1]).toMatchObject({ severity: 'critical' });
    expect(p.events[1]!.summary).toMatch(/^\[ESCALADO\] /);
    expect(p.status).toBe('resolved');
    // Opsgenie: created by alias, escalation note, acknowledged, closed.
    const o = og.byAlias(alertId)!;
    expect(o).toMatchObject({ status: 'closed', acknowledged: true, priority: 'P1', count: 1 });
    expect(og.requests.filter((r) => r.path.includes(alertId)).map((r) => r.path.split('/').pop())).toEqual(['notes', 'acknowledge', 'close']);
    // ServiceNow: one incident, urgency 1, resolved with close code/notes; ref stored.
    const [inc, ...moreInc] = sn.byCorrelation(alertId);
    expect(moreInc).toHaveLength(0);
    expect(inc).toMatchObject({ state: '6', urgency: '1', close_code: 'Solution provided' });
    expect(inc!.work_notes).toHaveLength(2);
    const { rows: refs } = await t.ctx.db.query<any>('SELECT destination_id, ref FROM connector_refs WHERE alert_id = $1', [alertId]);
    const refOf = (id: string) => {
      const r = refs.find((x) => x.destination_id === id)?.ref;
      return typeof r === 'string' ? JSON.parse(r) : r;
    };
    expect(refOf(ids[2]!)).toEqual({ sysId: inc!.sys_id, number: inc!.number });
    // Azure DevOps: one Task, tagged, three comments, moved to Scrum's Done.
    const [w, ...moreW] = ado.byTag(`vigia-alert-${alertId}`);
    expect(moreW).toHaveLength(0);
    expect(w!.tags).toContain('Vigia');
    expect(w!.comments).toHaveLength(3);
    expect(w!.fields['System.State']).toBe('Done');
    expect(refOf(ids[3]!)).toEqual({ workItemId: w!.id });
  });

  it('a failing opening holds the acknowledgement (waiting) until its retry succeeds, then sends it', async () => {
    const org = await createOrg(t);
    const id = await snDest(org.id);
    sn.failNext(1, { kind: 'reply', reply: { status: 503, body: { error: { message: 'busy', detail: '' }, status: 'failure' } } });
    worker = await startDispatcher(t.ctx);
    const alertId = await openAlert(t, org.id, { sourceId: 'gw-e2e-2' });
    await until(async () => (await rows(id))[0]?.attempts === 1 && (await rows(id))[0]?.locked_by === null, 30_000, 'first attempt');
    await acknowledgeAlert(t, org.id, alertId);
    let r = await rows(id);
    expect(r.map((x) => [x.event, x.status])).toEqual([['alert.opened', 'pending'], ['alert.acknowledged', 'waiting']]);
    expect(r[0].last_status_code).toBe(503);
    expect(sn.byCorrelation(alertId)).toHaveLength(0);

    clock.advance(60_000);
    worker.poke();
    r = await settled([id]);
    expect(r.map((x) => [x.event, x.status])).toEqual([['alert.opened', 'succeeded'], ['alert.acknowledged', 'succeeded']]);
    expect(sn.byCorrelation(alertId)[0]!.state).toBe('2');
    const mine = sn.requests.filter((q) => q.method !== 'GET').slice(-3);
    expect(mine.map((q) => `${q.method} ${q.status}`)).toEqual(['POST 503', 'POST 201', 'PATCH 200']);
  });

  it('when the opening fails for good the waiting events are abandoned with a reason saying so', async () => {
    const org = await createOrg(t);
    const id = await adoDest(org.id);
    ado.failNext(1, { kind: 'reply', reply: { status: 400, body: { message: 'TF401326: Invalid field status', typeKey: 'WorkItemFieldInvalidException' } } }, (r) => r.path.endsWith('/workitems/$Task'));
    const alertId = await openAlert(t, org.id, { sourceId: 'gw-e2e-3' });
    await acknowledgeAlert(t, org.id, alertId);
    worker = await startDispatcher(t.ctx);
    const r = await settled([id]);
    expect(r.map((x) => [x.event, x.status])).toEqual([['alert.opened', 'abandoned'], ['alert.acknowledged', 'abandoned']]);
    expect(r[0].last_status_code).toBe(400);
    expect(r[0].last_error).toMatch(/TF401326/);
    expect(r[1].last_error).toMatch(/opening/);
    expect(ado.byTag(`vigia-alert-${alertId}`)).toHaveLength(0);
    // A later event of the same incident is abandoned at once, not held forever.
    await resolveAlert(t, org.id, alertId);
    const after = await rows(id);
    expect(after.at(-1)).toMatchObject({ event: 'alert.recovered', status: 'abandoned' });
  });

  it('a create whose answer timed out is found again on the retry: exactly one record (ServiceNow and Azure DevOps)', async () => {
    const org = await createOrg(t);
    const snId = await snDest(org.id);
    const adoId = await adoDest(org.id);
    sn.failNext(1, { kind: 'delay', ms: 4000, afterHandling: true }, (r) => r.method === 'POST');
    ado.failNext(1, { kind: 'delay', ms: 4000, afterHandling: true }, (r) => r.path.endsWith('/workitems/$Task'));
    worker = await startDispatcher(t.ctx);
    const alertId = await openAlert(t, org.id, { sourceId: 'gw-e2e-4' });
    await until(async () => {
      const all = [...(await rows(snId)), ...(await rows(adoId))];
      return all.every((x) => x.attempts === 1 && x.locked_by === null && x.status === 'pending');
    }, 30_000, 'timed-out first attempts');
    expect(sn.byCorrelation(alertId)).toHaveLength(1); // the create did happen
    expect(ado.byTag(`vigia-alert-${alertId}`)).toHaveLength(1);
    clock.advance(60_000);
    worker.poke();
    const r = await settled([snId, adoId]);
    expect(r.map((x) => x.status)).toEqual(['succeeded', 'succeeded']);
    expect(sn.byCorrelation(alertId)).toHaveLength(1);
    expect(ado.byTag(`vigia-alert-${alertId}`)).toHaveLength(1);
    expect(sn.requests.at(-1)!.method).toBe('GET'); // looked up, not created again
    expect(ado.requests.at(-1)!.path).toMatch(/\/_apis\/wit\/wiql$/);
  });

  it('a destination added mid-incident: later events look the record up, or abandon with a clear reason', async () => {
    const org = await createOrg(t);
    // A first ServiceNow destination sees the opening, so the incident exists at the instance.
    const first = await snDest(org.id);
    worker = await startDispatcher(t.ctx);
    const alertId = await openAlert(t, org.id, { sourceId: 'gw-e2e-5' });
    await settled([first]);
    // Two destinations added after the opening: no opening delivery, no stored reference.
    const late = await snDest(org.id);
    const lateAdo = await adoDest(org.id);
    await acknowledgeAlert(t, org.id, alertId);
    const r = await settled([late, lateAdo]);
    expect(r.map((x) => [x.event, x.status])).toEqual([['alert.acknowledged', 'succeeded'], ['alert.acknowledged', 'abandoned']]);
    // ServiceNow found the incident by correlation_id (and the reference is now stored)…
    expect(sn.byCorrelation(alertId)).toHaveLength(1);
    expect(sn.byCorrelation(alertId)[0]!.state).toBe('2');
    const { rows: refs } = await t.ctx.db.query<any>('SELECT 1 FROM connector_refs WHERE destination_id = $1 AND alert_id = $2', [late, alertId]);
    expect(refs).toHaveLength(1);
    // …Azure DevOps has no work item for it: abandoned, saying why.
    expect(r[1].last_error).toMatch(/No Azure DevOps work item exists for this alert/);
    await settled([first]);
  });

  it('the destination Test action opens and closes a sample incident, or asks for a manual close', async () => {
    const org = await createOrg(t);
    const id = await snDest(org.id);
    const ok = await t.admin('POST', `/orgs/${org.id}/destinations/${id}/test`);
    expect(ok.statusCode, ok.body).toBe(200);
    expect(ok.json()).toMatchObject({ ok: true, manualCloseRequired: false, steps: [{ action: 'open', ok: true }, { action: 'close', ok: true }] });
    expect(sn.incidents.at(-1)!.state).toBe('6');

    sn.failNext(1, { kind: 'reply', reply: { status: 500, body: { error: { message: 'boom', detail: '' }, status: 'failure' } } }, (r) => r.method === 'PATCH');
    const bad = await t.admin('POST', `/orgs/${org.id}/destinations/${id}/test`);
    expect(bad.statusCode).toBe(200);
    const body = bad.json();
    expect(body).toMatchObject({ ok: false, manualCloseRequired: true, steps: [{ action: 'open', ok: true }, { action: 'close', ok: false, statusCode: 500 }] });
    expect(body.message).toMatch(/feche manualmente/);
    expect(sn.incidents.at(-1)!.state).toBe('1');
    for (const s of SECRETS) expect(bad.body).not.toContain(s);
  });
});
