/** Destinations and deliveries: response schemas of the admin API (index and rules in ../schemas.ts). */
import { ALERT_EVENTS, DELIVERY_STATUSES } from '../../outbox/index.js';
import { DESTINATION_KINDS } from '../../delivery/destinations.js';
import { str, nullableStr, instant, nullableInstant, int, bool, strings, anyObject, page } from './common.js';
import { inboundViewSchema } from './inbound.js';

export const destinationHealthSchema = {
  title: 'DestinationHealth',
  type: 'object',
  required: ['state', 'consecutiveFailures', 'successRate24h', 'lastSuccessAt', 'lastFailureAt', 'disabledAt', 'disabledReason'],
  properties: {
    state: { type: 'string', enum: ['healthy', 'failing', 'disabled'] },
    consecutiveFailures: int,
    successRate24h: { type: ['number', 'null'], description: 'Succeeded ÷ ended over the last 24 hours; null when none ended.' },
    lastSuccessAt: nullableInstant,
    lastFailureAt: nullableInstant,
    disabledAt: nullableInstant,
    disabledReason: nullableStr,
  },
} as const;

const destinationProperties = {
  id: str,
  name: str,
  kind: { type: 'string', enum: [...DESTINATION_KINDS] },
  url: nullableStr,
  config: anyObject,
  signatureScheme: { type: ['string', 'null'], description: 'Webhooks only; null for connector kinds, which do not sign.' },
  filter: {
    type: ['object', 'null'],
    properties: { events: { type: 'array', items: { type: 'string', enum: [...ALERT_EVENTS] } }, severities: strings, sourceTypes: strings },
  },
  enabled: bool,
  rateLimitPerSecond: { type: ['integer', 'null'], description: 'Sends per second across all workers; null = unlimited.' },
  credentialsSet: bool,
  createdAt: instant,
  updatedAt: instant,
  health: destinationHealthSchema,
  inbound: inboundViewSchema,
  slackRequestUrl: {
    type: ['string', 'null'],
    description: 'Slack destinations: the interactivity Request URL to give the Slack app (Interactivity & Shortcuts), built from the instance\'s public address (VIGIA_BASE_URL); null for other kinds.',
  },
  refusedRecipients: {
    type: ['array', 'null'],
    description: 'E-mail destinations: the recipients the SMTP relay last refused for good (a 5xx answer), with its reply; null for other kinds.',
    items: {
      title: 'RefusedRecipient',
      type: 'object',
      required: ['address', 'refusedAt', 'reply'],
      properties: { address: str, refusedAt: instant, reply: str },
    },
  },
} as const;
const destinationRequired = Object.keys(destinationProperties);

export const destinationSchema = { title: 'Destination', type: 'object', required: destinationRequired, properties: destinationProperties } as const;

export const createdDestinationSchema = {
  title: 'CreatedDestination',
  type: 'object',
  required: destinationRequired,
  properties: { ...destinationProperties, signingSecret: { type: 'string', description: 'Webhooks only, in this answer only.' } },
} as const;

export const signingSecretSchema = { title: 'SigningSecret', type: 'object', required: ['signingSecret'], properties: { signingSecret: str } } as const;

export const recoverResultSchema = { title: 'RecoverResult', type: 'object', required: ['requeued'], properties: { requeued: int } } as const;

export const testResultSchema = {
  title: 'TestResult',
  type: 'object',
  required: ['ok', 'steps', 'manualCloseRequired', 'message'],
  properties: {
    ok: bool,
    steps: {
      type: 'array',
      items: {
        title: 'TestStep',
        type: 'object',
        required: ['action', 'ok'],
        properties: { action: { type: 'string', enum: ['send', 'open', 'close'] }, ok: bool, statusCode: int, error: str },
      },
    },
    manualCloseRequired: bool,
    message: str,
  },
} as const;

// Deliveries -------------------------------------------------------------------------------

const deliveryProperties = {
  id: str,
  event: str,
  alertId: str,
  status: { type: 'string', enum: [...DELIVERY_STATUSES] },
  attempts: int,
  nextAttemptAt: nullableInstant,
  lastStatusCode: { type: ['integer', 'null'] },
  lastError: nullableStr,
  createdAt: instant,
  completedAt: nullableInstant,
  test: bool,
} as const;
const deliveryRequired = Object.keys(deliveryProperties);

export const deliverySchema = { title: 'Delivery', type: 'object', required: deliveryRequired, properties: deliveryProperties } as const;

export const deliveryPageSchema = page('DeliveryPage', deliverySchema);

const attemptLogEntrySchema = {
  title: 'AttemptLogEntry',
  type: 'object',
  required: ['attempt', 'startedAt', 'durationMs', 'statusCode', 'error'],
  properties: { attempt: int, startedAt: instant, durationMs: int, statusCode: { type: ['integer', 'null'] }, error: nullableStr },
} as const;

export const deliveryDetailSchema = {
  title: 'DeliveryDetail',
  type: 'object',
  required: [...deliveryRequired, 'destinationId', 'attemptLog'],
  properties: { ...deliveryProperties, destinationId: str, attemptLog: { type: 'array', items: attemptLogEntrySchema } },
} as const;

export const alertDeliveriesSchema = {
  type: 'array',
  items: {
    title: 'AlertDelivery',
    type: 'object',
    required: [...deliveryRequired, 'eventId', 'destinationId', 'destinationName', 'destinationKind'],
    properties: { ...deliveryProperties, eventId: nullableStr, destinationId: str, destinationName: str, destinationKind: str },
  },
} as const;
