/**
 * Teams and Slack end to end: incidents opened through the signals API, the real dispatcher
 * sending through the guarded client to HTTPS fakes that validate every body against the
 * contracts (Adaptive Card 1.5 envelope; Block Kit limits). Grouping (200 failures in a burst →
 * one message listing ten "e mais 190"), the short updates, escaping on the wire, each vendor
 * answer (202, 200 ok, 400 invalid_blocks, 404 channel_not_found, 410, 429 + Retry-After, 5xx),
 * and the Test action. The clock is a ManualClock; dispatcher.pass() runs what is due.
 */
import { beforeAll, describe, expect, it } from 'vitest';
import type { ManualClock } from '../../src/clock.js';
import type { Dispatcher } from '../../src/delivery/dispatcher.js';
import type { TestApp } from '../helpers/context.js';
import { acknowledgeAlert, createOrg, openAlert, sendSignals, signal } from '../helpers/fixtures.js';
import { useChatPipeline } from './chat-pipeline.js';


describe('teams and slack through the delivery pipeline', () => {
  const h = useChatPipeline({}, ['fakeSecret0123456789abcd']);
  const { teams, slack } = h;
  let t: TestApp;
  let clock: ManualClock;
  let worker: Dispatcher;
  beforeAll(() => ({ t, clock, worker } = h));

  async function orgWith(kinds: Array<'teams' | 'slack'>, language = 'pt-BR') {
    const org = await createOrg(t, { language });
    const ids: Record<string, string> = {};
    for (const kind of kinds) {
      const webhookUrl = kind === 'teams' ? teams.webhookUrl() : slack.webhookUrl();
      const res = await t.admin('POST', `/orgs/${org.id}/destinations`, { name: kind, kind, credentials: { webhookUrl } });
      expect(res.statusCode, res.body).toBe(201);
      ids[kind] = res.json().id;
    }
    return { orgId: org.id as string, ids };
  }

  async function rows(destId: string) {
    const { rows } = await t.ctx.db.query<any>('SELECT * FROM deliveries WHERE destination_id = $1 AND NOT test ORDER BY created_at, id', [destId]);
    return rows;
  }

  /** Moves the clock past the group window and sends what is due. */
  async function afterWindow(seconds = 31) {
    clock.advance(seconds * 1000);
    await worker.pass();
  }

  it('one incident: nothing before the group window, then one card and one Slack message in pt-BR, time in São Paulo', async () => {
    const { orgId, ids } = await orgWith(['teams', 'slack']);
    const cards = teams.cards.length;
    const msgs = slack.messages.length;
    await openAlert(t, orgId, { sourceType: 'Dataset', sourceId: 'Vendas', title: 'Falha na atualização: Vendas', message: 'A atualização falhou. Credenciais expiradas.' });
    await worker.pass();
    expect(teams.cards.length).toBe(cards);
    await afterWindow();
    expect(teams.cards.length).toBe(cards + 1);
    const card = JSON.stringify(teams.cards.at(-1));
    expect(card).toContain('ERRO · Falha na atualização: Vendas');
    expect(card).toContain('A atualização falhou.');
    expect(card).not.toContain('Credenciais expiradas');
    expect(card).toContain('15/06/2026, 09:00 (GMT-3)');
    expect(card).toContain('"title":"Ver no Vigia"');
    expect(card).toContain('"version":"1.5"');
    expect(slack.messages.length).toBe(msgs + 1);
    const m = slack.messages.at(-1)!;
    expect(m.text).toBe('ERRO · Incidente aberto: Falha na atualização: Vendas');
    expect(JSON.stringify(m.blocks)).toContain('|Ver no Vigia>');
    for (const id of Object.values(ids)) {
      const [d] = await rows(id);
      expect(d).toMatchObject({ status: 'succeeded', attempts: 1, last_status_code: id === ids.teams ? 202 : 200 });
    }
  });

  it('a storm of 200 failures in one burst is ONE message per destination listing ten, "e mais 190"; each delivery succeeds', async () => {
    const { orgId, ids } = await orgWith(['teams', 'slack']);
    const cards = teams.cards.length;
    const msgs = slack.messages.length;
    const storm = Array.from({ length: 200 }, (_, i) =>
      signal({ sourceType: 'Dataset', sourceId: `ds-${String(i).padStart(3, '0')}`, sourceName: `Model ${i}`, notificationKind: 'RefreshFailed', title: `Refresh failed ${i}`, message: 'Gateway gw-1 is offline.' }),
    );
    expect((await sendSignals(t, orgId, storm)).every((o) => o.outcome === 'opened')).toBe(true);
    clock.advance(10_000);
    await openAlert(t, orgId, { sourceType: 'Dataset', sourceId: 'late-but-in-window', title: 'Refresh failed late' });
    await afterWindow(21);
    expect(teams.cards.length).toBe(cards + 1);
    const card = JSON.stringify(teams.cards.at(-1));
    expect(card).toContain('201 incidentes abertos');
    expect(card).toContain('e mais 191');
    expect((card.match(/"type":"Container"/g) ?? []).length).toBe(10);
    expect(slack.messages.length).toBe(msgs + 1);
    expect(slack.messages.at(-1)!.text).toBe('201 incidentes abertos');
    expect(JSON.stringify(slack.messages.at(-1)!.blocks)).toContain('e mais 191');
    for (const id of Object.values(ids)) {
      const all = await rows(id);
      expect(all).toHaveLength(201);
      expect(all.every((r) => r.status === 'succeeded' && r.attempts === 1)).toBe(true);
      const { rows: log } = await t.ctx.db.query<{ n: number }>('SELECT count(*)::int AS n FROM delivery_attempts a JOIN deliveries d ON d.id = a.delivery_id WHERE d.destination_id = $1', [id]);
      expect(log[0]!.n).toBe(201);
    }
    // An opening after the window is a new group: its own message, again after its own wait.
    await openAlert(t, orgId, { sourceType: 'Dataset', sourceId: 'next-window', title: 'Refresh failed again' });
    await worker.pass();
    expect(teams.cards.length).toBe(cards + 1);
    await afterWindow();
    expect(teams.cards.length).toBe(cards + 2);
    expect(JSON.stringify(teams.cards.at(-1))).toContain('Refresh failed again');
  });

  it('acknowledged sends a short update after the opening, in English for an English organization', async () => {
    const { orgId } = await orgWith(['slack'], 'en');
    const alertId = await openAlert(t, orgId, { sourceId: 'gw-ack', title: 'Gateway offline' });
    await acknowledgeAlert(t, orgId, alertId);
    const before = slack.messages.length;
    await afterWindow();
    // The update waited behind the opening (connector ordering); released, it goes out next.
    await worker.pass();
    expect(slack.messages.length).toBe(before + 2);
    const [opened, ack] = slack.messages.slice(-2);
    expect(opened!.text).toBe('ERROR · Incident opened: Gateway offline');
    expect(ack!.text).toBe('ERROR · Incident acknowledged: Gateway offline');
    expect(ack!.blocks!.length).toBeLessThanOrEqual(3);
  });

  it('escapes platform text for each medium: no markup, no mention, no line break on the wire', async () => {
    const { orgId } = await orgWith(['teams', 'slack']);
    await openAlert(t, orgId, { sourceId: 'evil', title: '<script>alert(1)</script> *bold* <!channel>\r\nInjected: [x](https://evil.example)', message: 'Line one\r\nLine two.' });
    await afterWindow();
    const wire = teams.requests.at(-1)!.body;
    expect(wire).toContain('\\\\<script\\\\>alert\\\\(1\\\\)\\\\</script\\\\> \\\\*bold\\\\* \\\\<!channel\\\\> Injected: \\\\[x\\\\]\\\\(https://evil.example\\\\)');
    expect(wire).not.toMatch(/\\r|\\n/);
    const slackWire = slack.requests.at(-1)!.body;
    const m = JSON.parse(slackWire);
    expect(m.text).toBe('ERRO · Incidente aberto: &lt;script&gt;alert(1)&lt;/script&gt; *\u200dbold*\u200d &lt;!channel&gt; Injected: [x](https://evil.example)');
    expect(slackWire).not.toContain('<!channel>');
    expect(slackWire).not.toMatch(/\\r/);
  });

  it('reads each Slack answer: 400 invalid_blocks and 404 channel_not_found abandon (health failing), 429 waits Retry-After, 5xx retries', async () => {
    const { orgId, ids } = await orgWith(['slack']);
    const d = ids.slack!;
    slack.failNext(1, { kind: 'reply', reply: { status: 400, headers: { 'content-type': 'text/plain' }, body: 'invalid_blocks' } });
    await openAlert(t, orgId, { sourceId: 'a400', title: 'A' });
    await afterWindow();
    expect((await rows(d)).at(-1)).toMatchObject({ status: 'abandoned', last_status_code: 400 });
    expect((await rows(d)).at(-1).last_error).toMatch(/invalid_blocks/);

    slack.failNext(1, { kind: 'reply', reply: { status: 404, headers: { 'content-type': 'text/plain' }, body: 'channel_not_found' } });
    await openAlert(t, orgId, { sourceId: 'a404', title: 'B' });
    await afterWindow();
    expect((await rows(d)).at(-1)).toMatchObject({ status: 'abandoned', last_status_code: 404 });
    expect((await rows(d)).at(-1).last_error).toMatch(/channel_not_found.*add a new incoming webhook/);
    const health = (await t.admin('GET', `/orgs/${orgId}/destinations/${d}`)).json().health;
    expect(health).toMatchObject({ state: 'failing', consecutiveFailures: 2 });

    slack.failNext(1, { kind: 'reply', reply: { status: 410, headers: { 'content-type': 'text/plain' }, body: 'channel_is_archived' } });
    await openAlert(t, orgId, { sourceId: 'a410', title: 'C' });
    await afterWindow();
    expect((await rows(d)).at(-1)).toMatchObject({ status: 'abandoned', last_status_code: 410 });

    // 429 with Retry-After: the group (two incidents) waits that long, then both go out in one message.
    slack.failNext(1, { kind: 'reply', reply: { status: 429, headers: { 'content-type': 'text/plain', 'retry-after': '120' }, body: 'rate_limited' } });
    await sendSignals(t, orgId, [signal({ sourceId: 'r1', title: 'R1' }), signal({ sourceId: 'r2', title: 'R2' })]);
    await afterWindow();
    const waiting = (await rows(d)).slice(-2);
    expect(waiting.map((r) => r.status)).toEqual(['pending', 'pending']);
    expect(waiting.map((r) => new Date(r.next_attempt_at).getTime() - clock.now().getTime())).toEqual([120_000, 120_000]);
    const before = slack.messages.length;
    await afterWindow(60);
    expect(slack.messages.length).toBe(before);
    slack.failNext(1, { kind: 'reply', reply: { status: 503, headers: { 'content-type': 'text/plain' }, body: 'rollup_error' } });
    await afterWindow(61);
    expect((await rows(d)).slice(-2).map((r) => [r.status, r.last_status_code])).toEqual([['pending', 503], ['pending', 503]]);
    await afterWindow(5 * 60);
    expect(slack.messages.length).toBe(before + 1);
    expect(slack.messages.at(-1)!.text).toBe('2 incidentes abertos');
    expect((await rows(d)).slice(-2).map((r) => [r.status, r.attempts])).toEqual([['succeeded', 3], ['succeeded', 3]]);
  });

  it('reads Teams answers: 202 succeeds, 429 retries, 404 abandons saying the workflow is gone', async () => {
    const { orgId, ids } = await orgWith(['teams']);
    teams.failNext(1, { kind: 'reply', reply: { status: 429, headers: { 'retry-after': '90' }, body: { error: { code: 'TooManyRequests', message: 'Rate limit' } } } });
    await openAlert(t, orgId, { sourceId: 't429', title: 'T' });
    await afterWindow();
    expect((await rows(ids.teams!)).at(-1)).toMatchObject({ status: 'pending', last_status_code: 429 });
    await afterWindow(90);
    expect((await rows(ids.teams!)).at(-1)).toMatchObject({ status: 'succeeded', last_status_code: 202, attempts: 2 });
    teams.failNext(1, { kind: 'reply', reply: { status: 404, body: { error: { code: 'WorkflowNotFound', message: 'gone' } } } });
    await openAlert(t, orgId, { sourceId: 't404', title: 'U' });
    await afterWindow();
    const last = (await rows(ids.teams!)).at(-1);
    expect(last).toMatchObject({ status: 'abandoned', last_status_code: 404 });
    expect(last.last_error).toMatch(/deleted or turned off/);
    expect(last.last_error).not.toContain(teams.sig);
  });

  it('the Test action sends a marked sample message now and records it', async () => {
    const { orgId, ids } = await orgWith(['teams', 'slack']);
    const res = await t.admin('POST', `/orgs/${orgId}/destinations/${ids.teams}/test`);
    expect(res.statusCode).toBe(200);
    expect(res.json()).toMatchObject({ ok: true, steps: [{ action: 'send', ok: true, statusCode: 202 }] });
    expect(res.json().message).toMatch(/histórico de execuções do fluxo/);
    expect(JSON.stringify(teams.cards.at(-1))).toContain('[TESTE]');
    const s = await t.admin('POST', `/orgs/${orgId}/destinations/${ids.slack}/test`);
    expect(s.json()).toMatchObject({ ok: true, steps: [{ action: 'send', ok: true, statusCode: 200 }] });
    expect(slack.messages.at(-1)!.text).toMatch(/\[TESTE\]/);
  });
});
