/** Bad input on the signal, alert and silence endpoints: right status, envelope, no partial write. */
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { createTestApp, type TestApp } from '../helpers/context.js';
import { createOrg, openAlert, signal } from '../helpers/fixtures.js';

describe('signals, alerts and silences: bad input', () => {
  let t: TestApp;
  let orgId: string;
  let otherOrgId: string;
  beforeAll(async () => {
    t = await createTestApp();
    orgId = (await createOrg(t)).id;
    otherOrgId = (await createOrg(t)).id;
  });
  afterAll(() => t.close());

  const counts = async () => {
    const { rows } = await t.ctx.db.query(
      'SELECT (SELECT count(*)::int FROM alerts) AS alerts, (SELECT count(*)::int FROM alert_events) AS events, (SELECT count(*)::int FROM silences) AS silences',
    );
    return rows[0];
  };

  const { sourceType: _st, ...noSourceType } = signal();
  it.each([
    ['not an object', 'hello'],
    ['a number', 42],
    ['null', null],
    ['empty array', []],
    ['missing sourceType', noSourceType],
    ['unknown field', { ...signal(), priority: 'high' }],
    ['bad kind', signal({ kind: 'broken' as never })],
    ['bad severity', signal({ severity: 'critical' as never })],
    ['sourceId a number', { ...signal(), sourceId: 7 }],
    ['empty title', signal({ title: '  ' })],
    ['message not a string', { ...signal(), message: ['a'] }],
    ['occurredAt not ISO', signal({ occurredAt: '15/06/2026' })],
    ['occurredAt without zone', signal({ occurredAt: '2026-06-15T10:00:00' })],
    ['occurredAt impossible', signal({ occurredAt: '2026-13-01T00:00:00Z' })],
    ['occurredAt a number', { ...signal(), occurredAt: 1750000000 }],
    ['causes not an array', { ...signal(), causes: { sourceType: 'Capacity', sourceId: 'c' } }],
    ['cause missing sourceId', { ...signal(), causes: [{ sourceType: 'Capacity' }] }],
    ['cause unknown field', { ...signal(), causes: [{ sourceType: 'Capacity', sourceId: 'c', kind: 'x' }] }],
    ['workspaceName a number', { ...signal(), workspaceName: 3 }],
    ['a valid and an invalid signal', [signal({ sourceId: 'ok-1' }), signal({ sourceId: 'ok-2' }), { ...signal(), kind: 'nope' }]],
    ['1001 signals', Array.from({ length: 1001 }, (_, i) => signal({ sourceId: `s-${i}` }))],
  ])('POST signals: %s → 400, nothing written', async (_l, body) => {
    const before = await counts();
    const res = await t.admin('POST', `/orgs/${orgId}/signals`, body as never, { 'content-type': 'application/json' });
    expect(res.statusCode).toBe(400);
    expect(res.headers['cache-control']).toBe('no-store');
    expect(res.json().error.code).toBe('invalid_request');
    expect(typeof res.json().error.message).toBe('string');
    expect(await counts()).toEqual(before);
  });

  it('names the offending item of a batch', async () => {
    const res = await t.admin('POST', `/orgs/${orgId}/signals`, [signal(), { ...signal(), severity: 'fatal' }]);
    expect(res.json().error.message).toContain('signals[1].severity');
  });

  it('accepts exactly 1000 signals in one batch', async () => {
    const res = await t.admin('POST', `/orgs/${orgId}/signals`, Array.from({ length: 1000 }, (_, i) => signal({ sourceId: `batch-${i}` })));
    expect(res.statusCode).toBe(200);
    expect(res.json()).toHaveLength(1000);
  });

  it('refuses malformed JSON, an empty body and an oversize body', async () => {
    const before = await counts();
    const bad = await t.admin('POST', `/orgs/${orgId}/signals`, '[{"sourceType":', { 'content-type': 'application/json' });
    expect(bad.statusCode).toBe(400);
    expect(bad.json().error.code).toBe('invalid_request');
    const empty = await t.admin('POST', `/orgs/${orgId}/signals`, '', { 'content-type': 'application/json' });
    expect(empty.statusCode).toBe(400);
    const huge = await t.admin('POST', `/orgs/${orgId}/signals`, signal({ message: 'x'.repeat(5 * 1024 * 1024) }));
    expect(huge.statusCode).toBe(413);
    expect(huge.json().error.code).toBe('payload_too_large');
    expect(await counts()).toEqual(before);
  });

  it('answers unknown orgs and alerts of another org with 404', async () => {
    const id = await openAlert(t, orgId, { sourceId: 'mine' });
    for (const [method, url, body] of [
      ['POST', `/orgs/org_missing/signals`, signal()],
      ['GET', `/orgs/${otherOrgId}/alerts/${id}`, undefined],
      ['POST', `/orgs/${otherOrgId}/alerts/${id}/acknowledge`, {}],
      ['POST', `/orgs/${otherOrgId}/alerts/${id}/resolve`, undefined],
      ['GET', `/orgs/${orgId}/alerts/alr_missing`, undefined],
      ['POST', `/orgs/${orgId}/alerts/alr_missing/acknowledge`, {}],
      ['POST', `/orgs/${orgId}/alerts/alr_missing/resolve`, undefined],
      ['GET', `/orgs/org_missing/alerts/${id}`, undefined],
      ['GET', `/orgs/org_missing/silences`, undefined],
      ['DELETE', `/orgs/${orgId}/silences/sil_missing`, undefined],
    ] as const) {
      const res = await t.admin(method, url, body);
      expect(res.statusCode, `${method} ${url}`).toBe(404);
      expect(res.json().error.code).toBe('not_found');
    }
    const alert = (await t.admin('GET', `/orgs/${orgId}/alerts/${id}`)).json();
    expect(alert).toMatchObject({ status: 'open', acknowledged: false });
  });

  it('refuses bad acknowledge and resolve bodies', async () => {
    const id = await openAlert(t, orgId, { sourceId: 'ack-body' });
    for (const body of [{ by: 5 }, { who: 'x' }, [1], { by: '' }]) {
      const res = await t.admin('POST', `/orgs/${orgId}/alerts/${id}/acknowledge`, body);
      expect(res.statusCode).toBe(400);
    }
    expect((await t.admin('POST', `/orgs/${orgId}/alerts/${id}/resolve`, { now: true })).statusCode).toBe(400);
    expect((await t.admin('GET', `/orgs/${orgId}/alerts/${id}`)).json()).toMatchObject({ status: 'open', acknowledged: false });
    expect((await t.admin('POST', `/orgs/${orgId}/alerts/${id}/acknowledge`)).statusCode).toBe(200);
  });

  it.each([
    ['missing endsAt', { matchers: {} }],
    ['missing matchers', { endsAt: '2026-06-15T13:00:00Z' }],
    ['unknown matcher', { matchers: { severity: 'error' }, endsAt: '2026-06-15T13:00:00Z' }],
    ['unknown field', { matchers: {}, endsAt: '2026-06-15T13:00:00Z', reason: 'x' }],
    ['endsAt not a date', { matchers: {}, endsAt: 'soon' }],
    ['endsAt in the past', { matchers: {}, endsAt: '2026-06-15T11:00:00Z' }],
    ['endsAt before startsAt', { matchers: {}, startsAt: '2026-06-15T15:00:00Z', endsAt: '2026-06-15T14:00:00Z' }],
    ['matcher not a string', { matchers: { sourceId: 1 }, endsAt: '2026-06-15T13:00:00Z' }],
    ['comment a number', { matchers: {}, endsAt: '2026-06-15T13:00:00Z', comment: 1 }],
  ])('POST silences: %s → 400, nothing written', async (_l, body) => {
    const before = await counts();
    const res = await t.admin('POST', `/orgs/${orgId}/silences`, body);
    expect(res.statusCode).toBe(400);
    expect(res.json().error.code).toBe('invalid_request');
    expect(await counts()).toEqual(before);
  });

  it('refuses every alert, signal and silence route without the admin token (401)', async () => {
    const id = await openAlert(t, orgId, { sourceId: 'no-token' });
    let attempt = 0;
    for (const [method, url] of [
      ['POST', `/orgs/${orgId}/signals`],
      ['GET', `/orgs/${orgId}/alerts/${id}`],
      ['POST', `/orgs/${orgId}/alerts/${id}/acknowledge`],
      ['POST', `/orgs/${orgId}/alerts/${id}/resolve`],
      ['POST', `/orgs/${orgId}/silences`],
      ['GET', `/orgs/${orgId}/silences`],
      ['DELETE', `/orgs/${orgId}/silences/sil_x`],
      ['PUT', `/orgs/${orgId}/capacities`],
      ['PUT', `/orgs/${orgId}/workspaces`],
      ['POST', `/orgs/${orgId}/costs`],
      ['POST', '/orgs'],
      ['PATCH', `/orgs/${orgId}`],
      ['GET', `/orgs/${orgId}/api-keys`],
      ['POST', `/orgs/${orgId}/api-keys`],
      ['DELETE', `/orgs/${orgId}/api-keys/key_x`],
    ] as const) {
      // A fresh address per attempt: wrong admin tokens are limited per address (admin-auth-limit.test.ts).
      const remoteAddress = `192.0.2.${++attempt}`;
      const res = await t.app.inject({ method, url: `/api/admin/v1${url}`, payload: {}, headers: { authorization: 'Bearer nope' }, remoteAddress });
      expect(res.statusCode, `${method} ${url}`).toBe(401);
      expect(res.json().error.code).toBe('unauthorized');
    }
    expect((await t.admin('GET', `/orgs/${orgId}/alerts/${id}`)).json()).toMatchObject({ status: 'open', acknowledged: false });
  });
});
