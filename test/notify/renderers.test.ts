// @engine-neutral: pure rendering checked against the committed contracts, no database
/**
 * The Teams and Slack renderers alone: every body they produce passes the contracts the fakes use
 * (Adaptive Card 1.5 envelope; Block Kit limits), stays within the size limits whatever the
 * input (ten incidents with 500-character titles), and escapes platform text for its medium.
 */
import { describe, expect, it } from 'vitest';
import { loadContract, validateSchema } from '../../src/contracts/index.js';
import { buildNotificationMessage, renderSlack, renderTeams, SLACK_LIMITS, TEAMS_MAX_BYTES } from '../../src/delivery/notify/index.js';
import type { DeliveryBody } from '../../src/outbox/index.js';

const teamsSpec = loadContract('teams-workflows');
const slackSpec = loadContract('slack-webhook');

function body(i: number, title: string, event: DeliveryBody['event'] = 'alert.opened'): DeliveryBody {
  return {
    id: `dlv_${i}`,
    event,
    occurredAt: '2026-06-15T12:00:00.000Z',
    alert: {
      id: `alr_${i}`, title, message: `${'Mensagem longa '.repeat(80)}.`, sourceType: 'Dataset', sourceId: `ds-${i}`,
      workspaceName: 'Finanças & <Vendas>', capacityName: 'F64', severity: i % 2 ? 'error' : 'info', status: 'open', acknowledged: false,
      openedAt: '2026-06-15T12:00:00.000Z', resolvedAt: null, failureCount: 1, url: `https://vigia.example/alerts/alr_${i}`,
    },
  };
}

const teamsErrors = (wire: string) => {
  const json = JSON.parse(wire);
  for (const a of json.attachments) delete a.content.msteams;
  return validateSchema(teamsSpec.root, { $ref: '#/definitions/TeamsMessage' }, json);
};
const slackErrors = (wire: string) => validateSchema(slackSpec.root, { $ref: '#/definitions/SlackMessage' }, JSON.parse(wire));

describe('chat renderers', () => {
  const settings = { language: 'pt-BR' as const, timeZone: 'America/Sao_Paulo' };

  it('stay within the contracts and size limits for a large group of long titles', () => {
    const bodies = Array.from({ length: 40 }, (_, i) => body(i, `Título ${'muito '.repeat(90)}${i}`));
    const m = buildNotificationMessage(bodies, settings, { ackUrls: new Map(bodies.map((b) => [b.alert.id, `https://vigia.example/ack/${b.alert.id}`])) });
    const teams = renderTeams(m);
    expect(Buffer.byteLength(teams)).toBeLessThanOrEqual(TEAMS_MAX_BYTES);
    expect(teamsErrors(teams)).toEqual([]);
    expect(teams).toContain('e mais 30');
    // Errors are listed before info (odd ids are errors here): alr_1 heads the list, alr_0 is counted.
    expect(teams).toContain('[Reconhecer](https://vigia.example/ack/alr_1)');
    expect(teams).not.toContain('alerts/alr_0)');
    const slack = renderSlack(m);
    expect(slackErrors(slack)).toEqual([]);
    expect(JSON.parse(slack).blocks.length).toBeLessThanOrEqual(SLACK_LIMITS.blocks);
  });

  it('the contracts refuse what the vendors refuse', () => {
    const ok = renderTeams(buildNotificationMessage([body(1, 'x')], settings));
    const bad = JSON.parse(ok);
    bad.attachments[0].content.body[0].type = 'TextBlok';
    expect(teamsErrors(JSON.stringify(bad)).join()).toMatch(/matches none/);
    const slack = JSON.parse(renderSlack(buildNotificationMessage([body(1, 'x')], settings)));
    slack.blocks = Array.from({ length: 51 }, () => ({ type: 'divider' }));
    expect(slackErrors(JSON.stringify(slack)).join()).toMatch(/more than 50 items/);
    delete slack.text;
    expect(slackErrors(JSON.stringify(slack)).join()).toMatch(/body.text: required/);
  });

  it('a short update carries no summary and a single link', () => {
    const m = buildNotificationMessage([body(1, 'Gateway offline', 'alert.recovered')], { language: 'en', timeZone: 'UTC' }, { ackUrls: new Map([['alr_1', 'https://vigia.example/ack/1']]) });
    const card = JSON.parse(renderTeams(m)).attachments[0].content;
    expect(card.body.map((b: { text: string }) => b.text)).toEqual(['✅ Incident resolved', 'ERROR · Gateway offline']);
    expect(card.actions).toEqual([{ type: 'Action.OpenUrl', title: 'View in Vigia', url: 'https://vigia.example/alerts/alr_1' }]);
    const slack = JSON.parse(renderSlack(m));
    expect(slack.text).toBe('ERROR · Incident resolved: Gateway offline');
    expect(JSON.stringify(slack)).not.toContain('Acknowledge');
  });

  it('escapes workspace names in both media', () => {
    const m = buildNotificationMessage([body(1, 'x')], settings);
    expect(renderTeams(m)).toContain('Finanças & \\\\<Vendas\\\\>');
    expect(renderSlack(m)).toContain('Finanças &amp; &lt;Vendas&gt;');
  });
});
