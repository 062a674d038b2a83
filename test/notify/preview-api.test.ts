/**
 * The message preview (issue 37 item 5; docs/notifications.md, "Preview in the console"): a
 * sample incident rendered by the real renderers in the organization's language and time zone,
 * valid against the vendors' contracts (the Teams envelope with its Adaptive Card 1.5, Slack's
 * Block Kit limits), the e-mail's subject, text and HTML; bad input is a 400.
 */
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { loadContract } from '../../src/contracts/index.js';
import { createTestApp, type TestApp } from '../helpers/context.js';
import { createOrg } from '../helpers/fixtures.js';
import { matchOperation, validateOperation } from '../fakes/spec.js';
import { TEAMS_FAKE_PATH } from '../fakes/chat.js';

describe('POST /orgs/{orgId}/destinations/preview', () => {
  let t: TestApp;
  let orgId: string;
  beforeAll(async () => {
    t = await createTestApp();
    orgId = (await createOrg(t)).id;
  });
  afterAll(() => t.close());

  const preview = (body: Record<string, unknown>, org = orgId) => t.admin('POST', `/orgs/${org}/destinations/preview`, body);
  function valid(contract: 'teams-workflows' | 'slack-webhook', path: string, body: string): string[] {
    const spec = loadContract(contract);
    const m = matchOperation(spec, 'POST', path)!;
    expect(m).toBeTruthy();
    const query = contract === 'teams-workflows' ? new URLSearchParams('api-version=1&sp=%2Ftriggers%2Fmanual%2Frun&sv=1.0&sig=x') : new URLSearchParams();
    // As the Teams fake does: the open card schema has no room for the host's `msteams` extension.
    const json = JSON.parse(body) as { attachments?: Array<{ content?: Record<string, unknown> }> };
    for (const a of json.attachments ?? []) if (a.content) delete a.content.msteams;
    return validateOperation(spec, m, query, json);
  }

  it('teams: the Adaptive Card envelope, valid, in Portuguese with Reconhecer and Ver no Vigia', async () => {
    const res = await preview({ kind: 'teams' });
    expect(res.statusCode, res.body).toBe(200);
    const p = res.json();
    expect(p).toMatchObject({ kind: 'teams', event: 'alert.opened', language: 'pt-BR', timeZone: 'America/Sao_Paulo', contentType: 'application/json' });
    expect(valid('teams-workflows', TEAMS_FAKE_PATH, p.body)).toEqual([]);
    expect(p.body).toContain('Falha na atualização');
    expect(p.body).toContain('Reconhecer');
    expect(p.body).toContain('https://vigia.example.test/ack/v1.');
  });

  it('slack: blocks within the limits; with the signing secret, the buttons', async () => {
    const plain = (await preview({ kind: 'slack' })).json();
    expect(valid('slack-webhook', '/services/T0FAKE01/B0FAKE02/fakeSecret0123456789abcd', plain.body)).toEqual([]);
    expect(JSON.parse(plain.body).blocks.some((b: { type: string }) => b.type === 'actions')).toBe(false);
    const buttons = (await preview({ kind: 'slack', slackButtons: true })).json();
    expect(valid('slack-webhook', '/services/T0FAKE01/B0FAKE02/fakeSecret0123456789abcd', buttons.body)).toEqual([]);
    const actions = JSON.parse(buttons.body).blocks.find((b: { type: string }) => b.type === 'actions');
    expect(actions.elements.map((e: { action_id: string }) => e.action_id)).toEqual(['vigia.ack', 'vigia.resolve']);
    const resolved = (await preview({ kind: 'slack', event: 'alert.recovered', slackButtons: true })).json();
    expect(resolved.body).not.toContain('vigia.ack');
  });

  it('email: subject, text and HTML in the organization language', async () => {
    const en = (await createOrg(t, { name: 'EN', language: 'en', timeZone: 'Europe/Lisbon' })).id;
    const p = (await preview({ kind: 'email' }, en)).json();
    expect(p).toMatchObject({ kind: 'email', language: 'en', timeZone: 'Europe/Lisbon', contentType: 'multipart/alternative' });
    expect(p.email.subject).toBe('[Vigia][ERROR] Refresh failed: Sales (daily)');
    expect(p.email.text).toContain('Acknowledge: https://vigia.example.test/ack/v1.');
    expect(p.email.html).toContain('>Acknowledge</a>');
    expect(p.email.html).toContain('View in Vigia');
    const ack = (await preview({ kind: 'email', event: 'alert.acknowledged' }, en)).json();
    expect(ack.email.text).not.toContain('/ack/');
  });

  it('refuses an unknown kind or event with 400, an unknown organization with 404', async () => {
    expect((await preview({ kind: 'webhook' })).statusCode).toBe(400);
    expect((await preview({ kind: 'teams', event: 'alert.nothing' })).statusCode).toBe(400);
    expect((await preview({ kind: 'teams', extra: 1 })).statusCode).toBe(400);
    expect((await preview({ kind: 'teams' }, 'org_missing')).statusCode).toBe(404);
  });
});
