import type { FastifyInstance } from 'fastify';
import type { AppContext } from '../../context.js';
import { loadSlaTargets, slaReport } from '../queries/sla.js';
import { bySourceTypeItem, durationStats, noisiestSourceItem, objectResponses, security } from '../schemas.js';
import { monthWindow } from '../windows.js';

export const slaSchema = {
  title: 'SlaReport',
  type: 'object',
  required: ['month', 'targets', 'totals', 'mtta', 'mttr', 'incidentsBySourceType', 'noisiestSources', 'availability'],
  properties: {
    month: { type: 'string', pattern: '^\\d{4}-\\d{2}$' },
    targets: {
      type: 'object',
      required: ['mttaMinutes', 'mttrMinutes', 'availabilityPercent'],
      properties: { mttaMinutes: { type: 'integer' }, mttrMinutes: { type: 'integer' }, availabilityPercent: { type: 'number' } },
    },
    totals: {
      type: 'object',
      required: ['incidents', 'acknowledgedWithinTarget', 'ackCompliancePercent', 'resolvedWithinTarget', 'resolutionCompliancePercent'],
      properties: {
        incidents: { type: 'integer' },
        acknowledgedWithinTarget: { type: 'integer' },
        ackCompliancePercent: { type: 'number' },
        resolvedWithinTarget: { type: 'integer' },
        resolutionCompliancePercent: { type: 'number' },
      },
    },
    mtta: durationStats,
    mttr: durationStats,
    incidentsBySourceType: { type: 'array', items: bySourceTypeItem },
    noisiestSources: { type: 'array', items: noisiestSourceItem, maxItems: 10 },
    availability: {
      type: 'array',
      items: {
        title: 'CapacityAvailability',
        type: 'object',
        required: ['capacityName', 'availabilityPercent', 'downtimeMinutes', 'meetsTarget'],
        properties: {
          capacityName: { type: 'string' },
          availabilityPercent: { type: 'number' },
          downtimeMinutes: { type: 'number' },
          meetsTarget: { type: 'boolean' },
        },
      },
    },
  },
} as const;

export async function slaRoutes(app: FastifyInstance, { ctx }: { ctx: AppContext }): Promise<void> {
  app.get<{ Querystring: { month?: string } }>(
    '/sla',
    {
      config: { scope: 'ReadSla' },
      schema: {
        operationId: 'getSlaReport',
        summary: 'Monthly SLA report',
        description:
          'Scope ReadSla. Incidents created in the month (UTC); targets from the organization; availability per capacity ' +
          'from the union of its Capacity error incidents, clipped to the month (and to now for the current month).',
        tags: ['sla'],
        security,
        querystring: {
          type: 'object',
          additionalProperties: false,
          properties: {
            month: {
              type: 'string',
              pattern: '^\\d{4}-\\d{2}$',
              'x-expected': 'a month in the form yyyy-MM',
              description: 'yyyy-MM; default the previous month; not in the future, at most 12 months back.',
            },
          },
        },
        response: objectResponses(slaSchema, 'SLA report of the month'),
      },
    },
    async (request) => {
      const now = ctx.clock.now();
      const month = monthWindow(request.query.month, now);
      const org = await loadSlaTargets(ctx.db, request.apiCaller!.orgId);
      return slaReport(ctx.db, org, month, now);
    },
  );
}
