/**
 * Response schemas of the admin routes (destinations, deliveries, alerts, silences, API keys,
 * inventory writes, tenants, people, the session). They document the answers in the admin
 * OpenAPI document (the console's types are generated from it) and Fastify serializes each
 * answer through them, which drops any field not listed: every field a route returns must be
 * here. A `title` names the schema in the document's components.
 */
import { ALERT_EVENTS, DELIVERY_STATUSES } from '../outbox/index.js';
import { DESTINATION_KINDS } from '../delivery/destinations.js';
import { ROLES } from '../access/roles.js';
import { utilizationSchema } from './schemas-utilization.js';

const str = { type: 'string' } as const;
const nullableStr = { type: ['string', 'null'] } as const;
const instant = { type: 'string', format: 'date-time' } as const;
const nullableInstant = { type: ['string', 'null'], format: 'date-time' } as const;
const int = { type: 'integer' } as const;
const bool = { type: 'boolean' } as const;
const strings = { type: 'array', items: str } as const;
/** A free-form object (a destination's config, an audit entry's changes): serialized as it is. */
const anyObject = { type: 'object', additionalProperties: true } as const;

/** A paged answer `{ value, page, pageSize, totalCount, nextLink }` of the given item schema. */
function page(title: string, item: object) {
  return {
    title,
    type: 'object',
    required: ['value', 'page', 'pageSize', 'totalCount', 'nextLink'],
    properties: {
      value: { type: 'array', items: item },
      page: int,
      pageSize: int,
      totalCount: int,
      nextLink: { type: 'string', description: 'The next page’s path with every parameter of this request; empty on the last page.' },
    },
  } as const;
}

// Destinations -------------------------------------------------------------------------------

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

// Alerts and silences ------------------------------------------------------------------------

const alertProperties = {
  id: str,
  sourceType: str,
  sourceId: str,
  sourceName: str,
  notificationKind: str,
  severity: { type: 'string', enum: ['error', 'info'] },
  title: str,
  message: str,
  workspaceName: nullableStr,
  capacityName: nullableStr,
  status: { type: 'string', enum: ['open', 'resolved'] },
  acknowledged: bool,
  acknowledgedAt: nullableInstant,
  acknowledgedBy: nullableStr,
  createdAt: instant,
  resolvedAt: nullableInstant,
  failureCount: int,
  lastOccurrenceAt: instant,
  silenced: bool,
  silenceId: nullableStr,
  correlated: bool,
  causeAlertIds: strings,
  suppressed: bool,
  releasedAt: nullableInstant,
  escalatedAt: nullableInstant,
  updatedAt: instant,
  url: { type: 'string', description: 'The alert’s page in the console.' },
} as const;
const alertRequired = Object.keys(alertProperties);

export const alertSchema = { title: 'Alert', type: 'object', required: alertRequired, properties: alertProperties } as const;

export const alertPageSchema = page('AlertPage', alertSchema);

export const alertWithEventsSchema = {
  title: 'AlertWithEvents',
  type: 'object',
  required: [...alertRequired, 'events'],
  properties: {
    ...alertProperties,
    events: {
      type: 'array',
      items: { title: 'AlertEvent', type: 'object', required: ['id', 'event', 'occurredAt', 'createdAt'], properties: { id: str, event: str, occurredAt: instant, createdAt: instant } },
    },
  },
} as const;

const signalOutcomeSchema = {
  title: 'SignalOutcome',
  type: 'object',
  required: ['alertId', 'outcome', 'silenced', 'correlated'],
  properties: { alertId: nullableStr, outcome: { type: 'string', enum: ['opened', 'reoccurred', 'recovered', 'ignored'] }, silenced: bool, correlated: bool },
} as const;

/** One signal answers one outcome; a batch an array of them, in order. */
export const signalOutcomesSchema = { anyOf: [signalOutcomeSchema, { type: 'array', items: signalOutcomeSchema }] } as const;

export const silenceSchema = {
  title: 'Silence',
  type: 'object',
  required: ['id', 'matchers', 'startsAt', 'endsAt', 'comment', 'createdAt', 'active'],
  properties: {
    id: str,
    matchers: { title: 'SilenceMatchers', type: 'object', properties: { sourceType: str, sourceId: str, notificationKind: str } },
    startsAt: instant,
    endsAt: instant,
    comment: nullableStr,
    createdAt: instant,
    active: bool,
  },
} as const;

// API keys -----------------------------------------------------------------------------------

const apiKeyProperties = { id: str, name: str, scopes: strings, expiresAt: nullableInstant, prefix: str, createdAt: instant } as const;

export const apiKeySchema = {
  title: 'ApiKey',
  type: 'object',
  required: [...Object.keys(apiKeyProperties), 'lastUsedAt', 'revokedAt'],
  properties: { ...apiKeyProperties, lastUsedAt: nullableInstant, revokedAt: nullableInstant },
} as const;

export const createdApiKeySchema = {
  title: 'CreatedApiKey',
  type: 'object',
  required: [...Object.keys(apiKeyProperties), 'key'],
  properties: { ...apiKeyProperties, key: { type: 'string', description: 'The key in clear, in this answer only.' } },
} as const;

// Inventory writes ---------------------------------------------------------------------------

export const capacitiesSchema = {
  type: 'array',
  items: { title: 'Capacity', type: 'object', required: ['name', 'sku', 'state', 'region'], properties: { name: str, sku: str, state: str, region: str } },
} as const;

export const workspacesSchema = {
  type: 'array',
  items: { title: 'Workspace', type: 'object', required: ['name', 'remoteId', 'capacityName'], properties: { name: str, remoteId: str, capacityName: nullableStr } },
} as const;

export const upsertedSchema = { title: 'Upserted', type: 'object', required: ['upserted'], properties: { upserted: int } } as const;

// Tenants ------------------------------------------------------------------------------------

const rotationSchema = {
  title: 'CollectorRotation',
  type: ['object', 'null'],
  description: 'For a collector that rotates through a large tenant: the last full rotation and the resources of its last run.',
  required: ['lastFullRotationSeconds', 'hot', 'cold'],
  properties: {
    lastFullRotationSeconds: { type: ['integer', 'null'], description: 'Seconds the last full rotation lasted; null until one completed after another.' },
    hot: { type: 'integer', description: 'Resources polled every run (scheduled, ran recently, or failing).' },
    cold: { type: 'integer', description: 'Resources taking turns.' },
  },
} as const;

const collectorViewSchema = {
  title: 'CollectorView',
  type: 'object',
  required: ['name', 'enabled', 'intervalSeconds', 'defaultIntervalSeconds', 'lastRunAt', 'lastSuccessAt', 'nextRunAt', 'lastDurationMs', 'lastCalls', 'lastThrottledCalls', 'lastError', 'running', 'rotation'],
  properties: {
    name: str,
    enabled: bool,
    intervalSeconds: int,
    defaultIntervalSeconds: int,
    lastRunAt: nullableInstant,
    lastSuccessAt: nullableInstant,
    nextRunAt: nullableInstant,
    lastDurationMs: { type: ['integer', 'null'] },
    lastCalls: { type: ['integer', 'null'] },
    lastThrottledCalls: { type: ['integer', 'null'] },
    lastError: nullableStr,
    running: bool,
    rotation: rotationSchema,
  },
} as const;

export const tenantSchema = {
  title: 'Tenant',
  type: 'object',
  required: ['id', 'name', 'tenantId', 'clientId', 'credentialType', 'credentialsSet', 'mode', 'workspaces', 'costScopes', 'endpoints', 'mirroringLag', 'utilization', 'createdAt', 'updatedAt', 'collectors'],
  properties: {
    id: str,
    name: str,
    tenantId: str,
    clientId: str,
    credentialType: { type: 'string', enum: ['secret', 'certificate'] },
    credentialsSet: { type: 'boolean', description: 'Always true: credentials are write-only.' },
    mode: { type: 'string', enum: ['admin', 'member'] },
    workspaces: { type: ['array', 'null'], items: str },
    costScopes: strings,
    endpoints: {
      title: 'TenantEndpoints',
      type: 'object',
      required: ['authorityHost', 'powerBi', 'fabric', 'arm'],
      properties: { authorityHost: str, powerBi: str, fabric: str, arm: str },
    },
    mirroringLag: {
      title: 'MirroringLag',
      type: 'object',
      description: 'Replication lag over `infoSeconds` opens an info incident, over `errorSeconds` an error one.',
      required: ['infoSeconds', 'errorSeconds'],
      properties: { infoSeconds: int, errorSeconds: int },
    },
    utilization: utilizationSchema,
    createdAt: instant,
    updatedAt: instant,
    collectors: { type: 'array', items: collectorViewSchema },
  },
} as const;

export const tenantListSchema = { title: 'TenantList', type: 'object', required: ['value'], properties: { value: { type: 'array', items: tenantSchema } } } as const;

const bilingual = { title: 'BilingualText', type: 'object', required: ['pt-BR', 'en'], properties: { 'pt-BR': str, en: str } } as const;

export const checkResultSchema = {
  title: 'TenantCheck',
  type: 'object',
  required: ['ok', 'checks'],
  properties: {
    ok: bool,
    checks: {
      type: 'array',
      items: {
        title: 'TenantCheckItem',
        type: 'object',
        required: ['id', 'ok', 'title', 'fix'],
        properties: { id: str, ok: bool, audience: str, scope: str, workspaceId: str, title: bilingual, fix: { anyOf: [bilingual, { type: 'null' }] }, detail: str },
      },
    },
  },
} as const;

export const runRequestedSchema = { title: 'RunRequested', type: 'object', required: ['nextRunAt'], properties: { nextRunAt: instant } } as const;

// People, tokens, audit, session ---------------------------------------------------------------

const role = { type: 'string', enum: [...ROLES] } as const;

export const memberSchema = {
  title: 'Member',
  type: 'object',
  required: ['id', 'email', 'name', 'role', 'since'],
  properties: { id: str, email: str, name: nullableStr, role, since: instant },
} as const;

const personalTokenProperties = {
  id: str,
  orgId: str,
  name: str,
  role,
  prefix: str,
  createdAt: instant,
  expiresAt: instant,
  lastUsedAt: nullableInstant,
  revokedAt: nullableInstant,
} as const;

export const personalTokenSchema = { title: 'PersonalToken', type: 'object', required: Object.keys(personalTokenProperties), properties: personalTokenProperties } as const;

export const createdPersonalTokenSchema = {
  title: 'CreatedPersonalToken',
  type: 'object',
  required: [...Object.keys(personalTokenProperties), 'token'],
  properties: { ...personalTokenProperties, token: { type: 'string', description: 'The token in clear, in this answer only.' } },
} as const;

export const auditPageSchema = page('AuditPage', {
  title: 'AuditEntry',
  type: 'object',
  required: ['id', 'orgId', 'at', 'actor', 'address', 'action', 'target', 'changes'],
  properties: {
    id: str,
    orgId: nullableStr,
    at: instant,
    actor: { title: 'AuditActor', type: 'object', required: ['kind', 'id', 'label'], properties: { kind: str, id: nullableStr, label: str } },
    address: nullableStr,
    action: str,
    target: nullableStr,
    changes: { description: 'The changed fields as sent (an object, or the array of a replace-all), secrets redacted.' },
  },
});

const callerProperties = {
  kind: { type: 'string', enum: ['instance-admin', 'person'] },
  email: nullableStr,
  instanceAdmin: bool,
  roles: { type: 'array', items: { title: 'OrgRole', type: 'object', required: ['orgId', 'role'], properties: { orgId: str, role } } },
  csrfToken: { type: ['string', 'null'], description: 'Sent back as `x-csrf-token` on every change; null without a session cookie.' },
} as const;

export const sessionSchema = { title: 'Session', type: 'object', required: Object.keys(callerProperties), properties: callerProperties } as const;

export const sessionOptionsSchema = {
  title: 'SessionOptions',
  type: 'object',
  required: ['oidc'],
  properties: { oidc: { type: 'boolean', description: 'Whether signing in with the company account (OpenID Connect) is offered.' } },
} as const;

export const openedSessionSchema = {
  title: 'OpenedSession',
  type: 'object',
  required: [...Object.keys(callerProperties), 'expiresAt'],
  properties: { ...callerProperties, expiresAt: instant },
} as const;
