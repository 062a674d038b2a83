/**
 * The vendor answers chat-delivery.test.ts does not cover (issue 37 item 6; vendor-specs
 * chat-and-email §1.4, §2.2), through the real dispatcher and the HTTPS fakes, as a user sees
 * them: the delivery's status, last error and attempts, and the destination's health. Slack 403
 * (`invalid_token`, `action_prohibited`) is final — never retried — and says what it means;
 * Teams 401 (a URL whose signature no longer holds: the fake checks `sig`) and 403 are final
 * with the workflow's own error code; Teams 5xx is retried by the retry policy (two waits here:
 * three attempts), then failed, and the health turns failing; a later success makes it healthy.
 */
import { beforeAll, describe, expect, it } from 'vitest';
import type { ManualClock } from '../../src/clock.js';
import type { Dispatcher } from '../../src/delivery/dispatcher.js';
import type { TestApp } from '../helpers/context.js';
import { createOrg, openAlert } from '../helpers/fixtures.js';
import { useChatPipeline } from './chat-pipeline.js';

const SLACK_SECRET = 'fakeSecret0123456789abcd';

describe('teams and slack: what each refusal looks like to a user', () => {
  const h = useChatPipeline({ retryScheduleMs: [60_000, 300_000] }, [SLACK_SECRET]);
  const { teams, slack } = h;
  let t: TestApp;
  let clock: ManualClock;
  let worker: Dispatcher;
  /** The organization of the destination made last: one destination each, so one delivery per incident. */
  let orgId: string;
  const orgOf = new Map<string, string>();
  beforeAll(() => ({ t, clock, worker } = h));

  /** A destination alone in a new organization (a clean health record), sending each opening at once. */
  async function destination(kind: 'teams' | 'slack', webhookUrl: string): Promise<string> {
    orgId = (await createOrg(t, { language: 'en' })).id;
    const res = await t.admin('POST', `/orgs/${orgId}/destinations`, { name: kind, kind, credentials: { webhookUrl }, config: { groupWaitSeconds: 0 } });
    expect(res.statusCode, res.body).toBe(201);
    orgOf.set(res.json().id, orgId);
    return res.json().id;
  }
  async function delivery(destId: string) {
    const { rows } = await t.ctx.db.query<any>('SELECT status, attempts, last_status_code, last_error FROM deliveries WHERE destination_id = $1 AND NOT test', [destId]);
    expect(rows).toHaveLength(1);
    return rows[0];
  }
  async function attemptCount(destId: string): Promise<number> {
    const { rows } = await t.ctx.db.query<{ n: number }>('SELECT count(*)::int AS n FROM delivery_attempts a JOIN deliveries d ON d.id = a.delivery_id WHERE d.destination_id = $1', [destId]);
    return rows[0]!.n;
  }
  const view = async (destId: string) => (await t.admin('GET', `/orgs/${orgOf.get(destId)}/destinations/${destId}`)).json();
  /** Opens one incident and lets the dispatcher run what is due now. */
  async function openAndSend(sourceId: string): Promise<void> {
    await openAlert(t, orgId, { sourceType: 'Dataset', sourceId, title: `Refresh failed: ${sourceId}` });
    await worker.pass();
  }
  const slackAnswer = (status: number, body: string) => ({ kind: 'reply' as const, reply: { status, headers: { 'content-type': 'text/plain' }, body } });

  it('Slack 403 invalid_token and action_prohibited: abandoned on the first answer, never retried, each saying what it means; health failing', async () => {
    const d1 = await destination('slack', slack.webhookUrl());
    slack.failNext(1, slackAnswer(403, 'invalid_token'));
    await openAndSend('s403-token');
    expect(await delivery(d1)).toMatchObject({ status: 'abandoned', attempts: 1, last_status_code: 403 });
    expect((await delivery(d1)).last_error).toBe(
      "Slack: the webhook no longer posts (403 invalid_token): the webhook's token is no longer valid (the webhook was revoked or its app reinstalled); add a new incoming webhook and save its URL here",
    );
    expect((await view(d1)).health).toMatchObject({ state: 'failing', consecutiveFailures: 1, successRate24h: 0 });

    const d2 = await destination('slack', slack.webhookUrl());
    slack.failNext(1, slackAnswer(403, 'action_prohibited'));
    const posts = slack.requests.length;
    await openAndSend('s403-prohibited');
    expect(await delivery(d2)).toMatchObject({ status: 'abandoned', attempts: 1, last_status_code: 403 });
    expect((await delivery(d2)).last_error).toMatch(/^Slack: the webhook no longer posts \(403 action_prohibited\): a workspace admin restricts what this webhook may post/);
    // Nothing more is sent for either, however long the clock runs.
    clock.advance(3 * 3_600_000);
    await worker.pass();
    expect(slack.requests.length - posts).toBe(1);
    expect(await attemptCount(d1)).toBe(1);
    expect(await attemptCount(d2)).toBe(1);
    expect((await view(d2)).health).toMatchObject({ state: 'failing', consecutiveFailures: 1 });
  });

  it('Teams 401 (the URL\'s signature no longer holds) and 403: abandoned at once with the workflow\'s error code and what to do; health failing', async () => {
    const stale = teams.webhookUrl().replace(`sig=${teams.sig}`, 'sig=an-old-signature-0123456789');
    const d1 = await destination('teams', stale);
    await openAndSend('t401');
    const r401 = await delivery(d1);
    expect(r401).toMatchObject({ status: 'abandoned', attempts: 1, last_status_code: 401 });
    expect(r401.last_error).toBe(
      'Teams workflow refused the call (401 — DirectApiAuthorizationRequired: The request must be authenticated.): the URL\'s signature is no longer valid or the trigger accepts only signed-in users; set "Who can trigger the flow" to Anyone or create the URL again',
    );
    expect(r401.last_error).not.toContain('an-old-signature');
    expect((await view(d1)).health).toMatchObject({ state: 'failing', consecutiveFailures: 1 });

    const d2 = await destination('teams', teams.webhookUrl());
    teams.failNext(1, { kind: 'reply', reply: { status: 403, body: { error: { code: 'MisMatchingOAuthClaims', message: 'One or more claims either missing or does not match with the open authentication access control policy.' } } } });
    await openAndSend('t403');
    const r403 = await delivery(d2);
    expect(r403).toMatchObject({ status: 'abandoned', attempts: 1, last_status_code: 403 });
    expect(r403.last_error).toMatch(/^Teams workflow refused the call \(403 — MisMatchingOAuthClaims: One or more claims .*\): .*set "Who can trigger the flow" to Anyone/);
    clock.advance(3 * 3_600_000);
    await worker.pass();
    expect(await attemptCount(d1)).toBe(1);
    expect(await attemptCount(d2)).toBe(1);
    expect((await view(d2)).health).toMatchObject({ state: 'failing', consecutiveFailures: 1 });
  });

  it('Teams 5xx: retried by the retry policy (1 min, then 5 min), failed after the third answer, health failing; the next success makes it healthy', async () => {
    const d = await destination('teams', teams.webhookUrl());
    const cards = teams.cards.length;
    const unavailable = { kind: 'reply' as const, reply: { status: 502, body: { error: { code: 'BadGateway', message: 'The service is unavailable.' } } } };
    teams.failNext(3, unavailable);
    await openAndSend('t502');
    expect(await delivery(d)).toMatchObject({ status: 'pending', attempts: 1, last_status_code: 502, last_error: 'Teams workflow answered 502: BadGateway: The service is unavailable.' });
    // While it is retried the destination has not failed yet: health counts a delivery when it ends.
    expect((await view(d)).health).toMatchObject({ state: 'healthy', consecutiveFailures: 0 });
    clock.advance(59_000);
    await worker.pass();
    expect((await delivery(d)).attempts).toBe(1);
    clock.advance(1_000);
    await worker.pass();
    expect(await delivery(d)).toMatchObject({ status: 'pending', attempts: 2, last_status_code: 502 });
    clock.advance(300_000);
    await worker.pass();
    expect(await delivery(d)).toMatchObject({ status: 'failed', attempts: 3, last_status_code: 502, last_error: 'Teams workflow answered 502: BadGateway: The service is unavailable.' });
    expect(await attemptCount(d)).toBe(3);
    expect(teams.cards.length).toBe(cards);
    expect((await view(d)).health).toMatchObject({ state: 'failing', consecutiveFailures: 1 });
    clock.advance(3_600_000);
    await worker.pass();
    expect(await attemptCount(d)).toBe(3);

    // The workflow is back: the next incident goes out and the destination is healthy again.
    await openAndSend('t502-after');
    expect(teams.cards.length).toBe(cards + 1);
    expect((await view(d)).health).toMatchObject({ state: 'healthy', consecutiveFailures: 0 });
  });
});
