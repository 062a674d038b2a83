/** The console's overview and inventory views: response schemas of the admin API (index and rules in ../schemas.ts). */
import { slaSchema } from '../../public-api/routes/sla.js';
import { bySourceTypeItem, dailyCostItem, durationStats } from '../../public-api/schemas.js';
import { itemsSchema } from '../openapi.js';

export const seriesSchema = {
  title: 'MetricsSeries',
  type: 'object',
  required: ['from', 'to', 'step', 'buckets'],
  properties: {
    from: { type: 'string', format: 'date' },
    to: { type: 'string', format: 'date' },
    step: { type: 'string', enum: ['day', 'week'] },
    buckets: {
      type: 'array',
      items: {
        title: 'MetricsBucket',
        type: 'object',
        required: ['from', 'to', 'incidents', 'bySourceType', 'mtta', 'mttr'],
        properties: {
          from: { type: 'string', format: 'date' },
          to: { type: 'string', format: 'date' },
          incidents: { type: 'integer' },
          bySourceType: { type: 'array', items: bySourceTypeItem },
          mtta: durationStats,
          mttr: durationStats,
        },
      },
    },
  },
} as const;

export const slaHistorySchema = {
  title: 'SlaHistory',
  type: 'object',
  required: ['months'],
  properties: { months: { type: 'array', items: slaSchema } },
} as const;

export const costSeriesSchema = {
  title: 'DailyCostSeries',
  type: 'object',
  required: ['from', 'to', 'currency', 'items'],
  properties: {
    from: { type: 'string', format: 'date' },
    to: { type: 'string', format: 'date' },
    currency: { type: ['string', 'null'], description: 'ISO 4217; the requested one, else the period’s predominant one.' },
    items: {
      type: 'array',
      items: dailyCostItem,
    },
  },
} as const;

export const openIncidentsSchema = {
  title: 'OpenIncidents',
  type: 'object',
  required: ['total', 'groups'],
  properties: {
    total: { type: 'integer' },
    groups: {
      type: 'array',
      items: {
        title: 'OpenIncidentGroup',
        type: 'object',
        required: ['severity', 'sourceType', 'incidents'],
        properties: { severity: { type: 'string', enum: ['error', 'info'] }, sourceType: { type: 'string' }, incidents: { type: 'integer' } },
      },
    },
  },
} as const;

export const capacityViewSchema = {
  title: 'CapacityInventory',
  type: 'object',
  required: ['month', 'currency', 'items'],
  properties: {
    month: { type: 'string', pattern: '^\\d{4}-\\d{2}$' },
    currency: { type: ['string', 'null'] },
    items: {
      type: 'array',
      items: {
        title: 'CapacityView',
        type: 'object',
        required: ['name', 'armName', 'sku', 'state', 'region', 'availabilityPercent', 'costThisMonth', 'openIncidents', 'monitored'],
        properties: {
          name: { type: 'string', description: 'The display name (the name every page uses).' },
          armName: { type: ['string', 'null'], description: 'Its Azure resource name, which Cost Management groups costs by; null when no ARM resource is known.' },
          sku: { type: 'string' },
          state: { type: 'string' },
          region: { type: 'string' },
          availabilityPercent: { type: 'number', description: 'This month so far (UTC), as in the SLA report.' },
          costThisMonth: { type: ['number', 'null'], description: 'Sum of the daily costs this month in `currency`; null without rows.' },
          openIncidents: { type: 'integer' },
          monitored: {
            type: 'array',
            description: 'The tenant connections whose capacity collector reads this capacity, with its platform id (its changes: `GET …/tenants/{tenantId}/changes?objectKind=capacity&objectId={id}`); empty for a capacity only put here by hand.',
            items: {
              title: 'MonitoredCapacity',
              type: 'object',
              required: ['tenantId', 'tenantName', 'id'],
              properties: { tenantId: { type: 'string' }, tenantName: { type: 'string' }, id: { type: 'string' } },
            },
          },
        },
      },
    },
  },
} as const;

export const workspaceViewSchema = itemsSchema('WorkspaceInventory', {
  title: 'WorkspaceView',
  type: 'object',
  required: ['name', 'remoteId', 'capacityName', 'openIncidents'],
  properties: {
    name: { type: 'string' },
    remoteId: { type: 'string' },
    capacityName: { type: ['string', 'null'] },
    openIncidents: { type: 'integer' },
  },
});
