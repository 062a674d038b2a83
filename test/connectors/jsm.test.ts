/**
 * Jira Service Management Operations (`kind: "jsm"`) end to end: the destination is created and
 * changed through the admin API (credentials sealed, never returned, field errors as 400), the
 * incident is driven through the signals/alerts API and the escalation pass, and the real
 * dispatcher sends through the guarded client to the JSM fake over HTTPS, which validates every
 * request against the Opsgenie alert contract JSM kept. The Test action included.
 */
import { afterAll, afterEach, beforeAll, describe, expect, it } from 'vitest';
import { ManualClock } from '../../src/clock.js';
import { startDispatcher, type Dispatcher } from '../../src/delivery/dispatcher.js';
import { escalateDue } from '../../src/alerts/escalation.js';
import { createTestApp, type TestApp } from '../helpers/context.js';
import { acknowledgeAlert, createOrg, openAlert, resolveAlert } from '../helpers/fixtures.js';
import { until } from '../delivery/support.js';
import { JsmFake } from '../fakes/jsm.js';

const T0 = '2026-06-15T12:00:00.000Z';
const API_KEY = 'jsm-integration-key-7c1d2e3f-4a5b-6c7d-8e9f';
const PREFIX = '/jsm/ops/integration/v2/alerts';

describe('Jira Service Management Operations connector', () => {
  let t: TestApp;
  let clock: ManualClock;
  let worker: Dispatcher | undefined;
  const jsm = new JsmFake(API_KEY);

  beforeAll(async () => {
    clock = new ManualClock(T0);
    t = await createTestApp({ clock, config: { destinationAllowlist: ['127.0.0.1'], deliveryTimeoutMs: 1500 } });
    await jsm.start();
  });
  afterEach(async () => {
    await worker?.stop();
    worker = undefined;
    await t.ctx.db.query(`UPDATE deliveries SET status = 'abandoned' WHERE status IN ('pending', 'waiting')`);
    clock.set(T0);
    expect(jsm.violations).toEqual([]);
    expect(t.ctx.logs.text).not.toContain(API_KEY);
  });
  afterAll(async () => {
    await jsm.stop();
    await t.close();
  });

  async function createJsm(orgId: string, config: Record<string, unknown> = { apiBaseUrl: jsm.url, priority: 'P2' }, apiKey = API_KEY) {
    return t.admin('POST', `/orgs/${orgId}/destinations`, { name: 'JSM Ops', kind: 'jsm', config, credentials: { apiKey } });
  }

  async function jsmDest(orgId: string): Promise<string> {
    const res = await createJsm(orgId);
    expect(res.statusCode, res.body).toBe(201);
    return res.json().id;
  }

  async function rows(destId: string) {
    const { rows } = await t.ctx.db.query<any>('SELECT * FROM deliveries WHERE destination_id = $1 AND NOT test ORDER BY event_seq, created_at', [destId]);
    return rows;
  }

  async function settled(destId: string) {
    return until(async () => {
      const all = await rows(destId);
      return all.length > 0 && all.every((r) => ['succeeded', 'failed', 'abandoned'].includes(r.status) && r.locked_by === null) ? all : undefined;
    }, 30_000, 'deliveries to settle');
  }

  it('is created through the admin API with the key sealed and never shown', async () => {
    const org = await createOrg(t);
    const res = await createJsm(org.id);
    expect(res.statusCode, res.body).toBe(201);
    const created = res.json();
    expect(created).toMatchObject({ kind: 'jsm', config: { apiBaseUrl: jsm.url, priority: 'P2' }, credentialsSet: true, enabled: true });
    expect(res.body).not.toContain(API_KEY);
    const got = await t.admin('GET', `/orgs/${org.id}/destinations/${created.id}`);
    expect(got.statusCode).toBe(200);
    expect(got.body).not.toContain(API_KEY);
    const { rows: stored } = await t.ctx.db.query<{ credentials_sealed: string }>('SELECT credentials_sealed FROM destinations WHERE id = $1', [created.id]);
    expect(stored[0]!.credentials_sealed).not.toContain(API_KEY);
    expect(t.ctx.sealer.openJson(stored[0]!.credentials_sealed)).toEqual({ apiKey: API_KEY });
  });

  it('refuses bad fields with a 400 naming the field', async () => {
    const org = await createOrg(t);
    const cases: Array<[Record<string, unknown>, RegExp]> = [
      [{ name: 'j', kind: 'jsm', config: { apiBaseUrl: jsm.url } }, /credentials\.apiKey/],
      [{ name: 'j', kind: 'jsm', config: { priority: 'P9' }, credentials: { apiKey: 'k' } }, /config\.priority/],
      [{ name: 'j', kind: 'jsm', config: { apiBaseUrl: 'http://api.atlassian.com' }, credentials: { apiKey: 'k' } }, /config\.apiBaseUrl/],
      [{ name: 'j', kind: 'jsm', config: { apiBaseUrl: 'https://10.1.2.3' }, credentials: { apiKey: 'k' } }, /config\.apiBaseUrl/],
      [{ name: 'j', kind: 'jsm', config: { apiBaseUrl: 'https://user:pw@api.atlassian.com' }, credentials: { apiKey: 'k' } }, /config\.apiBaseUrl/],
      [{ name: 'j', kind: 'jsm', url: 'https://api.atlassian.com', credentials: { apiKey: 'k' } }, /url/],
    ];
    for (const [payload, field] of cases) {
      const res = await t.admin('POST', `/orgs/${org.id}/destinations`, payload);
      expect(res.statusCode, res.body).toBe(400);
      expect(res.json().error.code).toBe('invalid_request');
      expect(res.json().error.message).toMatch(field);
    }
    const id = await jsmDest(org.id);
    const patch = await t.admin('PATCH', `/orgs/${org.id}/destinations/${id}`, { config: { apiBaseUrl: 'https://169.254.169.254' } });
    expect(patch.statusCode).toBe(400);
    expect(patch.json().error.message).toMatch(/config\.apiBaseUrl/);
  });

  it('delivers a whole incident by alias under /jsm/ops/integration, later events waiting for the opening', async () => {
    const org = await createOrg(t, { escalationMinutes: 30 });
    const id = await jsmDest(org.id);
    const alertId = await openAlert(t, org.id, { sourceId: 'gw-jsm-1', title: 'Gateway gw-jsm-1 offline' });
    clock.advance(31 * 60_000);
    await t.ctx.db.tx((q) => escalateDue(q, t.ctx.config.baseUrl, clock.now()));
    await acknowledgeAlert(t, org.id, alertId);
    await resolveAlert(t, org.id, alertId);
    expect((await rows(id)).map((r) => [r.event, r.status])).toEqual([
      ['alert.opened', 'pending'],
      ['alert.escalated', 'waiting'],
      ['alert.acknowledged', 'waiting'],
      ['alert.recovered', 'waiting'],
    ]);
    worker = await startDispatcher(t.ctx, { retentionEveryMs: 0 });
    const done = await settled(id);
    expect(done.map((r) => [r.status, r.last_status_code])).toEqual([
      ['succeeded', 202], ['succeeded', 202], ['succeeded', 202], ['succeeded', 202],
    ]);

    const alert = jsm.byAlias(alertId)!;
    expect(alert).toMatchObject({ status: 'closed', acknowledged: true, priority: 'P2', count: 1 });
    expect(alert.message).toBe('Vigia: Gateway gw-jsm-1 offline');
    expect(alert.description).toMatch(/^Alerta do Vigia: Gateway gw-jsm-1 offline\nMensagem: /);
    expect(alert.notes).toHaveLength(3);
    expect(alert.notes[0]).toMatch(/^Alerta ESCALADO pelo Vigia/);
    expect(alert.notes[1]).toMatch(/^Alerta reconhecido no Vigia/);
    expect(alert.notes[2]).toMatch(/^Alerta resolvido no Vigia/);
    const mine = jsm.requests.filter((r) => r.path === PREFIX || r.path.includes(alertId));
    expect(mine.map((r) => `${r.method} ${r.path}?${r.query}`)).toEqual([
      `POST ${PREFIX}?`,
      `POST ${PREFIX}/${alertId}/notes?identifierType=alias`,
      `POST ${PREFIX}/${alertId}/acknowledge?identifierType=alias`,
      `POST ${PREFIX}/${alertId}/close?identifierType=alias`,
    ]);
    expect(mine.every((r) => r.headers.authorization === `GenieKey ${API_KEY}`)).toBe(true);
    // Each accepted request really succeeded in JSM's asynchronous processing.
    expect([...jsm.requestStatus.values()].slice(-4).every((s) => s.isSuccess)).toBe(true);
    // The admin API history shows the same.
    const hist = await t.admin('GET', `/orgs/${org.id}/destinations/${id}/deliveries`);
    expect(hist.json().value.map((d: any) => d.status)).toEqual(['succeeded', 'succeeded', 'succeeded', 'succeeded']);
  });

  it('retries a 429 after Retry-After and a 5xx, then succeeds once (deduplicated by alias)', async () => {
    const org = await createOrg(t);
    const id = await jsmDest(org.id);
    jsm.failNext(1, { kind: 'reply', reply: { status: 429, headers: { 'retry-after': '120' }, body: { message: 'Too many requests', took: 0, requestId: 'r1' } } });
    worker = await startDispatcher(t.ctx, { retentionEveryMs: 0 });
    const alertId = await openAlert(t, org.id, { sourceId: 'gw-jsm-2' });
    let r = await until(async () => {
      const x = (await rows(id))[0];
      return x?.attempts === 1 && x.locked_by === null ? x : undefined;
    }, 30_000, 'first attempt');
    expect(r).toMatchObject({ status: 'pending', last_status_code: 429 });
    expect(jsm.byAlias(alertId)).toBeUndefined();

    jsm.failNext(1, { kind: 'reply', reply: { status: 503, body: { message: 'Service unavailable', took: 0, requestId: 'r2' } } });
    clock.set(new Date(r.next_attempt_at).toISOString());
    worker.poke();
    r = await until(async () => {
      const x = (await rows(id))[0];
      return x?.attempts === 2 && x.locked_by === null ? x : undefined;
    }, 30_000, 'second attempt');
    expect(r).toMatchObject({ status: 'pending', last_status_code: 503 });

    clock.set(new Date(r.next_attempt_at).toISOString());
    worker.poke();
    const [done] = await settled(id);
    expect(done).toMatchObject({ status: 'succeeded', attempts: 3, last_status_code: 202 });
    expect(jsm.alerts.filter((a) => a.alias === alertId)).toHaveLength(1);
  });

  it('abandons on a refused key with a secret-free reason', async () => {
    const org = await createOrg(t);
    const id = await jsmDest(org.id);
    const wrong = 'jsm-wrong-key-000000000000000000';
    expect((await t.admin('PATCH', `/orgs/${org.id}/destinations/${id}`, { credentials: { apiKey: wrong } })).statusCode).toBe(200);
    worker = await startDispatcher(t.ctx, { retentionEveryMs: 0 });
    await openAlert(t, org.id, { sourceId: 'gw-jsm-3' });
    const [row] = await settled(id);
    expect(row).toMatchObject({ status: 'abandoned', attempts: 1, last_status_code: 401 });
    expect(row.last_error).toMatch(/Jira Service Management refused the credentials/);
    const detail = await t.admin('GET', `/orgs/${org.id}/deliveries/${row.id}`);
    expect(detail.body).not.toContain(wrong);
    expect(t.ctx.logs.text).not.toContain(wrong);
  });

  it('the Test action opens and closes a sample alert, or asks for a manual close in Portuguese', async () => {
    const org = await createOrg(t);
    const id = await jsmDest(org.id);
    const ok = await t.admin('POST', `/orgs/${org.id}/destinations/${id}/test`);
    expect(ok.statusCode, ok.body).toBe(200);
    expect(ok.json()).toEqual({
      ok: true,
      manualCloseRequired: false,
      steps: [{ action: 'open', ok: true, statusCode: 202 }, { action: 'close', ok: true, statusCode: 202 }],
      message: 'Teste concluído: o incidente de teste foi aberto e fechado com sucesso.',
    });
    const sample = jsm.alerts.at(-1)!;
    expect(sample).toMatchObject({ status: 'closed' });
    expect(sample.tags).toContain('teste');
    expect(sample.message).toMatch(/^\[TESTE Vigia\] /);

    jsm.failNext(1, { kind: 'reply', reply: { status: 500, body: { message: 'boom', took: 0, requestId: 'r3' } } }, (r) => r.path.endsWith('/close'));
    const bad = await t.admin('POST', `/orgs/${org.id}/destinations/${id}/test`);
    expect(bad.statusCode).toBe(200);
    const body = bad.json();
    expect(body).toMatchObject({ ok: false, manualCloseRequired: true, steps: [{ action: 'open', ok: true }, { action: 'close', ok: false, statusCode: 500 }] });
    expect(body.message).toMatch(/feche manualmente o incidente de teste \(test_/);
    expect(jsm.alerts.at(-1)!.status).toBe('open');
    expect(bad.body).not.toContain(API_KEY);
  });
});
