/**
 * Slack buttons that act (issue 37 item 4; docs/notifications.md, "Slack app: buttons that
 * act"): a `slack` destination with its app's signing secret gets Acknowledge / Resolve buttons
 * (sent by the real dispatcher to the Slack fake); a click, signed as Slack signs it, is applied
 * through the lifecycle (the other destination told, no echo), answered 200 at once, and the
 * message is replaced through response_url (a real HTTPS fake). Bad signatures, old timestamps
 * and buttons made for another destination are refused.
 */
import { createHmac } from 'node:crypto';
import { afterAll, afterEach, beforeAll, describe, expect, it } from 'vitest';
import { ManualClock } from '../../src/clock.js';
import { startDispatcher } from '../../src/delivery/dispatcher.js';
import { createTestApp, type TestApp } from '../helpers/context.js';
import { createOrg, openAlert } from '../helpers/fixtures.js';
import { until } from '../delivery/support.js';
import { SlackFake } from '../fakes/chat.js';
import { SlackResponseUrlFake } from '../fakes/slack-response.js';

const T0 = '2026-06-15T12:00:00.000Z';
const SIGNING_SECRET = '8f742231b10e8888abcd99yyyzzz85a5'.replace(/[yz]/g, 'e');

describe('Slack interactivity', () => {
  const slack = new SlackFake();
  const responses = new SlackResponseUrlFake();
  let t: TestApp;
  let clock: ManualClock;
  let orgId: string;
  let slackDest: string;
  let hookDest: string;
  let n = 0;

  beforeAll(async () => {
    await Promise.all([slack.start(), responses.start()]);
    clock = new ManualClock(T0);
    t = await createTestApp({ clock, config: { destinationAllowlist: ['127.0.0.1'], deliveryTimeoutMs: 2000 } });
    orgId = (await createOrg(t)).id;
    const s = await t.admin('POST', `/orgs/${orgId}/destinations`, {
      name: 'canal-bi', kind: 'slack', config: { groupWaitSeconds: 0 }, credentials: { webhookUrl: slack.webhookUrl(), appSigningSecret: SIGNING_SECRET },
    });
    expect(s.statusCode, s.body).toBe(201);
    expect(s.body).not.toContain(SIGNING_SECRET);
    slackDest = s.json().id;
    const h = await t.admin('POST', `/orgs/${orgId}/destinations`, { name: 'hook', kind: 'webhook', url: 'https://127.0.0.1:9/hook', filter: { events: ['alert.acknowledged', 'alert.recovered'] } });
    hookDest = h.json().id;
  });
  afterEach(() => {
    expect(slack.violations).toEqual([]);
    expect(responses.violations).toEqual([]);
    expect(t.ctx.logs.text).not.toContain(SIGNING_SECRET);
  });
  afterAll(async () => {
    await t.close();
    await Promise.all([slack.stop(), responses.stop()]);
  });

  /** Opens an incident and lets the dispatcher post it to Slack; the message's buttons. */
  async function postedButtons(): Promise<{ alertId: string; ack: string; resolve: string; blocks: Array<Record<string, unknown>> }> {
    const alertId = await openAlert(t, orgId, { sourceId: `ds-${++n}` });
    const before = slack.messages.length;
    const worker = await startDispatcher(t.ctx);
    try {
      await until(async () => slack.messages.length > before, 20_000, 'the Slack message');
    } finally {
      await worker.stop();
    }
    const blocks = slack.messages.at(-1)!.blocks!;
    const actions = blocks.find((b) => b.type === 'actions') as { elements: Array<{ action_id: string; value: string }> };
    const value = (id: string) => actions.elements.find((e) => e.action_id === id)!.value;
    return { alertId, ack: value('vigia.ack'), resolve: value('vigia.resolve'), blocks };
  }

  function payload(actionId: string, value: string, blocks: unknown[] = []): string {
    const p = {
      type: 'block_actions',
      user: { id: 'U0ANA', username: 'ana', team_id: 'T0FAKE01' },
      team: { id: 'T0FAKE01' },
      api_app_id: 'A0VIGIA',
      channel: { id: 'C0BI', name: 'bi' },
      container: { type: 'message', message_ts: '1718452800.000100', channel_id: 'C0BI' },
      message: { blocks },
      response_url: responses.responseUrl(),
      trigger_id: '1.2.3',
      actions: [{ type: 'button', action_id: actionId, block_id: 'b', value, text: { type: 'plain_text', text: 'x' }, action_ts: '1718452801.1' }],
    };
    return `payload=${encodeURIComponent(JSON.stringify(p))}`;
  }
  function click(body: string, opts: { secret?: string; timestamp?: number; destinationId?: string } = {}) {
    const ts = String(opts.timestamp ?? Math.floor(clock.now().getTime() / 1000));
    const sig = `v0=${createHmac('sha256', opts.secret ?? SIGNING_SECRET).update(`v0:${ts}:${body}`).digest('hex')}`;
    return t.app.inject({
      method: 'POST',
      url: `/api/inbound/v1/slack/${opts.destinationId ?? slackDest}`,
      headers: { 'content-type': 'application/x-www-form-urlencoded', 'x-slack-request-timestamp': ts, 'x-slack-signature': sig },
      payload: body,
    });
  }
  /** The action ids of the buttons in a message's blocks. */
  const buttonsOf = (blocks: Array<Record<string, unknown>>) =>
    blocks.filter((x) => x.type === 'actions').flatMap((x) => (x.elements as Array<{ action_id: string }>).map((e) => e.action_id));
  const buttonValue = (blocks: Array<Record<string, unknown>>, actionId: string) =>
    blocks.filter((x) => x.type === 'actions').flatMap((x) => x.elements as Array<{ action_id: string; value: string }>).find((e) => e.action_id === actionId)!.value;
  const alert = async (id: string) => (await t.admin('GET', `/orgs/${orgId}/alerts/${id}`)).json();
  const events = async (d: string, alertId: string) =>
    (await t.ctx.db.query<{ event: string }>('SELECT event FROM deliveries WHERE destination_id = $1 AND alert_id = $2 ORDER BY event_seq', [d, alertId])).rows.map((r) => r.event);

  it('the message carries Reconhecer / Resolver buttons; a click acknowledges, tells the others, and replaces the message', async () => {
    const b = await postedButtons();
    const res = await click(payload('vigia.ack', b.ack, b.blocks));
    expect(res.statusCode, res.body).toBe(200);
    expect(res.body).toBe('');
    expect(await alert(b.alertId)).toMatchObject({ acknowledged: true, acknowledgedBy: 'Slack: @ana', acknowledgedAt: T0 });
    expect(await events(hookDest, b.alertId)).toEqual(['alert.acknowledged']);
    expect(await events(slackDest, b.alertId)).toEqual(['alert.opened']); // no echo
    await until(async () => responses.replacements.length === 1, 10_000, 'the response_url call');
    const r = responses.replacements[0]!;
    expect(r.text).toContain('Reconhecido por @ana');
    expect(JSON.stringify(r.blocks.at(-1))).toContain('Reconhecido por @ana');
    // Still open: the acknowledged message keeps Resolver (not Reconhecer) and "Ver no Vigia".
    expect(buttonsOf(r.blocks)).toEqual(['vigia.resolve']);
    expect(JSON.stringify(r.blocks)).toContain(`/alerts/${b.alertId}|Ver no Vigia>`);

    // A repeated click changes nothing (a message Slack sent without its blocks gets the buttons and link too).
    expect((await click(payload('vigia.ack', b.ack))).statusCode).toBe(200);
    expect(await events(hookDest, b.alertId)).toEqual(['alert.acknowledged']);
    await until(async () => responses.replacements.length === 2, 10_000, 'the second response_url call');
    expect(buttonsOf(responses.replacements[1]!.blocks)).toEqual(['vigia.resolve']);
    expect(JSON.stringify(responses.replacements[1]!.blocks)).toContain('|Ver no Vigia>');

    // Resolver on the replaced message (its button acts): resolved, and no action buttons any more.
    expect((await click(payload('vigia.resolve', buttonValue(r.blocks, 'vigia.resolve'), r.blocks))).statusCode).toBe(200);
    expect((await alert(b.alertId)).status).toBe('resolved');
    expect(await events(hookDest, b.alertId)).toEqual(['alert.acknowledged', 'alert.recovered']);
    await until(async () => responses.replacements.length === 3, 10_000, 'the response_url calls');
    const resolved = responses.replacements[2]!;
    expect(resolved.text).toContain('Resolvido por @ana');
    expect(buttonsOf(resolved.blocks)).toEqual([]);
    expect(JSON.stringify(resolved.blocks)).toContain('|Ver no Vigia>');
  });

  it('in English, an acknowledged message keeps "Resolve" and "View in Vigia"; in a grouped message the other incidents keep their buttons', async () => {
    const en = (await createOrg(t, { language: 'en' })).id;
    const s = await t.admin('POST', `/orgs/${en}/destinations`, {
      name: 'bi-en', kind: 'slack', config: { groupWaitSeconds: 30 }, credentials: { webhookUrl: slack.webhookUrl(), appSigningSecret: SIGNING_SECRET },
    });
    expect(s.statusCode, s.body).toBe(201);
    const dest = s.json().id;
    const [a1, a2] = [await openAlert(t, en, { sourceId: 'en-1', title: 'First' }), await openAlert(t, en, { sourceId: 'en-2', title: 'Second' })];
    const before = slack.messages.length;
    clock.advance(31_000);
    const worker = await startDispatcher(t.ctx);
    try {
      await until(async () => slack.messages.length > before, 20_000, 'the grouped Slack message');
    } finally {
      await worker.stop();
    }
    const blocks = slack.messages.at(-1)!.blocks!;
    expect(slack.messages.at(-1)!.text).toBe('2 incidents opened');
    const ackOfFirst = (blocks.find((x) => x.type === 'actions' && x.block_id === `vigia.${a1}`) as { elements: Array<{ action_id: string; value: string }> }).elements[0]!;
    expect(ackOfFirst.action_id).toBe('vigia.ack');
    const replaced = responses.replacements.length;
    expect((await click(payload('vigia.ack', ackOfFirst.value, blocks), { destinationId: dest })).statusCode).toBe(200);
    await until(async () => responses.replacements.length === replaced + 1, 10_000, 'the response_url call');
    const r = responses.replacements.at(-1)!;
    expect(r.text).toBe(':white_check_mark: Acknowledged by @ana: First');
    const actions = r.blocks.filter((x) => x.type === 'actions') as Array<{ block_id: string; elements: Array<{ action_id: string; text: { text: string } }> }>;
    expect(Object.fromEntries(actions.map((x) => [x.block_id, x.elements.map((e) => e.text.text)]))).toEqual({
      [`vigia.${a1}`]: ['Resolve'],
      [`vigia.${a2}`]: ['Acknowledge', 'Resolve'],
    });
    expect(JSON.stringify(r.blocks)).toContain(`/alerts/${a1}|View in Vigia>`);
  });

  it('refuses a bad signature (401), an old or future timestamp (401), and a button made for another destination (400)', async () => {
    const b = await postedButtons();
    const body = payload('vigia.ack', b.ack);
    const wrong = await click(body, { secret: 'ffffffffffffffffffffffffffffffff' });
    expect(wrong.statusCode).toBe(401);
    expect(wrong.json().error.code).toBe('unauthenticated');
    const unsigned = await t.app.inject({ method: 'POST', url: `/api/inbound/v1/slack/${slackDest}`, headers: { 'content-type': 'application/x-www-form-urlencoded' }, payload: body });
    expect(unsigned.statusCode).toBe(401);
    const now = Math.floor(clock.now().getTime() / 1000);
    const old = await click(body, { timestamp: now - 301 });
    expect(old.statusCode).toBe(401);
    expect(old.json().error.message).toContain('more than 5 minutes');
    expect((await click(body, { timestamp: now + 301 })).statusCode).toBe(401);
    expect((await click(body, { timestamp: now - 299 })).statusCode).toBe(200); // inside the window
    expect((await alert(b.alertId)).acknowledged).toBe(true);

    const other = await postedButtons();
    const unknown = await click(payload('vigia.ack', other.ack), { destinationId: hookDest });
    expect(unknown.statusCode).toBe(401); // not a Slack destination: the same answer as a bad signature
    const forged = other.ack.replace(/\.[^.]+$/, '.AAAAAAAAAAAAAAAAAAAAAA');
    const refused = await click(payload('vigia.ack', forged));
    expect(refused.statusCode).toBe(400);
    expect((await alert(other.alertId)).acknowledged).toBe(false);
  });
});
