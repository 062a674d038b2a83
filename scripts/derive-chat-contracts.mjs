/**
 * The chat contracts (docs/notifications.md), derived by scripts/derive-contracts.mjs:
 *
 * - teams-workflows.json: the Teams Workflows trigger call — POST …/workflows/{id}/triggers/
 *   {trigger}/paths/invoke with `sig` — whose body is the message envelope (vendor-specs
 *   chat-and-email/README.md §1.3) around an Adaptive Card, and the Adaptive Card 1.5 JSON
 *   schema (chat-and-email/adaptive-card-1.5.0.json, microsoft/AdaptiveCards, MIT) with only
 *   the keywords the checker uses (src/contracts/check.ts). The schema is strict
 *   (additionalProperties: false): hosts' extensions such as `msteams` are removed by the caller.
 * - slack-webhook.json: an incoming-webhook POST whose body is `{ text, blocks }` within the
 *   Block Kit limits of chat-and-email/README.md §2.4 (Slack publishes no machine-readable
 *   schema), written here from those notes; its source names the notes and their SHA-256.
 */
import { createHash } from 'node:crypto';
import { readFileSync } from 'node:fs';
import path from 'node:path';

const KEEP = ['type', 'required', 'properties', 'enum', 'items', 'allOf', 'anyOf', 'pattern', 'maxLength', 'minLength', 'minimum', 'maximum', 'maxItems', 'minItems', 'additionalProperties', '$ref'];

function strip(node) {
  if (Array.isArray(node)) return node.map(strip);
  if (node === null || typeof node !== 'object') return node;
  const out = {};
  for (const key of KEEP) {
    if (!(key in node)) continue;
    const v = node[key];
    if (key === 'properties') out.properties = Object.fromEntries(Object.keys(v).sort().map((k) => [k, strip(v[k])]));
    else if (key === 'enum' || key === 'required' || key === 'type' || key === 'pattern' || key === '$ref' || typeof v !== 'object') out[key] = v;
    else out[key] = strip(v);
  }
  return out;
}

const ENVELOPE = {
  type: 'object',
  required: ['type', 'attachments'],
  additionalProperties: false,
  properties: {
    type: { enum: ['message'] },
    attachments: { type: 'array', minItems: 1, items: { $ref: '#/definitions/AdaptiveCardAttachment' } },
  },
};
const ATTACHMENT = {
  type: 'object',
  required: ['contentType', 'content'],
  additionalProperties: false,
  properties: {
    contentType: { enum: ['application/vnd.microsoft.card.adaptive'] },
    contentUrl: { type: 'null' },
    content: { $ref: '#/definitions/AdaptiveCard' },
  },
};

export function deriveTeams(specsDir, provenanceFor) {
  const rel = 'chat-and-email/adaptive-card-1.5.0.json';
  const schema = JSON.parse(readFileSync(path.join(specsDir, rel), 'utf8'));
  const definitions = { ...strip({ properties: schema.definitions }).properties, TeamsMessage: ENVELOPE, AdaptiveCardAttachment: ATTACHMENT };
  const sorted = Object.fromEntries(Object.keys(definitions).sort().map((k) => [k, definitions[k]]));
  const contract = {
    title: 'Microsoft Teams Workflows webhook: the message envelope with an Adaptive Card 1.5',
    derivedBy: 'scripts/derive-contracts.mjs (do not edit by hand)',
    sources: provenanceFor(specsDir, { sources: ['chat-and-email/'] }, [rel]),
    paths: {
      '/powerautomate/automations/direct/workflows/{workflowId}/triggers/{trigger}/paths/invoke': {
        post: {
          operationId: 'Workflows_InvokeTrigger',
          apiVersion: '1',
          consumes: ['application/json'],
          parameters: [
            { name: 'workflowId', in: 'path', required: true },
            { name: 'trigger', in: 'path', required: true },
            { name: 'api-version', in: 'query', required: true },
            { name: 'sig', in: 'query', required: true },
            { name: 'body', in: 'body', required: true, schema: { $ref: '#/definitions/TeamsMessage' } },
          ],
          responses: { 202: {} },
        },
      },
    },
    definitions: sorted,
  };
  return `${JSON.stringify(contract, null, 1)}\n`;
}

const text = (kinds, max) => ({
  type: 'object',
  required: ['type', 'text'],
  additionalProperties: false,
  properties: { type: { enum: kinds }, text: { type: 'string', minLength: 1, maxLength: max }, emoji: { type: 'boolean' }, verbatim: { type: 'boolean' } },
});
const BLOCK_ID = { type: 'string', maxLength: 255 };

/** Block Kit as chat-and-email/README.md §2.4 states its limits (the blocks Vigia sends, and buttons). */
const SLACK_DEFINITIONS = {
  SlackMessage: {
    type: 'object',
    required: ['text'],
    additionalProperties: false,
    properties: {
      text: { type: 'string', minLength: 1, maxLength: 40000 },
      blocks: { type: 'array', maxItems: 50, items: { $ref: '#/definitions/Block' } },
      mrkdwn: { type: 'boolean' },
      unfurl_links: { type: 'boolean' },
      unfurl_media: { type: 'boolean' },
    },
  },
  Block: { anyOf: [{ $ref: '#/definitions/HeaderBlock' }, { $ref: '#/definitions/SectionBlock' }, { $ref: '#/definitions/DividerBlock' }, { $ref: '#/definitions/ContextBlock' }, { $ref: '#/definitions/ActionsBlock' }] },
  HeaderBlock: { type: 'object', required: ['type', 'text'], additionalProperties: false, properties: { type: { enum: ['header'] }, text: text(['plain_text'], 150), block_id: BLOCK_ID } },
  SectionBlock: {
    type: 'object',
    required: ['type'],
    additionalProperties: false,
    properties: {
      type: { enum: ['section'] },
      text: { $ref: '#/definitions/Text3000' },
      fields: { type: 'array', minItems: 1, maxItems: 10, items: { $ref: '#/definitions/Text2000' } },
      accessory: { $ref: '#/definitions/Button' },
      block_id: BLOCK_ID,
    },
  },
  DividerBlock: { type: 'object', required: ['type'], additionalProperties: false, properties: { type: { enum: ['divider'] }, block_id: BLOCK_ID } },
  ContextBlock: {
    type: 'object',
    required: ['type', 'elements'],
    additionalProperties: false,
    properties: { type: { enum: ['context'] }, elements: { type: 'array', minItems: 1, maxItems: 10, items: { $ref: '#/definitions/Text3000' } }, block_id: BLOCK_ID },
  },
  ActionsBlock: {
    type: 'object',
    required: ['type', 'elements'],
    additionalProperties: false,
    properties: { type: { enum: ['actions'] }, elements: { type: 'array', minItems: 1, maxItems: 25, items: { $ref: '#/definitions/Button' } }, block_id: BLOCK_ID },
  },
  Button: {
    type: 'object',
    required: ['type', 'text'],
    additionalProperties: false,
    properties: {
      type: { enum: ['button'] },
      text: text(['plain_text'], 75),
      url: { type: 'string', maxLength: 3000 },
      value: { type: 'string', maxLength: 2000 },
      action_id: { type: 'string', maxLength: 255 },
      style: { enum: ['primary', 'danger'] },
    },
  },
  Text3000: text(['plain_text', 'mrkdwn'], 3000),
  Text2000: text(['plain_text', 'mrkdwn'], 2000),
};

export function deriveSlack(specsDir) {
  const rel = 'chat-and-email/README.md';
  const notes = readFileSync(path.join(specsDir, rel));
  const contract = {
    title: 'Slack incoming webhook: { text, blocks } within the Block Kit limits',
    derivedBy: 'scripts/derive-contracts.mjs (do not edit by hand)',
    sources: [
      {
        folder: 'chat-and-email/',
        notes: `${rel} §2.1, §2.2, §2.4 (Slack publishes no machine-readable Block Kit schema)`,
        notesSha256: createHash('sha256').update(notes).digest('hex'),
        license: 'our own notes (no vendor file copied)',
        files: [rel],
      },
    ],
    paths: {
      '/services/{team}/{hook}/{secret}': {
        post: {
          operationId: 'IncomingWebhook_Post',
          consumes: ['application/json'],
          parameters: [
            { name: 'team', in: 'path', required: true },
            { name: 'hook', in: 'path', required: true },
            { name: 'secret', in: 'path', required: true },
            { name: 'body', in: 'body', required: true, schema: { $ref: '#/definitions/SlackMessage' } },
          ],
          responses: { 200: {} },
        },
      },
    },
    definitions: Object.fromEntries(Object.keys(SLACK_DEFINITIONS).sort().map((k) => [k, SLACK_DEFINITIONS[k]])),
  };
  return `${JSON.stringify(contract, null, 1)}\n`;
}

export const CHAT_CONTRACTS = [
  { file: 'teams-workflows.json', derive: deriveTeams },
  { file: 'slack-webhook.json', derive: deriveSlack },
];
