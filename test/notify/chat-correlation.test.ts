/**
 * Correlated children never post on their own (issue 37 item 3; docs/notifications.md, "No
 * floods"; docs/alerts.md, "Correlation"): signals through the admin signals API and the real
 * alert engine, the real dispatcher, and the Teams and Slack HTTPS fakes. A gateway goes offline,
 * then 200 refreshes behind it fail: ONE message reaches each fake — the gateway's — and no
 * child has a delivery. In the other order (the failures first, the gateway within the window)
 * it is one grouped message per destination. When the gateway recovers, the children still
 * failing are released together: one grouped message, not 200.
 */
import { beforeAll, describe, expect, it } from 'vitest';
import type { ManualClock } from '../../src/clock.js';
import type { Dispatcher } from '../../src/delivery/dispatcher.js';
import type { TestApp } from '../helpers/context.js';
import { createOrg, resolveAlert, sendSignals, signal, type SignalInput } from '../helpers/fixtures.js';
import { useChatPipeline } from './chat-pipeline.js';


describe('a storm behind one offline gateway at Teams and Slack', () => {
  const h = useChatPipeline();
  const { teams, slack } = h;
  let t: TestApp;
  let clock: ManualClock;
  let worker: Dispatcher;
  beforeAll(() => ({ t, clock, worker } = h));

  /** An organization with one Teams and one Slack destination (group window: the default 30 s). */
  async function org(): Promise<{ orgId: string; destinations: string[] }> {
    const orgId = (await createOrg(t)).id as string;
    const destinations: string[] = [];
    for (const [kind, webhookUrl] of [['teams', teams.webhookUrl()], ['slack', slack.webhookUrl()]] as const) {
      const res = await t.admin('POST', `/orgs/${orgId}/destinations`, { name: kind, kind, credentials: { webhookUrl } });
      expect(res.statusCode, res.body).toBe(201);
      destinations.push(res.json().id);
    }
    return { orgId, destinations };
  }

  const gateway = (id: string) => signal({ sourceType: 'Gateway', sourceId: id, sourceName: id, notificationKind: 'GatewayOffline', title: `Gateway ${id} offline`, message: 'The gateway stopped answering.' });
  /** What the refreshes collector sends for a model behind the gateway: its failure, naming the gateway as a cause. */
  const refreshFailures = (gatewayId: string, n: number, from = 0): SignalInput[] =>
    Array.from({ length: n }, (_, i) =>
      signal({
        sourceType: 'Dataset',
        sourceId: `model-${String(from + i).padStart(3, '0')}`,
        sourceName: `Model ${from + i}`,
        notificationKind: 'RefreshFailed',
        title: `Refresh failed: Model ${String(from + i).padStart(3, '0')}`,
        message: 'DM_GWPipeline_Client_GatewayUnreachable',
        causes: [{ sourceType: 'Gateway', sourceId: gatewayId }],
      }),
    );

  async function deliveriesOf(alertIds: string[]): Promise<number> {
    const { rows } = await t.ctx.db.query<{ n: number }>('SELECT count(*)::int AS n FROM deliveries WHERE alert_id = ANY($1::text[]) AND NOT test', [alertIds]);
    return rows[0]!.n;
  }
  /** Posts that reached the fakes since `mark`: Teams cards (as JSON text) and Slack bodies. */
  const mark = () => ({ teams: teams.cards.length, slack: slack.messages.length });
  const since = (m: ReturnType<typeof mark>) => ({ teams: teams.cards.slice(m.teams).map((c) => JSON.stringify(c)), slack: slack.messages.slice(m.slack) });

  it('gateway first, then 200 failures behind it: one message per destination, the gateway\'s; no child delivery', async () => {
    const { orgId } = await org();
    const before = mark();
    const [gw] = await sendSignals(t, orgId, gateway('gw-storm'));
    expect(gw!.outcome).toBe('opened');
    clock.advance(5_000);
    const storm = await sendSignals(t, orgId, refreshFailures('gw-storm', 200));
    expect(storm.every((o) => o.outcome === 'opened' && o.correlated === true)).toBe(true);
    expect(await deliveriesOf(storm.map((o) => o.alertId!))).toBe(0);
    await worker.pass();
    expect(since(before)).toEqual({ teams: [], slack: [] });

    clock.advance(30_000);
    await worker.pass();
    const sent = since(before);
    expect(sent.teams).toHaveLength(1);
    expect(sent.teams[0]).toContain('ERRO · Gateway gw-storm offline');
    expect(sent.teams[0]).not.toContain('Refresh failed');
    expect(sent.slack).toHaveLength(1);
    expect(sent.slack[0]!.text).toBe('ERRO · Incidente aberto: Gateway gw-storm offline');
    expect(JSON.stringify(sent.slack[0])).not.toContain('Refresh failed');
    // Later passes send nothing more: no child was ever queued.
    clock.advance(3_600_000);
    await worker.pass();
    expect(since(before).teams).toHaveLength(1);
    expect(since(before).slack).toHaveLength(1);
    expect(await deliveriesOf(storm.map((o) => o.alertId!))).toBe(0);
  });

  it('the gateway and its failures in one batch: still one message, the gateway\'s', async () => {
    const { orgId } = await org();
    const before = mark();
    const out = await sendSignals(t, orgId, [gateway('gw-batch'), ...refreshFailures('gw-batch', 200)]);
    const children = out.slice(1);
    expect(children.every((o) => o.correlated === true)).toBe(true);
    clock.advance(31_000);
    await worker.pass();
    const sent = since(before);
    expect(sent.teams).toHaveLength(1);
    expect(sent.teams[0]).toContain('Gateway gw-batch offline');
    expect(sent.slack.map((m) => m.text)).toEqual(['ERRO · Incidente aberto: Gateway gw-batch offline']);
    expect(await deliveriesOf(children.map((o) => o.alertId!))).toBe(0);
  });

  it('the failures first, the gateway within the window: one grouped message per destination for the window', async () => {
    const { orgId, destinations } = await org();
    const before = mark();
    const first = await sendSignals(t, orgId, refreshFailures('gw-late', 100));
    clock.advance(10_000);
    const second = await sendSignals(t, orgId, refreshFailures('gw-late', 100, 100));
    // The gateway was not known to be down: these are not correlated and each has its delivery.
    expect([...first, ...second].every((o) => o.outcome === 'opened' && !o.correlated)).toBe(true);
    clock.advance(10_000);
    const [gw] = await sendSignals(t, orgId, gateway('gw-late'));
    // Failures after the gateway is known to be down are correlated: no delivery at all.
    clock.advance(5_000);
    const after = await sendSignals(t, orgId, refreshFailures('gw-late', 50, 200));
    expect(after.every((o) => o.correlated === true)).toBe(true);
    await worker.pass();
    expect(since(before)).toEqual({ teams: [], slack: [] });

    clock.advance(5_000); // 30 s after the first failure: the group is due
    await worker.pass();
    const sent = since(before);
    expect(sent.teams).toHaveLength(1);
    expect(sent.slack).toHaveLength(1);
    expect(sent.teams[0]).toContain('201 incidentes abertos');
    expect(sent.teams[0]).toContain('e mais 191');
    expect(sent.slack[0]!.text).toBe('201 incidentes abertos');
    expect(JSON.stringify(sent.slack[0]!.blocks)).toContain('e mais 191');
    // The gateway, though it opened last, heads the list (what the others depend on comes
    // first); then nine of the oldest openings (the first batch, one instant: in any order among
    // them); the other 191 are counted.
    for (const body of [sent.teams[0]!, JSON.stringify(sent.slack[0])]) {
      const listed = [...body.matchAll(/Refresh failed: Model (\d{3})/g)].map((m) => Number(m[1]));
      expect(new Set(listed).size).toBe(9);
      expect(listed.every((n) => n < 100)).toBe(true);
      expect(body).toContain('Gateway gw-late offline');
      expect(body.indexOf('Gateway gw-late offline')).toBeLessThan(body.indexOf('Refresh failed: Model'));
    }
    const { rows } = await t.ctx.db.query<{ destination_id: string; n: number; groups: number; succeeded: number }>(
      `SELECT destination_id, count(*)::int AS n, count(DISTINCT group_id)::int AS groups, count(*) FILTER (WHERE status = 'succeeded')::int AS succeeded
         FROM deliveries WHERE org_id = $1 AND NOT test GROUP BY destination_id ORDER BY destination_id`,
      [orgId],
    );
    expect(rows.map((r) => [r.n, r.groups, r.succeeded])).toEqual(destinations.map(() => [201, 1, 201]));
    expect(await deliveriesOf([gw!.alertId!])).toBe(2);
    expect(await deliveriesOf(after.map((o) => o.alertId!))).toBe(0);
  });

  it('when the gateway recovers, the children still failing are released together: one grouped message, not 200', async () => {
    const { orgId } = await org();
    const [gw] = await sendSignals(t, orgId, gateway('gw-back'));
    const storm = await sendSignals(t, orgId, refreshFailures('gw-back', 200));
    clock.advance(31_000);
    await worker.pass();
    const before = mark();
    clock.advance(60_000);
    await resolveAlert(t, orgId, gw!.alertId!);
    await worker.pass(); // the gateway's recovery goes out now; the released openings gather
    clock.advance(31_000);
    await worker.pass();
    const sent = since(before);
    expect(sent.teams).toHaveLength(2);
    expect(sent.teams[0]).toContain('Incidente resolvido');
    expect(sent.teams[1]).toContain('200 incidentes abertos');
    expect(sent.slack.map((m) => m.text)).toEqual(['ERRO · Incidente resolvido: Gateway gw-back offline', '200 incidentes abertos']);
    expect(await deliveriesOf(storm.map((o) => o.alertId!))).toBe(400);
  });
});
