/**
 * Bugs found in the review of the first delivery core, each pinned by what a user sees:
 * a message cut once at ingest by code points (never half a surrogate pair on the wire), NUL
 * characters anywhere in an admin request answered 400 (not 500), redelivery of a delivery
 * still in progress refused with 409, and the status union enforced by the table itself.
 */
import { afterAll, afterEach, beforeAll, describe, expect, it } from 'vitest';
import { ManualClock } from '../../src/clock.js';
import { startDispatcher, type Dispatcher } from '../../src/delivery/dispatcher.js';
import { createTestApp, type TestApp } from '../helpers/context.js';
import { createOrg, openAlert, signal } from '../helpers/fixtures.js';
import { startReceiver, type TestReceiver } from '../helpers/receiver.js';
import { emit, insertOrg } from './support.js';

const EMOJI = '\u{1F525}'; // two UTF-16 code units, one code point

describe('review fixes', () => {
  let t: TestApp;
  let rx: TestReceiver;
  let worker: Dispatcher | undefined;
  const clock = new ManualClock('2026-06-15T12:00:00.000Z');

  beforeAll(async () => {
    t = await createTestApp({ clock, config: { destinationAllowlist: ['127.0.0.1'], deliveryTimeoutMs: 2000 } });
    rx = await startReceiver();
  });
  afterEach(async () => {
    await worker?.stop();
    worker = undefined;
    rx.reset();
  });
  afterAll(async () => {
    await rx.close();
    await t.close();
  });

  async function webhook(orgId: string, name = 'Hook'): Promise<string> {
    const res = await t.admin('POST', `/orgs/${orgId}/destinations`, { name, kind: 'webhook', url: `${rx.origin}/hook` });
    expect(res.statusCode).toBe(201);
    return res.json().id;
  }

  async function deliveredMessage(message: string, sourceId: string): Promise<{ wire: string; stored: string }> {
    const org = await createOrg(t);
    await webhook(org.id);
    worker = await startDispatcher(t.ctx);
    const alertId = await openAlert(t, org.id, signal({ sourceId, message }));
    const [req] = await rx.waitFor(1);
    const stored = (await t.ctx.db.query<{ message: string }>('SELECT message FROM alerts WHERE id = $1', [alertId])).rows[0]!.message;
    return { wire: JSON.parse(req!.rawBody.toString('utf8')).alert.message, stored };
  }

  it('a message of 601 code points (1201 UTF-16 units) is stored and delivered whole', async () => {
    const message = `a${EMOJI.repeat(600)}`;
    const { wire, stored } = await deliveredMessage(message, 'emoji-601');
    expect(stored).toBe(message);
    expect(wire).toBe(message);
  });

  it('a longer message is cut once, at ingest, to 1000 code points: the body never ends in half a surrogate pair', async () => {
    const { wire, stored } = await deliveredMessage(`a${EMOJI.repeat(1200)}`, 'emoji-1201');
    expect(stored).toBe(`a${EMOJI.repeat(999)}`);
    expect(wire).toBe(stored);
    // No lone surrogate anywhere: every UTF-16 unit belongs to a whole code point.
    expect(/[\uD800-\uDBFF](?![\uDC00-\uDFFF])|(?<![\uD800-\uDBFF])[\uDC00-\uDFFF]/.test(wire)).toBe(false);
  });

  it('NUL characters in a destination name, an organization id or a delivery id are a 400 with the envelope', async () => {
    const orgId = await insertOrg(t.ctx);
    const cases = [
      await t.admin('POST', `/orgs/${orgId}/destinations`, { name: 'a\u0000b', kind: 'webhook', url: `${rx.origin}/hook` }),
      await t.admin('GET', '/orgs/org%00x/destinations'),
      await t.admin('GET', `/orgs/${orgId}/deliveries/d%00x`),
      await t.admin('POST', `/orgs/${orgId}/deliveries/d%00x/redeliver`),
      await t.admin('GET', `/orgs/${orgId}/destinations/x%00/deliveries`),
    ];
    for (const res of cases) {
      expect(res.statusCode).toBe(400);
      expect(res.json()).toEqual({ error: { code: 'invalid_request', message: expect.stringContaining('NUL') } });
    }
    expect(cases[0]!.json().error.message).toBe('body.name must not contain the NUL character (\\u0000)');
    const { rows } = await t.ctx.db.query('SELECT 1 FROM destinations WHERE org_id = $1', [orgId]);
    expect(rows).toHaveLength(0);
  });

  it('a delivery still in progress cannot be redelivered: 409 and the row is unchanged', async () => {
    const orgId = await insertOrg(t.ctx);
    const destId = await webhook(orgId);
    await emit(t.ctx, orgId); // no worker: the delivery stays pending
    const before = (await t.ctx.db.query('SELECT * FROM deliveries WHERE destination_id = $1', [destId])).rows[0]!;
    expect(before.status).toBe('pending');
    const res = await t.admin('POST', `/orgs/${orgId}/deliveries/${before.id}/redeliver`);
    expect(res.statusCode).toBe(409);
    expect(res.json()).toEqual({ error: { code: 'conflict', message: 'the delivery is still in progress' } });
    const after = (await t.ctx.db.query('SELECT * FROM deliveries WHERE id = $1', [before.id])).rows[0]!;
    expect(after).toEqual(before);
  });

  it('the table refuses a status outside the union', async () => {
    const orgId = await insertOrg(t.ctx);
    const destId = await webhook(orgId);
    await emit(t.ctx, orgId);
    await expect(t.ctx.db.query(`UPDATE deliveries SET status = 'done' WHERE destination_id = $1`, [destId])).rejects.toThrow(/deliveries_status_check/);
  });
});
