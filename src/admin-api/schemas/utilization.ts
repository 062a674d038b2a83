/**
 * Admin API schemas of the tenant connection's `utilization` field (capacity load sources and
 * thresholds, src/monitoring/utilization-settings.ts): the answer's shape and the request body's.
 * Kept apart from schemas.ts, which imports it.
 */
import { MAX_OVERRIDES, MAX_RECOVER_WINDOWS } from '../../monitoring/utilization-settings.js';
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
  description: "The Capacity Metrics app's semantic model (workspace and dataset IDs).",
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
