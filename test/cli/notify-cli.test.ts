/**
 * `vigia orgs settings` and `vigia destinations create` (docs/notifications.md) against the app
 * listening on loopback: settings shown and changed, an e-mail destination created from
 * flags, a Slack one printing the Request URL the server gives, bad input refused with the
 * server's or the command's reason.
 */
import { Readable } from 'node:stream';
import type { AddressInfo } from 'node:net';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { createDestination, destinationBody, orgSettings } from '../../src/cli/notify.js';
import type { AdminTarget } from '../../src/cli/admin-target.js';
import { createTestApp, TEST_ADMIN_TOKEN, type TestApp } from '../helpers/context.js';
import { createOrg } from '../helpers/fixtures.js';

describe('vigia orgs settings / destinations create', () => {
  let t: TestApp;
  let target: AdminTarget;
  let orgId: string;
  const lines: string[] = [];
  const out = (l: string) => lines.push(l);

  beforeAll(async () => {
    t = await createTestApp({ env: { VIGIA_SMTP_URL: 'smtp://127.0.0.1:2525', VIGIA_SMTP_FROM: 'alertas@vigia.example.test' }, config: { destinationAllowlist: ['127.0.0.1'] } });
    await t.app.listen({ host: '127.0.0.1', port: 0 });
    target = { url: `http://127.0.0.1:${(t.app.server.address() as AddressInfo).port}`, token: TEST_ADMIN_TOKEN };
    orgId = (await createOrg(t, { name: 'CLI org' })).id;
  });
  afterAll(() => t.close());

  it('shows the settings, then changes language, time zone and the sign-in rule', async () => {
    lines.length = 0;
    await orgSettings(target, orgId, {}, out);
    expect(lines).toEqual([`CLI org (${orgId})`, '  language: pt-BR', '  time zone: America/Sao_Paulo', '  acknowledge links require sign-in: off']);
    lines.length = 0;
    await orgSettings(target, orgId, { language: 'en', timeZone: 'Europe/Lisbon', ackRequiresSignIn: 'on', json: true }, out);
    expect(JSON.parse(lines.join('\n'))).toEqual({ language: 'en', timeZone: 'Europe/Lisbon', ackRequiresSignIn: true });
    expect((await t.admin('GET', `/orgs/${orgId}`)).json()).toMatchObject({ language: 'en', timeZone: 'Europe/Lisbon', ackRequiresSignIn: true });
    await expect(orgSettings(target, orgId, { ackRequiresSignIn: 'maybe' }, out)).rejects.toThrow('--ack-requires-sign-in takes on or off');
    await expect(orgSettings(target, orgId, { timeZone: 'Mars/Olympus' }, out)).rejects.toThrow(/answered 400/);
  });

  it('creates an e-mail destination; refuses a missing URL or recipient and a secret on the wrong kind', async () => {
    lines.length = 0;
    await createDestination(target, orgId, { kind: 'email', name: 'BI', recipient: ['bi@example.com', 'ops@example.com'] }, Readable.from([]), out);
    const id = /created email destination BI: (\S+)/.exec(lines[0]!)![1]!;
    expect((await t.admin('GET', `/orgs/${orgId}/destinations/${id}`)).json()).toMatchObject({ kind: 'email', config: { recipients: ['bi@example.com', 'ops@example.com'] } });
    await expect(destinationBody({ kind: 'email', name: 'x' }, Readable.from([]))).rejects.toThrow('--recipient');
    await expect(destinationBody({ kind: 'teams', name: 'x' }, Readable.from([]))).rejects.toThrow('--url-file <file> or --url-stdin');
    await expect(destinationBody({ kind: 'pager', name: 'x' }, Readable.from([]))).rejects.toThrow('--kind must be teams, slack or email');
    const slack = await destinationBody({ kind: 'slack', name: 's', urlStdin: true }, Readable.from(['https://hooks.slack.com/services/T0/B0/abc\n']));
    expect(slack).toEqual({ name: 's', kind: 'slack', credentials: { webhookUrl: 'https://hooks.slack.com/services/T0/B0/abc' } });
  });

  it('creates a Slack destination and prints the Request URL the server gives (its public address, not the one the CLI used)', async () => {
    lines.length = 0;
    await createDestination(target, orgId, { kind: 'slack', name: '#bi', urlStdin: true }, Readable.from(['https://127.0.0.1:9/services/T0FAKE01/B0FAKE02/abcdefghijkl\n']), out);
    const id = /created slack destination #bi: (\S+)/.exec(lines[0]!)![1]!;
    expect(lines[1]).toBe(`  Slack interactivity Request URL: https://vigia.example.test/api/inbound/v1/slack/${id}`);
    expect(lines.join('\n')).not.toContain(target.url);
  });
});
