/**
 * The acknowledge link inside a delivered Teams card (issue 37 item 4): the real dispatcher posts
 * the opening to the Teams fake with "Reconhecer" (an Action.OpenUrl to the signed link) and
 * "Ver no Vigia"; the link's page acknowledges on POST; the Teams destination gets no echo.
 */
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { ManualClock } from '../../src/clock.js';
import { startDispatcher } from '../../src/delivery/dispatcher.js';
import { createTestApp, type TestApp } from '../helpers/context.js';
import { createOrg, openAlert } from '../helpers/fixtures.js';
import { until } from '../delivery/support.js';
import { TeamsFake } from '../fakes/chat.js';

describe('acknowledge link in a Teams card', () => {
  const teams = new TeamsFake();
  let t: TestApp;

  beforeAll(async () => {
    await teams.start();
    t = await createTestApp({ clock: new ManualClock('2026-06-15T12:00:00.000Z'), config: { destinationAllowlist: ['127.0.0.1'], deliveryTimeoutMs: 2000 } });
  });
  afterAll(async () => {
    await t.close();
    await teams.stop();
  });

  it('carries Reconhecer for the open incident; the link acknowledges without echo', async () => {
    const org = await createOrg(t);
    const d = await t.admin('POST', `/orgs/${org.id}/destinations`, { name: 'Canal BI', kind: 'teams', config: { groupWaitSeconds: 0 }, credentials: { webhookUrl: teams.webhookUrl() } });
    expect(d.statusCode, d.body).toBe(201);
    const alertId = await openAlert(t, org.id, { sourceId: 'ds-teams' });
    const worker = await startDispatcher(t.ctx);
    try {
      await until(async () => teams.cards.length === 1, 20_000, 'the Teams card');
    } finally {
      await worker.stop();
    }
    expect(teams.violations).toEqual([]);
    const card = JSON.stringify(teams.cards[0]);
    const ackUrl = /"(https:\/\/vigia\.example\.test\/ack\/[^"]+)"/.exec(card)?.[1];
    expect(ackUrl).toBeDefined();
    expect(card).toContain('Reconhecer');
    expect(card).toContain(`https://vigia.example.test/alerts/${alertId}`);
    const path = new URL(ackUrl!).pathname;
    expect((await t.app.inject({ method: 'GET', url: path })).statusCode).toBe(200);
    const done = await t.app.inject({ method: 'POST', url: path, headers: { 'content-type': 'application/x-www-form-urlencoded' }, payload: '' });
    expect(done.statusCode).toBe(200);
    expect((await t.admin('GET', `/orgs/${org.id}/alerts/${alertId}`)).json().acknowledgedBy).toBe('Canal BI');
    const { rows } = await t.ctx.db.query<{ event: string }>('SELECT event FROM deliveries WHERE destination_id = $1', [d.json().id]);
    expect(rows.map((r) => r.event)).toEqual(['alert.opened']);
  });
});
