/**
 * The inbound door under hostile or unlucky input (issue 35, item 2): malformed paths and fields,
 * replays with a new unsigned header, lone surrogates, floods of failed authentications from the
 * tools' shared addresses, control characters in display names, a disabled destination, the work
 * a bad signature costs, and events held back by an outage of Vigia. Incidents are first
 * delivered to the vendor fakes by the real dispatcher, so matching uses stored references.
 */
import { createHmac } from 'node:crypto';
import type { LightMyRequestResponse } from 'fastify';
import { Redis } from 'ioredis';
import { afterAll, afterEach, beforeAll, describe, expect, it } from 'vitest';
import { ManualClock } from '../../src/clock.js';
import { randomBase62 } from '../../src/ids.js';
import { startDispatcher } from '../../src/delivery/dispatcher.js';
import { authenticate } from '../../src/inbound/verify.js';
import { createTestApp, type TestApp } from '../helpers/context.js';
import { createApiKey, createOrg, openAlert } from '../helpers/fixtures.js';
import { until } from '../delivery/support.js';
import { PagerDutyFake } from '../fakes/pagerduty.js';
import { OpsgenieFake } from '../fakes/opsgenie.js';

const T0 = '2026-06-15T12:00:00.000Z';
const ROUTING_KEY = 'HARDENKEY0123456789abcdefABCDEF0';
const GENIE_KEY = 'genie-hardening-key-0123456789';
const PD_SECRET = 'pd-subscription-secret-CCCC3333DDDD4444';
const REDIS_URL = process.env.VIGIA_TEST_REDIS_URL ?? 'redis://127.0.0.1:6379';
const HOUR = 3_600_000;

// Deliveries through the real dispatcher: generous on a loaded machine.
describe('inbound door: hostile and unlucky input', { timeout: 120_000 }, () => {
  let t: TestApp;
  let clock: ManualClock;
  const prefix = `vigia-test:${randomBase62(10)}`;
  const pd = new PagerDutyFake(ROUTING_KEY);
  const og = new OpsgenieFake(GENIE_KEY);

  beforeAll(async () => {
    clock = new ManualClock(T0);
    // Redis holds the rate-limit counters, as in a deployment of several instances.
    t = await createTestApp({ clock, config: { destinationAllowlist: ['127.0.0.1'], deliveryTimeoutMs: 1500, redisUrl: REDIS_URL, rateLimitPrefix: prefix } });
    await Promise.all([pd.start(), og.start()]);
  });
  afterEach(() => {
    clock.set(T0);
    // Never a database error, never a secret in a log line.
    expect(t.ctx.logs.text).not.toMatch(/invalid byte sequence|0x00|unsupported Unicode escape/);
    for (const s of [PD_SECRET, GENIE_KEY]) expect(t.ctx.logs.text).not.toContain(s);
  });
  afterAll(async () => {
    const redis = new Redis(REDIS_URL);
    const keys = await redis.keys(`${prefix}:*`);
    if (keys.length) await redis.del(...keys);
    await redis.quit();
    await Promise.all([pd.stop(), og.stop()]);
    await t.close();
  });

  const post = (destinationId: string, body: string, headers: Record<string, string>, remoteAddress = '203.0.113.7'): Promise<LightMyRequestResponse> =>
    t.app.inject({ method: 'POST', url: `/api/inbound/v1/destinations/${destinationId}`, payload: body, headers: { 'content-type': 'application/json', ...headers }, remoteAddress });
  const sign = (body: string, secret = PD_SECRET) => `v1=${createHmac('sha256', secret).update(body).digest('hex')}`;
  const iso = (offsetMs: number) => new Date(clock.now().getTime() + offsetMs).toISOString();

  async function destination(orgId: string, kind: 'pagerduty' | 'opsgenie'): Promise<string> {
    const res =
      kind === 'pagerduty'
        ? await t.admin('POST', `/orgs/${orgId}/destinations`, { name: kind, kind, config: { region: 'us', apiBaseUrl: pd.url }, credentials: { routingKey: ROUTING_KEY } })
        : await t.admin('POST', `/orgs/${orgId}/destinations`, { name: kind, kind, config: { region: 'us', apiBaseUrl: og.url }, credentials: { apiKey: GENIE_KEY } });
    expect(res.statusCode, res.body).toBe(201);
    return res.json().id;
  }

  /** An organization, a destination of `kind` with its inbound address on, and an alert delivered to it. */
  async function setup(kind: 'pagerduty' | 'opsgenie', sourceId: string): Promise<{ orgId: string; destId: string; alertId: string; secret: string }> {
    const org = await createOrg(t);
    const destId = await destination(org.id, kind);
    const alertId = await openAlert(t, org.id, { sourceId });
    const worker = await startDispatcher(t.ctx);
    try {
      await until(async () => {
        const { rows } = await t.ctx.db.query<{ status: string }>('SELECT status FROM deliveries WHERE destination_id = $1 AND NOT test', [destId]);
        return rows.length > 0 && rows.every((r) => r.status === 'succeeded');
      }, 60_000, 'delivery to end');
    } finally {
      await worker.stop();
    }
    const on = await t.admin('POST', `/orgs/${org.id}/destinations/${destId}/inbound`);
    expect(on.statusCode, on.body).toBe(201);
    if (kind === 'pagerduty') expect((await t.admin('PUT', `/orgs/${org.id}/destinations/${destId}/inbound`, { secret: PD_SECRET })).statusCode).toBe(200);
    return { orgId: org.id, destId, alertId, secret: kind === 'pagerduty' ? PD_SECRET : on.json().secret };
  }

  let seq = 0;
  /** A PagerDuty V3 webhook body; `event` overrides fields of the event. */
  function pdBody(type: string, incidentKey: string, at = iso(-30_000), agent = 'Tenex Engineer', event: Record<string, unknown> = {}): string {
    return JSON.stringify({
      event: {
        id: `01H${String(++seq).padStart(10, '0')}EVT`,
        event_type: type,
        resource_type: 'incident',
        occurred_at: at,
        agent: { id: 'PLH1HKV', type: 'user_reference', summary: agent },
        client: null,
        data: { id: 'Q1ABCDEF', type: 'incident', incident_key: incidentKey, status: 'acknowledged', title: 'Gateway offline' },
        ...event,
      },
    });
  }
  const ogBody = (action: string, alias: string, alertId: string, offsetMs: number, username = 'Ana Lima') =>
    JSON.stringify({ action, alert: { alertId, alias, username, source: 'Vigia', updatedAt: (BigInt(clock.now().getTime() + offsetMs) * 1_000_000n).toString() }, source: { type: 'web' } });

  const alertOf = async (orgId: string, alertId: string) => (await t.admin('GET', `/orgs/${orgId}/alerts/${alertId}`)).json();
  const inboundOf = async (orgId: string, destId: string) => (await t.admin('GET', `/orgs/${orgId}/destinations/${destId}`)).json().inbound;

  it('a NUL in the path is a 400 with the error envelope, before any lookup; NUL in a signed field is refused as the tool expects, never a 500', async () => {
    for (const path of ['%00', 'dst_%00abc', 'a%2Fb', 'dst_%E2%80%AE']) {
      const res = await post(path, '{}', {});
      expect(res.statusCode, path).toBe(400);
      expect(res.json().error.code).toBe('invalid_request');
    }
    const p = await setup('pagerduty', 'gw-nul-pd');
    for (const event of [{ id: 'evt\u0000x' }, { event_type: 'incident.acknowledged\u0000' }]) {
      const body = pdBody('incident.acknowledged', p.alertId, iso(-30_000), 'Tenex Engineer', event);
      const res = await post(p.destId, body, { 'x-pagerduty-signature': sign(body) });
      expect(res.statusCode, res.body).toBe(202); // PagerDuty: 2xx, so it neither retries for 48 h nor disables the subscription
      expect(res.json()).toEqual({ status: 'refused', reason: 'the body holds a NUL character or an unpaired UTF-16 surrogate' });
    }
    expect((await alertOf(p.orgId, p.alertId)).acknowledged).toBe(false);
  });

  it('Opsgenie: a NUL in alertId is a 400 naming it, never a 500', async () => {
    const o = await setup('opsgenie', 'gw-nul-og');
    const res = await post(o.destId, ogBody('Acknowledge', o.alertId, 'og\u0000id', -5_000), { 'x-vigia-token': o.secret });
    expect(res.statusCode).toBe(400); // Opsgenie / JSM show the reason in the integration log
    expect(res.json().error.message).toMatch(/NUL/);
    expect((await alertOf(o.orgId, o.alertId)).acknowledged).toBe(false);
  });

  it('PagerDuty: applied once per signed event.id, whatever X-Webhook-Id says', async () => {
    const p = await setup('pagerduty', 'gw-replay');
    clock.advance(60_000);
    const body = pdBody('incident.acknowledged', p.alertId);
    expect((await post(p.destId, body, { 'x-pagerduty-signature': sign(body), 'x-webhook-id': 'wh-1' })).json()).toEqual({ status: 'applied' });
    // Someone un-acknowledges in Vigia's tool view; then the captured request is replayed with a new header value.
    const unack = pdBody('incident.unacknowledged', p.alertId, iso(-20_000));
    expect((await post(p.destId, unack, { 'x-pagerduty-signature': sign(unack), 'x-webhook-id': 'wh-2' })).json()).toEqual({ status: 'applied' });
    const replay = await post(p.destId, body, { 'x-pagerduty-signature': sign(body), 'x-webhook-id': 'wh-3-forged' });
    expect(replay.json()).toEqual({ status: 'ignored', reason: 'event already received' });
    expect((await alertOf(p.orgId, p.alertId)).acknowledged).toBe(false);
  });

  it('lone surrogates are refused, so "dup\\ud800" and "dup\\ud801" are never one event id', async () => {
    const p = await setup('pagerduty', 'gw-surrogate');
    for (const id of ['dup\ud800', 'dup\ud801', '\udc00lead']) {
      const body = pdBody('incident.acknowledged', p.alertId, iso(-30_000), 'Tenex Engineer', { id });
      const res = await post(p.destId, body, { 'x-pagerduty-signature': sign(body) });
      expect(res.json()).toEqual({ status: 'refused', reason: 'the body holds a NUL character or an unpaired UTF-16 surrogate' });
    }
    // A well-formed pair (an emoji) is fine.
    const ok = pdBody('incident.acknowledged', p.alertId, iso(-30_000), 'Tenex 🚒', { id: 'evt-\ud83d\ude92' });
    expect((await post(p.destId, ok, { 'x-pagerduty-signature': sign(ok) })).json()).toEqual({ status: 'applied' });
    expect((await alertOf(p.orgId, p.alertId)).acknowledgedBy).toBe('Tenex 🚒');
  });

  it('failed authentications, from other addresses or aimed at the same destination, never lock the tool out', async () => {
    const o = await setup('opsgenie', 'gw-lockout');
    clock.advance(7 * 24 * HOUR); // a minute window of its own
    const note = ogBody('AddNote', o.alertId, 'og-lock', -1_000);
    // Another customer of the same tool posts from its shared egress address, and others from elsewhere.
    for (let i = 0; i < 30; i++) expect((await post(o.destId, note, { 'x-vigia-token': `wrong-${i}` }, '198.51.100.10')).statusCode).toBeGreaterThanOrEqual(401);
    for (let i = 0; i < 30; i++) await post(o.destId, note, { 'x-vigia-token': `wrong-${i}` }, `192.0.2.${i + 1}`);
    expect((await post(o.destId, note, { 'x-vigia-token': 'wrong-again' }, '198.51.100.10')).statusCode).toBe(429);
    // The tool's own event from that same address is applied.
    const ack = await post(o.destId, ogBody('Acknowledge', o.alertId, 'og-lock', -500), { 'x-vigia-token': o.secret }, '198.51.100.10');
    expect(ack.statusCode, ack.body).toBe(202);
    expect(ack.json()).toEqual({ status: 'applied' });
    // Failures beyond an address's 20 a minute cost no write: 20 + 30 counted.
    await until(async () => (await inboundOf(o.orgId, o.destId)).refused >= 50, 5_000, 'refusals counted');
    expect((await inboundOf(o.orgId, o.destId)).refused).toBe(50);
  });

  it('with Redis, failed inbound calls use a key space of their own: the public API key of that address still works', async () => {
    const o = await setup('opsgenie', 'gw-keyspace');
    const { key } = await createApiKey(t, o.orgId, ['ReadAlerts']);
    clock.advance(14 * 24 * HOUR);
    for (let i = 0; i < 12; i++) expect((await post(o.destId, '{}', { 'x-vigia-token': `nope-${i}` }, '127.0.0.1')).statusCode).toBe(401);
    const res = await t.app.inject({ method: 'GET', url: '/api/public/v1/alerts', headers: { 'x-api-key': key }, remoteAddress: '127.0.0.1' });
    expect(res.statusCode, res.body).toBe(200);
    const redis = new Redis(REDIS_URL);
    try {
      const keys = await redis.keys(`${prefix}:*`);
      expect(keys.some((k) => k.startsWith(`${prefix}:inbound:auth:127.0.0.1:`))).toBe(true);
      expect(keys.filter((k) => k.startsWith(`${prefix}:a:`))).toEqual([]);
    } finally {
      await redis.quit();
    }
  });

  it('display names are reduced to printable text of bounded length, in the alert and the audit label', async () => {
    const p = await setup('pagerduty', 'gw-names');
    clock.advance(60_000);
    const body = pdBody('incident.acknowledged', p.alertId, iso(-30_000), `Eve\u202Egnp.exe\u0007\n{"level":60,"msg":"root"}${'x'.repeat(300)}`);
    expect((await post(p.destId, body, { 'x-pagerduty-signature': sign(body) })).json()).toEqual({ status: 'applied' });
    const by: string = (await alertOf(p.orgId, p.alertId)).acknowledgedBy;
    expect(by).not.toMatch(/[\u0000-\u001f\u007f-\u009f\u202a-\u202e\u2066-\u2069]/);
    expect(by.startsWith('Eve gnp.exe {"level":60,"msg":"root"}xxx')).toBe(true);
    expect(Array.from(by).length).toBe(100);
    const { rows } = await t.ctx.db.query<{ actor_label: string }>("SELECT actor_label FROM audit_log WHERE org_id = $1 AND actor_kind = 'integration'", [p.orgId]);
    expect(rows.map((r) => r.actor_label)).toEqual([`PagerDuty: ${by}`]);
    expect(t.ctx.logs.lines.every((l) => !l.includes('"level":60,"msg":"root"'))).toBe(true);
  });

  it('a disabled destination refuses what comes in (202 to PagerDuty, 400 to Opsgenie) and says so in lastRefusal', async () => {
    const p = await setup('pagerduty', 'gw-off-pd');
    const o = await setup('opsgenie', 'gw-off-og');
    for (const x of [p, o]) expect((await t.admin('PATCH', `/orgs/${x.orgId}/destinations/${x.destId}`, { enabled: false })).statusCode).toBe(200);
    const body = pdBody('incident.acknowledged', p.alertId);
    const res = await post(p.destId, body, { 'x-pagerduty-signature': sign(body) });
    expect(res.statusCode).toBe(202);
    expect(res.json()).toEqual({ status: 'refused', reason: 'the destination is disabled: events from the tool are not applied' });
    const og400 = await post(o.destId, ogBody('Acknowledge', o.alertId, 'og-off', -1_000), { 'x-vigia-token': o.secret });
    expect(og400.statusCode).toBe(400);
    for (const x of [p, o]) {
      expect((await alertOf(x.orgId, x.alertId)).acknowledged).toBe(false);
      expect(await inboundOf(x.orgId, x.destId)).toMatchObject({ refused: 1, lastRefusal: 'the destination is disabled: events from the tool are not applied' });
    }
  });

  it('a bad signature costs the same work for a known and an unknown destination, whatever the tool', () => {
    const body = Buffer.from(pdBody('incident.acknowledged', 'alr_x'));
    const headers = { 'x-pagerduty-signature': `v1=${'0'.repeat(64)},v1=${'1'.repeat(64)}`, authorization: 'Bearer nope', 'x-vigia-token': 'nope' };
    const unknown = authenticate(null, [], headers, body);
    const known = [authenticate('pagerduty', [PD_SECRET], headers, body), authenticate('opsgenie', ['a'.repeat(45), 'b'.repeat(45)], headers, body)];
    expect(unknown.ok).toBe(false);
    for (const k of known) expect(k).toEqual(unknown);
    expect(unknown.work).toEqual({ hmacs: 5, comparisons: 20 });
  });

  it('events held back by an outage longer than 10 minutes are applied when newest for their alert, stale ones ignored with a reason', async () => {
    const p = await setup('pagerduty', 'gw-outage');
    clock.advance(30 * HOUR); // Vigia was down; PagerDuty kept retrying
    const ack = pdBody('incident.acknowledged', p.alertId, iso(-29 * HOUR));
    const res = await post(p.destId, ack, { 'x-pagerduty-signature': sign(ack) });
    expect(res.json()).toEqual({ status: 'applied' });
    expect(await alertOf(p.orgId, p.alertId)).toMatchObject({ acknowledged: true, acknowledgedAt: iso(-29 * HOUR) });
    // An older change of the same alert, delivered after it: ignored as stale.
    const older = pdBody('incident.unacknowledged', p.alertId, iso(-29.5 * HOUR));
    const stale = await post(p.destId, older, { 'x-pagerduty-signature': sign(older) });
    expect(stale.json().status).toBe('ignored');
    expect(stale.json().reason).toMatch(/^stale: a newer change from this tool was already applied/);
    // Older than any tool retries: refused (2xx to PagerDuty).
    const ancient = pdBody('incident.resolved', p.alertId, iso(-73 * HOUR));
    expect((await post(p.destId, ancient, { 'x-pagerduty-signature': sign(ancient) })).json()).toMatchObject({ status: 'refused', reason: expect.stringMatching(/more than 72 hours old/) });
    expect((await alertOf(p.orgId, p.alertId)).status).toBe('open');
  });

  /** Runs the dispatcher until every delivery to these destinations has ended. */
  async function deliverAll(destIds: string[]): Promise<void> {
    const worker = await startDispatcher(t.ctx);
    try {
      await until(async () => {
        const { rows } = await t.ctx.db.query<{ status: string }>('SELECT status FROM deliveries WHERE destination_id = ANY($1::text[]) AND NOT test', [destIds]);
        return rows.length > 0 && rows.every((r) => ['succeeded', 'failed', 'abandoned'].includes(r.status));
      }, 60_000, 'deliveries to end');
    } finally {
      await worker.stop();
    }
  }

  /** An organization with PagerDuty and Opsgenie destinations (inbound on), an alert delivered to both. */
  async function bothTools(sourceId: string) {
    const org = await createOrg(t);
    const pdId = await destination(org.id, 'pagerduty');
    const ogId = await destination(org.id, 'opsgenie');
    const alertId = await openAlert(t, org.id, { sourceId });
    await deliverAll([pdId, ogId]);
    await t.admin('POST', `/orgs/${org.id}/destinations/${pdId}/inbound`);
    expect((await t.admin('PUT', `/orgs/${org.id}/destinations/${pdId}/inbound`, { secret: PD_SECRET })).statusCode).toBe(200);
    const ogSecret: string = (await t.admin('POST', `/orgs/${org.id}/destinations/${ogId}/inbound`)).json().secret;
    return { orgId: org.id, pdId, ogId, alertId, ogSecret, genieId: og.byAlias(alertId)!.id };
  }

  it('no echo: a tool\'s webhook reflecting what Vigia wrote to it is ignored (the notification log)', async () => {
    const x = await bothTools('gw-echo');
    clock.advance(60_000);
    // Ana acknowledges in Opsgenie, then undoes it; Vigia passes the acknowledgement on to PagerDuty late.
    expect((await post(x.ogId, ogBody('Acknowledge', x.alertId, x.genieId, -10_000), { 'x-vigia-token': x.ogSecret })).json()).toEqual({ status: 'applied' });
    clock.advance(60_000);
    expect((await post(x.ogId, ogBody('UnAcknowledge', x.alertId, x.genieId, -5_000), { 'x-vigia-token': x.ogSecret })).json()).toEqual({ status: 'applied' });
    clock.advance(60_000);
    await deliverAll([x.pdId]);
    const { rows } = await t.ctx.db.query<{ event: string; status: string }>('SELECT event, status FROM deliveries WHERE destination_id = $1 ORDER BY event_seq', [x.pdId]);
    expect(rows).toEqual([{ event: 'alert.opened', status: 'succeeded' }, { event: 'alert.acknowledged', status: 'succeeded' }]);
    // PagerDuty's webhook for the acknowledgement Vigia wrote (a few seconds later, by the integration).
    const echo = pdBody('incident.acknowledged', x.alertId, iso(3_000), 'Vigia');
    expect((await post(x.pdId, echo, { 'x-pagerduty-signature': sign(echo) })).json()).toEqual({ status: 'ignored', reason: "echo: the tool reflects Vigia's own write of this change" });
    expect(await alertOf(x.orgId, x.alertId)).toMatchObject({ acknowledged: false, acknowledgedBy: null });
    // A person acknowledging in PagerDuty later is applied (each write explains one event).
    clock.advance(10 * 60_000);
    const human = pdBody('incident.acknowledged', x.alertId, iso(-1_000), 'Bruno Souza');
    expect((await post(x.pdId, human, { 'x-pagerduty-signature': sign(human) })).json()).toEqual({ status: 'applied' });
    expect((await alertOf(x.orgId, x.alertId)).acknowledgedBy).toBe('Bruno Souza');
  });

  it('an un-acknowledgement is recorded with its time: an older acknowledgement from another tool, arriving later, changes nothing', async () => {
    const x = await bothTools('gw-converge');
    clock.advance(5 * 60_000);
    expect((await post(x.ogId, ogBody('Acknowledge', x.alertId, x.genieId, -240_000), { 'x-vigia-token': x.ogSecret })).json()).toEqual({ status: 'applied' });
    expect((await post(x.ogId, ogBody('UnAcknowledge', x.alertId, x.genieId, -60_000), { 'x-vigia-token': x.ogSecret })).json()).toEqual({ status: 'applied' });
    // Someone acknowledged in PagerDuty between the two; PagerDuty's webhook arrives only now.
    const late = pdBody('incident.acknowledged', x.alertId, iso(-120_000), 'Bruno Souza');
    const res = await post(x.pdId, late, { 'x-pagerduty-signature': sign(late) });
    expect(res.json().status).toBe('ignored');
    expect(await alertOf(x.orgId, x.alertId)).toMatchObject({ acknowledged: false });
    // A newer acknowledgement is the latest human action: applied.
    const newer = pdBody('incident.acknowledged', x.alertId, iso(-30_000), 'Bruno Souza');
    expect((await post(x.pdId, newer, { 'x-pagerduty-signature': sign(newer) })).json()).toEqual({ status: 'applied' });
  });
});
