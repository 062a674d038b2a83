/**
 * End to end through the real dispatcher to a real HTTPS receiver on loopback: bytes on the
 * wire, signing, the retry schedule and classification (ManualClock, so the schedule is exact
 * and nothing waits for real minutes), redelivery, test sends, history and deletion.
 */
import { afterAll, afterEach, beforeAll, describe, expect, it } from 'vitest';
import { ManualClock } from '../../src/clock.js';
import { startDispatcher, type Dispatcher } from '../../src/delivery/dispatcher.js';
import { verifyWebhook } from '../../src/receiver/verify.js';
import { createTestApp, type TestApp } from '../helpers/context.js';
import { startReceiver, type TestReceiver } from '../helpers/receiver.js';
import { emit, insertOrg, until } from './support.js';

const T0 = '2026-06-15T12:00:00.000Z';

describe('webhook delivery end to end', () => {
  let t: TestApp;
  let rx: TestReceiver;
  let clock: ManualClock;
  let worker: Dispatcher | undefined;

  beforeAll(async () => {
    clock = new ManualClock(T0);
    t = await createTestApp({ clock, config: { destinationAllowlist: ['127.0.0.1'], deliveryTimeoutMs: 1500 } });
    rx = await startReceiver();
  });
  afterEach(async () => {
    await worker?.stop();
    worker = undefined;
    // Each test starts with no unfinished work left by the previous one.
    await t.ctx.db.query(`UPDATE deliveries SET status = 'abandoned' WHERE status IN ('pending', 'waiting')`);
    rx.reset();
    clock.set(T0);
  });
  afterAll(async () => {
    await rx.close();
    await t.close();
  });

  async function setup(path = '/hook', extra: Record<string, unknown> = {}) {
    const orgId = await insertOrg(t.ctx);
    const res = await t.admin('POST', `/orgs/${orgId}/destinations`, { name: 'Hook', kind: 'webhook', url: `${rx.origin}${path}`, ...extra });
    expect(res.statusCode).toBe(201);
    const dest = res.json();
    return { orgId, destId: dest.id as string, secret: dest.signingSecret as string };
  }

  async function deliveryRow(destId: string) {
    const { rows } = await t.ctx.db.query('SELECT * FROM deliveries WHERE destination_id = $1 ORDER BY created_at', [destId]);
    return rows;
  }

  async function waitRow(destId: string, pred: (r: any) => boolean, what: string) {
    return until(async () => {
      const rows = await deliveryRow(destId);
      return rows.length > 0 && pred(rows[0]) ? rows[0] : undefined;
    }, 30_000, what);
  }

  it('sends the SPEC body and headers, signed, and records success', async () => {
    const { orgId, destId, secret } = await setup();
    worker = await startDispatcher(t.ctx);
    const ev = await emit(t.ctx, orgId, 'alert.opened');
    const [req] = await rx.waitFor(1);
    const row = await waitRow(destId, (r) => r.status === 'succeeded', 'success');

    expect(req!.method).toBe('POST');
    expect(req!.url).toBe('/hook');
    const h = req!.headers;
    expect(h['content-type']).toBe('application/json');
    expect(h['user-agent']).toBe('Service-Webhook/1.0');
    expect(h['x-service-event']).toBe('alert.opened');
    expect(h['x-service-delivery']).toBe(row.id);
    expect(h['idempotency-key']).toBe(row.id);
    expect(h['x-service-timestamp']).toBe(String(Date.parse(T0) / 1000));
    expect(h['x-service-signature']).toMatch(/^sha256=[0-9a-f]{64}$/);
    // Body bytes are exactly the stored ones, and the documented shape.
    expect(req!.rawBody.toString('utf8')).toBe(row.body);
    const body = JSON.parse(req!.rawBody.toString('utf8'));
    expect(Object.keys(body)).toEqual(['id', 'event', 'occurredAt', 'alert']);
    expect(body).toMatchObject({ id: row.id, event: 'alert.opened', occurredAt: T0 });
    expect(Object.keys(body.alert)).toEqual([
      'id', 'title', 'message', 'sourceType', 'sourceId', 'workspaceName', 'capacityName', 'severity', 'status',
      'acknowledged', 'openedAt', 'resolvedAt', 'failureCount', 'url',
    ]);
    expect(body.alert.id).toBe(ev.alertId);
    expect(req!.rawBody.toString('utf8')).not.toContain(orgId);
    // The receiver kit accepts it with the secret shown at creation.
    const verified = verifyWebhook({ rawBody: req!.rawBody, headers: h, secret, now: clock.now() });
    expect(verified.id).toBe(row.id);
    // …and refuses it with another secret or a changed byte.
    expect(() => verifyWebhook({ rawBody: req!.rawBody, headers: h, secret: `${secret}x`, now: clock.now() })).toThrow(/match/);
    expect(() => verifyWebhook({ rawBody: Buffer.from(req!.rawBody.toString().replace('"open"', '"opem"')), headers: h, secret, now: clock.now() })).toThrow();

    expect(row.attempts).toBe(1);
    expect(row.last_status_code).toBe(200);
    const detail = await t.admin('GET', `/orgs/${orgId}/deliveries/${row.id}`);
    expect(detail.statusCode).toBe(200);
    expect(detail.json()).toMatchObject({ id: row.id, status: 'succeeded', attempts: 1, test: false, lastStatusCode: 200, nextAttemptAt: null });
    expect(detail.json().attemptLog).toEqual([{ attempt: 1, startedAt: T0, durationMs: expect.any(Number), statusCode: 200, error: null }]);
  });

  it('retries 500, 500 then 200 on the exact schedule with fresh timestamps and signatures', async () => {
    const { orgId, destId, secret } = await setup();
    rx.script([{ status: 500 }, { status: 503 }, { status: 200 }]);
    worker = await startDispatcher(t.ctx);
    await emit(t.ctx, orgId);
    await rx.waitFor(1);
    let row = await waitRow(destId, (r) => r.attempts === 1 && r.locked_by === null, 'first outcome');
    expect(row.status).toBe('pending');
    expect(row.last_status_code).toBe(500);
    expect(new Date(row.next_attempt_at).toISOString()).toBe(new Date(Date.parse(T0) + 60_000).toISOString());

    clock.advance(59_000);
    await worker.pass();
    expect(rx.requests).toHaveLength(1); // not due yet

    clock.advance(1_000);
    worker.poke();
    await rx.waitFor(2);
    row = await waitRow(destId, (r) => r.attempts === 2 && r.locked_by === null, 'second outcome');
    expect(row.status).toBe('pending');
    expect(new Date(row.next_attempt_at).getTime()).toBe(Date.parse(T0) + 60_000 + 300_000);

    clock.advance(300_000);
    worker.poke();
    await rx.waitFor(3);
    row = await waitRow(destId, (r) => r.status === 'succeeded', 'success');
    expect(row.attempts).toBe(3);

    const [a, b, c] = rx.requests;
    expect(a!.rawBody.equals(b!.rawBody) && b!.rawBody.equals(c!.rawBody)).toBe(true);
    expect(new Set(rx.requests.map((r) => r.headers['idempotency-key'])).size).toBe(1);
    expect(Number(b!.headers['x-service-timestamp']) - Number(a!.headers['x-service-timestamp'])).toBe(60);
    expect(Number(c!.headers['x-service-timestamp']) - Number(b!.headers['x-service-timestamp'])).toBe(300);
    expect(new Set(rx.requests.map((r) => r.headers['x-service-signature'])).size).toBe(3);
    for (const r of rx.requests) {
      clock.set(Number(r.headers['x-service-timestamp']) * 1000);
      expect(() => verifyWebhook({ rawBody: r.rawBody, headers: r.headers, secret, now: clock.now() })).not.toThrow();
    }
    const log = (await t.admin('GET', `/orgs/${orgId}/deliveries/${row.id}`)).json().attemptLog;
    expect(log.map((x: any) => [x.attempt, x.statusCode, x.startedAt])).toEqual([
      [1, 500, T0],
      [2, 503, new Date(Date.parse(T0) + 60_000).toISOString()],
      [3, 200, new Date(Date.parse(T0) + 360_000).toISOString()],
    ]);
  });

  it('classifies answers: 408/429/5xx, timeout and reset retry; other 4xx and 3xx abandon at once', async () => {
    const cases: { answer: any; status: string; code: number | null; error: string | null }[] = [
      { answer: { status: 408 }, status: 'pending', code: 408, error: 'HTTP 408' },
      { answer: { status: 429 }, status: 'pending', code: 429, error: 'HTTP 429' },
      { answer: { status: 502 }, status: 'pending', code: 502, error: 'HTTP 502' },
      { answer: { hang: true }, status: 'pending', code: null, error: 'timeout' },
      { answer: { status: 200, delayMs: 4000 }, status: 'pending', code: null, error: 'timeout' },
      { answer: { reset: true }, status: 'pending', code: null, error: 'connection failed' },
      { answer: { status: 400 }, status: 'abandoned', code: 400, error: 'HTTP 400' },
      { answer: { status: 401 }, status: 'abandoned', code: 401, error: 'HTTP 401' },
      { answer: { status: 404 }, status: 'abandoned', code: 404, error: 'HTTP 404' },
      { answer: { status: 410 }, status: 'abandoned', code: 410, error: 'HTTP 410' },
      { answer: { status: 301, headers: { location: '/elsewhere' } }, status: 'abandoned', code: 301, error: 'redirect 301 not followed' },
      { answer: { status: 307, headers: { location: '/elsewhere' } }, status: 'abandoned', code: 307, error: 'redirect 307 not followed' },
      { answer: { status: 204 }, status: 'succeeded', code: 204, error: null },
    ];
    worker = await startDispatcher(t.ctx);
    const dests: string[] = [];
    const orgId = await insertOrg(t.ctx);
    for (let i = 0; i < cases.length; i++) {
      const res = await t.admin('POST', `/orgs/${orgId}/destinations`, { name: `c${i}`, kind: 'webhook', url: `${rx.origin}/case/${i}` });
      dests.push(res.json().id);
    }
    rx.handle((req) => cases[Number(req.url.split('/')[2])]!.answer);
    await emit(t.ctx, orgId);
    await rx.waitFor(cases.length);
    for (let i = 0; i < cases.length; i++) {
      const row = await waitRow(dests[i]!, (r) => r.attempts === 1 && r.locked_by === null, `case ${i}`);
      expect({ i, status: row.status, code: row.last_status_code, error: row.last_error }).toEqual({
        i,
        status: cases[i]!.status,
        code: cases[i]!.code,
        error: cases[i]!.error,
      });
      if (row.status === 'pending') expect(new Date(row.next_attempt_at).getTime()).toBe(Date.parse(T0) + 60_000);
    }
    // Redirects were not followed.
    expect(rx.requests.filter((r) => r.url === '/elsewhere')).toHaveLength(0);
  });

  it('gives up after 5 attempts (failed), and a redelivery gets a fresh budget with the same id and body', async () => {
    const { orgId, destId } = await setup();
    rx.fallback = { status: 500 };
    worker = await startDispatcher(t.ctx);
    await emit(t.ctx, orgId);
    const waits = [60_000, 300_000, 1_800_000, 7_200_000];
    for (let n = 1; n <= 5; n++) {
      await rx.waitFor(n);
      await waitRow(destId, (r) => r.attempts === n && r.locked_by === null, `attempt ${n}`);
      if (n <= 4) {
        clock.advance(waits[n - 1]!);
        worker.poke();
      }
    }
    let row = await waitRow(destId, (r) => r.status === 'failed', 'failed');
    expect(row.attempts).toBe(5);
    expect(row.next_attempt_at).toBeNull();
    clock.advance(86_400_000);
    await worker.pass();
    expect(rx.requests).toHaveLength(5);

    rx.fallback = { status: 200 };
    const re = await t.admin('POST', `/orgs/${orgId}/deliveries/${row.id}/redeliver`);
    expect(re.statusCode).toBe(202);
    expect(re.json()).toMatchObject({ id: row.id, status: 'pending' });
    await rx.waitFor(6);
    row = await waitRow(destId, (r) => r.status === 'succeeded', 'redelivered');
    expect(rx.requests[5]!.headers['idempotency-key']).toBe(row.id);
    expect(rx.requests[5]!.rawBody.equals(rx.requests[0]!.rawBody)).toBe(true);
    const detail = (await t.admin('GET', `/orgs/${orgId}/deliveries/${row.id}`)).json();
    expect(detail.attempts).toBe(6);
    expect(detail.attemptLog.map((a: any) => a.attempt)).toEqual([1, 2, 3, 4, 5, 6]);
    // A delivery in progress cannot be redelivered; other org's ids are not found.
    expect((await t.admin('POST', `/orgs/${await insertOrg(t.ctx)}/deliveries/${row.id}/redeliver`)).statusCode).toBe(404);
  });

  it('test send carries test:true, is recorded, and answers in Portuguese', async () => {
    const { orgId, destId, secret } = await setup('/test-hook');
    const res = await t.admin('POST', `/orgs/${orgId}/destinations/${destId}/test`);
    expect(res.statusCode).toBe(200);
    expect(res.json()).toEqual({
      ok: true,
      steps: [{ action: 'send', ok: true, statusCode: 200 }],
      manualCloseRequired: false,
      message: expect.stringContaining('Entrega de teste'),
    });
    const [req] = await rx.waitFor(1);
    const body = verifyWebhook({ rawBody: req!.rawBody, headers: req!.headers, secret, now: clock.now() });
    expect(body.test).toBe(true);
    expect(Object.keys(body)).toEqual(['id', 'event', 'occurredAt', 'test', 'alert']);
    const list = (await t.admin('GET', `/orgs/${orgId}/destinations/${destId}/deliveries`)).json();
    expect(list.value).toHaveLength(1);
    expect(list.value[0]).toMatchObject({ id: body.id, test: true, status: 'succeeded', attempts: 1 });

    rx.fallback = { status: 401 };
    const bad = (await t.admin('POST', `/orgs/${orgId}/destinations/${destId}/test`)).json();
    expect(bad.ok).toBe(false);
    expect(bad.steps).toEqual([{ action: 'send', ok: false, statusCode: 401, error: 'HTTP 401' }]);
    expect(bad.message).toMatch(/falhou/);
  });

  it('lists history newest first with paging and a status filter; foreign ids are 404', async () => {
    const { orgId, destId } = await setup();
    rx.handle((_r, i) => (i % 2 === 0 ? { status: 200 } : { status: 404 }));
    worker = await startDispatcher(t.ctx);
    for (let i = 0; i < 5; i++) {
      await emit(t.ctx, orgId);
      await rx.waitFor(i + 1);
      clock.advance(1000);
    }
    await until(async () => (await deliveryRow(destId)).every((r: any) => r.status !== 'pending'), 30_000, 'all done');
    const p1 = (await t.admin('GET', `/orgs/${orgId}/destinations/${destId}/deliveries?pageSize=2`)).json();
    expect(p1).toMatchObject({ page: 1, pageSize: 2, totalCount: 5 });
    expect(p1.value).toHaveLength(2);
    expect(p1.nextLink).toBe(`/api/admin/v1/orgs/${orgId}/destinations/${destId}/deliveries?page=2&pageSize=2`);
    const p3 = (await t.admin('GET', `${p1.nextLink.replace('page=2', 'page=3')}`)).json();
    expect(p3.value).toHaveLength(1);
    expect(p3.nextLink).toBe('');
    const all = (await t.admin('GET', `/orgs/${orgId}/destinations/${destId}/deliveries`)).json().value;
    expect(all.map((d: any) => d.createdAt)).toEqual([...all.map((d: any) => d.createdAt)].sort().reverse());
    const abandoned = (await t.admin('GET', `/orgs/${orgId}/destinations/${destId}/deliveries?status=abandoned`)).json();
    expect(abandoned.totalCount).toBe(2);
    expect(abandoned.value.every((d: any) => d.status === 'abandoned' && d.lastStatusCode === 404)).toBe(true);
    expect(Object.keys(abandoned.value[0]).sort()).toEqual(
      ['id', 'event', 'alertId', 'status', 'attempts', 'nextAttemptAt', 'lastStatusCode', 'lastError', 'createdAt', 'completedAt', 'test'].sort(),
    );
    expect((await t.admin('GET', `/orgs/${orgId}/destinations/${destId}/deliveries?status=bogus`)).statusCode).toBe(400);
    expect((await t.admin('GET', `/orgs/${orgId}/destinations/${destId}/deliveries?pageSize=501`)).statusCode).toBe(400);
    const other = await insertOrg(t.ctx);
    expect((await t.admin('GET', `/orgs/${other}/destinations/${destId}/deliveries`)).statusCode).toBe(404);
    expect((await t.admin('GET', `/orgs/${other}/deliveries/${all[0].id}`)).statusCode).toBe(404);
  });

  it('fans out to destinations whose filter matches; a disabled one keeps them as skipped', async () => {
    const orgId = await insertOrg(t.ctx);
    const mk = async (name: string, extra: object) =>
      (await t.admin('POST', `/orgs/${orgId}/destinations`, { name, kind: 'webhook', url: `${rx.origin}/${name}`, ...extra })).json().id as string;
    const all = await mk('all', {});
    const errorsOnly = await mk('errors', { filter: { severities: ['error'] } });
    const recovered = await mk('recovered', { filter: { events: ['alert.recovered'] } });
    const capacity = await mk('capacity', { filter: { sourceTypes: ['Capacity'] } });
    const off = await mk('off', { enabled: false });
    await emit(t.ctx, orgId, 'alert.opened', { snapshot: { severity: 'info' } });
    await emit(t.ctx, orgId, 'alert.opened', { snapshot: { severity: 'error', sourceType: 'Capacity' } });
    const count = async (id: string) => (await deliveryRow(id)).length;
    expect([await count(all), await count(errorsOnly), await count(recovered), await count(capacity), await count(off)]).toEqual([2, 1, 0, 1, 2]);
    expect((await deliveryRow(off)).map((r: any) => r.status)).toEqual(['skipped', 'skipped']);
  });

  it('a deleted destination never sends its unsent deliveries', async () => {
    const { orgId, destId } = await setup();
    await emit(t.ctx, orgId);
    await emit(t.ctx, orgId);
    expect((await t.admin('DELETE', `/orgs/${orgId}/destinations/${destId}`)).statusCode).toBe(204);
    worker = await startDispatcher(t.ctx);
    await worker.pass();
    expect(rx.requests).toHaveLength(0);
    const rows = await deliveryRow(destId);
    expect(rows.map((r: any) => [r.status, r.last_error])).toEqual([
      ['abandoned', 'destination deleted'],
      ['abandoned', 'destination deleted'],
    ]);
  });
});
