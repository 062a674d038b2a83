/**
 * Azure Resource Manager: `Microsoft.Fabric/capacities` reads (F and P SKUs), the
 * `Microsoft.PowerBIDedicated/capacities` listings (A and EM SKUs, Power BI Embedded) and their
 * Azure Monitor metrics (azure-monitor.ts), and Cost Management Query (POST, paged by `nextLink`
 * to which the same body is POSTed again; 204 when there is nothing).
 */
import { randomUUID } from 'node:crypto';
import { armReadRefusal, embeddedCapacity, isEmbedded, metricsList } from './azure-monitor.js';
import { armPage } from './paging.js';
import { armError, type Handler, ok, type Reply, type RequestContext } from './reply.js';
import type { SimCapacity, SimCapacityState, SimCostRow } from './types.js';

const ARM_STATE: Record<SimCapacityState, string> = {
  Active: 'Active',
  Suspended: 'Suspended',
  Paused: 'Paused',
  Inactive: 'Paused',
  ProvisionFailed: 'Failed',
  Provisioning: 'Provisioning',
};

export const COST_API_VERSION = '2025-03-01';
/** The longest period one daily query may cover (the vendor's documented rule). */
export const COST_MAX_DAYS = 31;

function armCapacity(c: SimCapacity) {
  return {
    id: `/subscriptions/${c.subscriptionId}/resourceGroups/${c.resourceGroup}/providers/Microsoft.Fabric/capacities/${c.armName}`,
    name: c.armName,
    type: 'Microsoft.Fabric/capacities',
    location: c.region.toLowerCase().replace(/\s+/g, ''),
    tags: {},
    sku: { name: c.sku, tier: 'Fabric' },
    properties: {
      provisioningState: c.state === 'ProvisionFailed' ? 'Failed' : c.state === 'Provisioning' ? 'Provisioning' : 'Succeeded',
      state: ARM_STATE[c.state],
      administration: { members: c.admins },
    },
  };
}

function checkPlace(ctx: RequestContext): Reply | null {
  const s = ctx.state.settings;
  if (ctx.pathParams.subscriptionId?.toLowerCase() !== s.subscriptionId.toLowerCase()) {
    return armError(404, 'SubscriptionNotFound', `The subscription '${ctx.pathParams.subscriptionId}' could not be found.`);
  }
  if (ctx.pathParams.resourceGroupName !== undefined && ctx.pathParams.resourceGroupName.toLowerCase() !== s.resourceGroup.toLowerCase()) {
    return armError(404, 'ResourceGroupNotFound', `Resource group '${ctx.pathParams.resourceGroupName}' could not be found.`);
  }
  return null;
}

// ---------- Cost Management Query ----------

type Filter = { and?: Filter[]; or?: Filter[]; dimensions?: { name: string; operator: string; values: string[] }; tags?: unknown };

const DIMENSIONS: Record<string, (r: SimCostRow, ctx: RequestContext) => string> = {
  // Cost Management answers resource ids in lower case, whatever ARM's spelling.
  resourceid: (r) => r.resourceId.toLowerCase(),
  resourcetype: (r) => r.resourceType,
  servicename: (r) => r.serviceName,
  metercategory: (r) => r.meterCategory,
  metersubcategory: (r) => r.meterSubCategory,
  meter: (r) => r.meter,
  resourcegroupname: (_r, ctx) => ctx.state.settings.resourceGroup,
  subscriptionid: (_r, ctx) => ctx.state.settings.subscriptionId,
};

function dimension(name: string, r: SimCostRow, ctx: RequestContext): string {
  return DIMENSIONS[name.toLowerCase()]?.(r, ctx) ?? '';
}

function matches(f: Filter | undefined, r: SimCostRow, ctx: RequestContext): boolean {
  if (!f) return true;
  if (f.and && !f.and.every((x) => matches(x, r, ctx))) return false;
  if (f.or && !f.or.some((x) => matches(x, r, ctx))) return false;
  if (f.dimensions) {
    const v = dimension(f.dimensions.name, r, ctx).toLowerCase();
    if (!f.dimensions.values.some((x) => x.toLowerCase() === v)) return false;
  }
  return true;
}

function isoDay(ms: number): string {
  return new Date(ms).toISOString().slice(0, 10);
}

/** [from, to] days (inclusive) of a query's timeframe. */
function period(ctx: RequestContext, q: { timeframe: string; timePeriod?: { from: string; to: string } }): [string, string] | string {
  const today = Math.floor(ctx.now / 86_400_000) * 86_400_000;
  const d = new Date(today);
  switch (q.timeframe) {
    case 'Custom': {
      if (!q.timePeriod) return 'timePeriod is required when timeframe is Custom.';
      const from = Date.parse(q.timePeriod.from);
      const to = Date.parse(q.timePeriod.to);
      if (Number.isNaN(from) || Number.isNaN(to) || to < from) return 'timePeriod is not a valid range.';
      return [isoDay(from), isoDay(to)];
    }
    case 'MonthToDate':
    case 'BillingMonthToDate':
      return [isoDay(Date.UTC(d.getUTCFullYear(), d.getUTCMonth(), 1)), isoDay(today)];
    case 'TheLastMonth':
    case 'TheLastBillingMonth':
      return [isoDay(Date.UTC(d.getUTCFullYear(), d.getUTCMonth() - 1, 1)), isoDay(Date.UTC(d.getUTCFullYear(), d.getUTCMonth(), 0))];
    case 'WeekToDate':
      return [isoDay(today - ((d.getUTCDay() + 6) % 7) * 86_400_000), isoDay(today)];
    default:
      return `timeframe ${q.timeframe} is not supported.`;
  }
}

/** Cost Management's scope check; null when the principal may read it. */
export function costScopeRefusal(ctx: RequestContext, scope: string): Reply | null {
  const s = ctx.state.settings;
  const norm = scope.replace(/^\/+|\/+$/g, '').toLowerCase();
  const m = /^subscriptions\/([^/]+)(?:\/resourcegroups\/([^/]+))?$/.exec(norm);
  if (!m) return armError(400, 'BadRequest', `Scope '${scope}' is not supported: use a subscription or a resource group.`);
  if (m[1] !== s.subscriptionId.toLowerCase()) return armError(404, 'SubscriptionNotFound', `The subscription '${m[1]}' could not be found.`);
  if (m[2] !== undefined && m[2] !== s.resourceGroup.toLowerCase()) return armError(404, 'ResourceGroupNotFound', `Resource group '${m[2]}' could not be found.`);
  const forbidden = s.costScopesForbidden.some((f) => f === '*' || f === norm || norm.startsWith(`${f}/`));
  if (forbidden) return armError(401, 'RBACAccessDenied', 'The client does not have authorization to perform action Microsoft.CostManagement/query/read over this scope.');
  return null;
}

function costQuery(ctx: RequestContext): Reply {
  const scope = ctx.pathParams.scope ?? '';
  const refusal = costScopeRefusal(ctx, scope);
  if (refusal) return refusal;
  const q = ctx.json as {
    type: string;
    timeframe: string;
    timePeriod?: { from: string; to: string };
    dataset?: { granularity?: string; aggregation?: Record<string, { name: string; function: string }>; grouping?: Array<{ type: string; name: string }>; filter?: Filter };
  };
  if (!q || typeof q !== 'object' || !q.timeframe) return armError(400, 'BadRequest', 'Invalid query definition.');
  const p = period(ctx, q);
  if (typeof p === 'string') return armError(400, 'BadRequest', p);
  const [from, to] = p;
  const daily = q.dataset?.granularity === 'Daily';
  const days = Math.round((Date.parse(to) - Date.parse(from)) / 86_400_000) + 1;
  if (daily && days > COST_MAX_DAYS) return armError(400, 'BadRequest', `Invalid query: a daily query may cover at most ${COST_MAX_DAYS} days (asked ${days}).`);
  const scopeRg = /resourcegroups\/([^/]+)/i.exec(scope)?.[1];
  const rows = ctx.state.costs.filter((r) => r.date >= from && r.date <= to && (!scopeRg || r.resourceId.toLowerCase().includes(`/resourcegroups/${scopeRg.toLowerCase()}/`)) && matches(q.dataset?.filter, r, ctx));
  const aggregations = Object.entries(q.dataset?.aggregation ?? { totalCost: { name: 'Cost', function: 'Sum' } });
  const groupings = (q.dataset?.grouping ?? []).map((g) => g.name);
  const amortized = q.type === 'AmortizedCost';
  const groups = new Map<string, { key: Array<string | number>; sums: number[] }>();
  for (const r of rows) {
    const key: Array<string | number> = [...(daily ? [Number(r.date.replaceAll('-', ''))] : []), ...groupings.map((g) => dimension(g, r, ctx))];
    const k = JSON.stringify(key);
    let g = groups.get(k);
    if (!g) {
      g = { key, sums: aggregations.map(() => 0) };
      groups.set(k, g);
    }
    for (let i = 0; i < aggregations.length; i++) g.sums[i]! += amortized ? r.amortized : r.actual;
  }
  const all = [...groups.values()]
    .sort((a, b) => JSON.stringify(a.key).localeCompare(JSON.stringify(b.key)))
    .map((g) => [...g.sums.map((s) => Math.round(s * 1e6) / 1e6), ...g.key, ctx.state.settings.currency]);
  if (all.length === 0) return { status: 204 };
  const skip = Number(ctx.query.get('$skiptoken') ?? 0);
  const page = all.slice(skip, skip + ctx.costPageRows);
  const columns = [
    ...aggregations.map(([name]) => ({ name, type: 'Number' })),
    ...(daily ? [{ name: 'UsageDate', type: 'Number' }] : []),
    ...groupings.map((name) => ({ name, type: 'String' })),
    { name: 'Currency', type: 'String' },
  ];
  const id = randomUUID();
  const properties: Record<string, unknown> = { columns, rows: page };
  if (skip + ctx.costPageRows < all.length) {
    properties.nextLink = `${ctx.origin}/${scope.replace(/^\/+/, '')}/providers/Microsoft.CostManagement/query?api-version=${COST_API_VERSION}&$skiptoken=${skip + ctx.costPageRows}`;
  }
  return ok({ id: `/${scope.replace(/^\/+/, '')}/providers/Microsoft.CostManagement/query/${id}`, name: id, type: 'Microsoft.CostManagement/query', properties });
}

/** Capacities of one ARM resource type (Embedded A/EM SKUs are PowerBIDedicated resources, not Fabric ones). */
const fabricCapacities = (ctx: RequestContext) => ctx.state.capacities.filter((c) => !isEmbedded(c));
const embeddedCapacities = (ctx: RequestContext) => ctx.state.capacities.filter((c) => isEmbedded(c));
const inGroup = (ctx: RequestContext) => (c: SimCapacity) => c.resourceGroup.toLowerCase() === ctx.pathParams.resourceGroupName?.toLowerCase();

export const AZURE_HANDLERS: Record<string, Handler> = {
  FabricCapacities_ListBySubscription: (ctx) => checkPlace(ctx) ?? armPage(ctx, fabricCapacities(ctx), 100, armCapacity),
  FabricCapacities_ListByResourceGroup: (ctx) => checkPlace(ctx) ?? armPage(ctx, fabricCapacities(ctx).filter(inGroup(ctx)), 100, armCapacity),
  // The PowerBIDedicated listings are not paged (the description has no nextLink).
  Capacities_List: (ctx) => checkPlace(ctx) ?? armReadRefusal(ctx) ?? ok({ value: embeddedCapacities(ctx).map(embeddedCapacity) }),
  Capacities_ListByResourceGroup: (ctx) => checkPlace(ctx) ?? armReadRefusal(ctx) ?? ok({ value: embeddedCapacities(ctx).filter(inGroup(ctx)).map(embeddedCapacity) }),
  Metrics_List: metricsList,
  FabricCapacities_Get: (ctx) => {
    const refused = checkPlace(ctx);
    if (refused) return refused;
    const c = fabricCapacities(ctx).find((x) => x.armName.toLowerCase() === ctx.pathParams.capacityName?.toLowerCase());
    if (!c) return armError(404, 'ResourceNotFound', `The Resource 'Microsoft.Fabric/capacities/${ctx.pathParams.capacityName}' was not found.`);
    return ok(armCapacity(c));
  },
  Query_Usage: costQuery,
};
