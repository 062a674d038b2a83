/**
 * Admin API schemas of the tenant connection's `utilization` field (capacity load sources and
 * thresholds, src/monitoring/connection/utilization-settings.ts): the answer's shape and the request body's.
 * Kept apart from schemas.ts, which imports it.
 */
import { MAX_OVERRIDES, MAX_RECOVER_WINDOWS } from '../../monitoring/connection/utilization-settings.js';
import { capacityUtilizationItem } from '../../public-api/schemas.js';

const str = { type: 'string' } as const;
const int = { type: 'integer' } as const;

const eventhouse = {
  title: 'UtilizationEventhouse',
  type: 'object',
  description: 'The Eventhouse table an Eventstream fills with the capacity overview events; read through its query URI (Kusto REST API).',
  required: ['queryUri', 'database', 'table'],
  properties: { queryUri: str, database: str, table: str },
} as const;

const metricsApp = {
  title: 'UtilizationMetricsApp',
  type: 'object',
  description: "The Capacity Metrics app's semantic model (workspace and dataset IDs), read through executeQueries when eventhouse is null.",
  required: ['workspaceId', 'datasetId'],
  properties: { workspaceId: str, datasetId: str },
} as const;

const thresholds = { type: 'object', properties: { warnPercent: int, recoverWindows: int } } as const;

export const utilizationSchema = {
  title: 'Utilization',
  type: 'object',
  description: 'Capacity load: where the `utilization` collector reads it and when it raises CapacityHighUtilization / CapacityThrottled.',
  required: ['eventhouse', 'metricsApp', 'armScopes', 'warnPercent', 'recoverWindows', 'overrides'],
  properties: {
    eventhouse: { anyOf: [eventhouse, { type: 'null' }] },
    metricsApp: { anyOf: [metricsApp, { type: 'null' }] },
    armScopes: { type: 'array', items: str, description: 'Subscriptions / resource groups holding Power BI Embedded A SKUs (Azure Monitor metrics).' },
    warnPercent: { ...int, description: 'The 10-minute figure above which CapacityHighUtilization opens (default 80).' },
    recoverWindows: { ...int, description: 'Consecutive 30-second windows below every threshold before an incident recovers (default 4).' },
    overrides: { type: 'object', additionalProperties: thresholds, description: 'warnPercent / recoverWindows per capacity name.' },
  },
} as const;

const text = (max: number) => ({ type: 'string', minLength: 1, maxLength: max }) as const;
const percent = { type: 'integer', minimum: 1, maximum: 100 } as const;
const windows = { type: 'integer', minimum: 1, maximum: MAX_RECOVER_WINDOWS } as const;

/** The request body's `utilization` (a change replaces the top-level fields it gives; null removes a source). */
export const utilizationInputSchema = {
  type: 'object',
  additionalProperties: false,
  minProperties: 1,
  properties: {
    eventhouse: {
      anyOf: [
        { type: 'object', additionalProperties: false, required: ['queryUri', 'database', 'table'], properties: { queryUri: text(2048), database: text(1024), table: text(1024) } },
        { type: 'null' },
      ],
    },
    metricsApp: {
      anyOf: [{ type: 'object', additionalProperties: false, required: ['workspaceId', 'datasetId'], properties: { workspaceId: text(100), datasetId: text(100) } }, { type: 'null' }],
    },
    armScopes: { type: 'array', maxItems: 100, items: text(300) },
    warnPercent: percent,
    recoverWindows: windows,
    overrides: {
      anyOf: [
        { type: 'object', maxProperties: MAX_OVERRIDES, additionalProperties: { type: 'object', additionalProperties: false, properties: { warnPercent: percent, recoverWindows: windows } } },
        { type: 'null' },
      ],
    },
  },
} as const;

/** The console's capacity load chart: the public API's items, unpaged, and the period's load incidents. */
export const capacityLoadViewSchema = {
  title: 'CapacityLoadView',
  type: 'object',
  required: ['from', 'to', 'granularity', 'items', 'incidents'],
  properties: {
    from: { type: 'string', format: 'date-time' },
    to: { type: 'string', format: 'date-time' },
    granularity: { type: 'string', enum: ['hour', '30s'] },
    items: { type: 'array', items: capacityUtilizationItem },
    incidents: {
      type: 'array',
      description: 'CapacityThrottled / CapacityHighUtilization incidents open at some point of the period.',
      items: {
        title: 'CapacityLoadIncident',
        type: 'object',
        required: ['id', 'capacityName', 'notificationKind', 'severity', 'title', 'openedAt', 'resolvedAt'],
        properties: {
          id: str,
          capacityName: str,
          notificationKind: str,
          severity: str,
          title: str,
          openedAt: { type: 'string', format: 'date-time' },
          resolvedAt: { anyOf: [{ type: 'string', format: 'date-time' }, { type: 'null' }] },
        },
      },
    },
  },
} as const;

const texts = { type: 'object', required: ['pt-BR', 'en'], properties: { 'pt-BR': str, en: str } } as const;

/** `POST …/tenants/{id}/utilization/eventhouse`: what Vigia created (or found), or why the principal may not. */
export const eventhouseSetupSchema = {
  title: 'EventhouseSetup',
  type: 'object',
  required: ['outcome', 'created', 'eventhouse', 'eventstreamId', 'capacityIds', 'refusal'],
  properties: {
    outcome: { type: 'string', enum: ['created', 'existing', 'refused'], description: 'created: something was made now; existing: everything was there (a second call); refused: the principal may not.' },
    created: { type: 'array', items: { type: 'string', enum: ['Eventhouse', 'KQLDatabase', 'Table', 'Eventstream'] }, description: 'What this call made, in order.' },
    eventhouse: { anyOf: [eventhouse, { type: 'null' }], description: 'The source now stored in the connection’s utilization.eventhouse.' },
    eventstreamId: { anyOf: [str, { type: 'null' }] },
    capacityIds: { type: 'array', items: str, description: 'Capacities whose overview events the Eventstream routes.' },
    refusal: {
      anyOf: [
        {
          title: 'EventhouseSetupRefusal',
          type: 'object',
          required: ['permission', 'detail', 'fix'],
          properties: {
            permission: { type: 'string', enum: ['WorkspaceContributor', 'DatabaseAdmin', 'FabricApis'], description: 'The permission the service principal lacks.' },
            detail: { ...str, description: 'The platform’s answer.' },
            fix: { ...texts, description: 'What to grant, and where the manual steps are, in pt-BR and English.' },
          },
        },
        { type: 'null' },
      ],
    },
  },
} as const;

export const eventhouseSetupBodySchema = {
  type: 'object',
  additionalProperties: false,
  required: ['workspaceId'],
  properties: {
    workspaceId: { ...text(100), description: 'The workspace to create the Eventhouse, KQL database and Eventstream in (the principal needs Contributor there).' },
    eventhouseId: { ...text(100), description: 'Use this Eventhouse of the workspace instead of creating one.' },
    capacityIds: { type: 'array', minItems: 1, maxItems: 100, items: text(100), description: 'Capacities to route; default every capacity the principal sees.' },
  },
} as const;
