/**
 * Teams Workflows and Slack incoming-webhook fakes (vendor-specs chat-and-email §1.4, §1.9, §2.2):
 * real HTTPS servers on loopback that validate each body against the committed contracts
 * (contracts/teams-workflows.json: the envelope and the Adaptive Card 1.5 schema, minus the
 * `msteams` host extension; contracts/slack-webhook.json: Block Kit limits) and answer as the
 * vendors do — Teams 202 with an empty body (400 `{ error: { code, message } }` for a bad body,
 * 413 over 28 KB); Slack 200 `ok` (400 `invalid_blocks` / `invalid_payload` for a bad body).
 * Other answers (403, 404 channel_not_found, 410, 429 + Retry-After, 5xx) are programmed with
 * failNext. `messages` keeps every accepted body.
 */
import { loadContract } from '../../src/contracts/index.js';
import { FakeVendor, contentTypeIs, type FakeReply, type RecordedRequest } from './fake-server.js';
import { matchOperation, validateOperation } from './spec.js';

const teamsSpec = loadContract('teams-workflows');
const slackSpec = loadContract('slack-webhook');

/** About 28 KB: the posted-message ceiling of the Teams connector (README §1.5). */
export const TEAMS_FAKE_MAX_BYTES = 28 * 1024;

export const TEAMS_FAKE_PATH = '/powerautomate/automations/direct/workflows/0123456789abcdef0123456789abcdef/triggers/manual/paths/invoke';

export class TeamsFake extends FakeVendor {
  /** The cards accepted, in order. */
  readonly cards: Array<Record<string, unknown>> = [];
  readonly sig = 'fAkE-sig_0123456789abcdefghijklmnopqrstuv';

  /** A webhook URL of this fake (the test allowlist lets the credential rule accept 127.0.0.1). */
  webhookUrl(): string {
    return `${this.url}${TEAMS_FAKE_PATH}?api-version=1&sp=%2Ftriggers%2Fmanual%2Frun&sv=1.0&sig=${this.sig}`;
  }

  protected violationReply(errors: string[]): FakeReply {
    return { status: 400, body: { error: { code: 'InvalidRequestContent', message: errors.slice(0, 3).join('; ') } } };
  }

  protected handle(r: RecordedRequest): FakeReply {
    const m = matchOperation(teamsSpec, r.method, r.path);
    if (!m) return { status: 404, body: { error: { code: 'WorkflowNotFound', message: 'The workflow was not found.' } } };
    if (r.query.get('sig') !== this.sig) return { status: 401, body: { error: { code: 'DirectApiAuthorizationRequired', message: 'The request must be authenticated.' } } };
    if (!contentTypeIs(r, 'application/json')) return this.violate(r, ['content-type must be application/json']);
    if (Buffer.byteLength(r.body, 'utf8') > TEAMS_FAKE_MAX_BYTES) {
      r.violations.push('body over 28 KB');
      return { status: 413, body: { error: { code: 'RequestEntityTooLarge', message: 'Request Entity too large' } } };
    }
    // The open schema has no room for hosts' extensions: `msteams` is allowed, then removed.
    const body = structuredClone(r.json) as { attachments?: Array<{ content?: Record<string, unknown> }> };
    for (const a of body?.attachments ?? []) if (a.content) delete a.content.msteams;
    const errors = validateOperation(teamsSpec, m, r.query, body);
    if (errors.length > 0) return this.violate(r, errors);
    for (const a of body.attachments ?? []) this.cards.push(a.content!);
    return { status: 202 };
  }
}

export class SlackFake extends FakeVendor {
  /** The `{ text, blocks }` bodies accepted, in order. */
  readonly messages: Array<{ text: string; blocks?: Array<Record<string, unknown>> }> = [];
  readonly hookPath = '/services/T0FAKE01/B0FAKE02/fakeSecret0123456789abcd';

  webhookUrl(): string {
    return `${this.url}${this.hookPath}`;
  }

  protected violationReply(errors: string[]): FakeReply {
    return { status: 400, headers: { 'content-type': 'text/plain', 'x-fake-errors': errors.slice(0, 2).join('; ').slice(0, 200) }, body: 'invalid_blocks' };
  }

  protected handle(r: RecordedRequest): FakeReply {
    const m = matchOperation(slackSpec, r.method, r.path);
    if (!m || r.path !== this.hookPath) return { status: 404, headers: { 'content-type': 'text/plain' }, body: 'no_service' };
    if (!contentTypeIs(r, 'application/json') || r.json === undefined) {
      r.violations.push('not a JSON body');
      return { status: 400, headers: { 'content-type': 'text/plain' }, body: 'invalid_payload' };
    }
    const errors = validateOperation(slackSpec, m, r.query, r.json);
    if (errors.length > 0) return this.violate(r, errors);
    this.messages.push(r.json as SlackFake['messages'][number]);
    return { status: 200, headers: { 'content-type': 'text/plain' }, body: 'ok' };
  }
}
