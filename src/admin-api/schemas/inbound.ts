/** Response schemas of the inbound address of a connector destination (docs/admin-api.md). */

const str = { type: 'string' } as const;
const int = { type: 'integer' } as const;

export const inboundViewSchema = {
  title: 'DestinationInbound',
  type: ['object', 'null'],
  description: 'ITSM connector destinations only (null for webhooks, e-mail, Teams and Slack): the address the tool posts acknowledgements and resolutions to.',
  required: ['url', 'enabled', 'lastEventAt', 'applied', 'ignored', 'refused', 'lastRefusal'],
  properties: {
    url: str,
    enabled: { type: 'boolean' },
    lastEventAt: { type: ['string', 'null'], format: 'date-time' },
    applied: int,
    ignored: int,
    refused: int,
    lastRefusal: { type: ['string', 'null'], description: 'Why the last refused event was refused.' },
  },
} as const;

export const inboundSecretSchema = {
  title: 'InboundSecret',
  type: 'object',
  required: ['url', 'secret'],
  properties: {
    url: str,
    secret: { type: 'string', description: 'In this answer only; the previous secret keeps working for 24 hours.' },
  },
} as const;

/** The inbound block after PUT …/inbound (never null there). */
export const inboundStateSchema = { ...inboundViewSchema, title: 'InboundState', type: 'object' } as const;

export const toolSubscriptionSchema = {
  title: 'ToolSubscription',
  type: 'object',
  required: ['subscriptionId', 'url'],
  properties: { subscriptionId: str, url: str },
} as const;
