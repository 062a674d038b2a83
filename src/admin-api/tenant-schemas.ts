/**
 * Response schemas of the tenant routes (the admin OpenAPI and the console's generated types are
 * built from them). Objects stay open (additionalProperties) so a field added to the tenant view
 * by a later collector is still sent; the ones listed here are what the console relies on.
 */
const nullableString = { type: ['string', 'null'] } as const;
const nullableInteger = { type: ['integer', 'null'] } as const;

const rotationSchema = {
  type: ['object', 'null'],
  description: 'For a collector that rotates through a large tenant: the last full rotation and the resources of its last run.',
  additionalProperties: true,
  required: ['lastFullRotationSeconds', 'hot', 'cold'],
  properties: {
    lastFullRotationSeconds: { ...nullableInteger, description: 'Seconds the last full rotation lasted; null until one completed after another.' },
    hot: { type: 'integer', description: 'Resources polled every run (scheduled or ran recently).' },
    cold: { type: 'integer', description: 'Resources taking turns.' },
  },
} as const;

const collectorViewSchema = {
  type: 'object',
  additionalProperties: true,
  required: ['name', 'enabled', 'intervalSeconds', 'defaultIntervalSeconds', 'lastRunAt', 'lastSuccessAt', 'nextRunAt', 'lastDurationMs', 'lastCalls', 'lastThrottledCalls', 'lastError', 'running', 'rotation'],
  properties: {
    name: { type: 'string' },
    enabled: { type: 'boolean' },
    intervalSeconds: { type: 'integer' },
    defaultIntervalSeconds: { type: 'integer' },
    lastRunAt: { ...nullableString, format: 'date-time' },
    lastSuccessAt: { ...nullableString, format: 'date-time' },
    nextRunAt: { ...nullableString, format: 'date-time' },
    lastDurationMs: nullableInteger,
    lastCalls: nullableInteger,
    lastThrottledCalls: nullableInteger,
    lastError: nullableString,
    running: { type: 'boolean' },
    rotation: rotationSchema,
  },
} as const;

export const tenantViewSchema = {
  type: 'object',
  additionalProperties: true,
  required: ['id', 'name', 'tenantId', 'clientId', 'credentialType', 'credentialsSet', 'mode', 'workspaces', 'costScopes', 'endpoints', 'createdAt', 'updatedAt', 'collectors'],
  properties: {
    id: { type: 'string' },
    name: { type: 'string' },
    tenantId: { type: 'string' },
    clientId: { type: 'string' },
    credentialType: { type: 'string', enum: ['secret', 'certificate'] },
    credentialsSet: { type: 'boolean' },
    mode: { type: 'string', enum: ['admin', 'member'] },
    workspaces: { type: ['array', 'null'], items: { type: 'string' } },
    costScopes: { type: 'array', items: { type: 'string' } },
    endpoints: {
      type: 'object',
      additionalProperties: true,
      required: ['authorityHost', 'powerBi', 'fabric', 'arm'],
      properties: { authorityHost: { type: 'string' }, powerBi: { type: 'string' }, fabric: { type: 'string' }, arm: { type: 'string' } },
    },
    createdAt: { type: 'string', format: 'date-time' },
    updatedAt: { type: 'string', format: 'date-time' },
    collectors: { type: 'array', items: collectorViewSchema },
  },
} as const;

export const tenantListSchema = { type: 'object', required: ['value'], properties: { value: { type: 'array', items: tenantViewSchema } } } as const;
