/**
 * Power BI Embedded capacities (A and EM SKUs) as ARM shows them — `Microsoft.PowerBIDedicated/capacities`
 * — and their Azure Monitor platform metrics `cpu_metric` (Percent) and `overload_metric` (Count,
 * 1 when overloaded), one point per minute (capacity-load/README.md §6.1).
 *
 * The metrics come from the same load model as the capacity events (capacity-load.ts), so the
 * throttling controls drive both: a minute's CPU is the mean of its two 30-second windows'
 * utilization, and the capacity is overloaded in a window whose next-10-minutes figure passes
 * 100 %. A point is published METRIC_DELAY_MS after its minute ends; until then, and for a paused
 * capacity, the minute is listed with its `timeStamp` alone (no aggregation), as Azure Monitor
 * answers for minutes without data.
 */
import { EVENT_TYPES, loadOf, materialize, WINDOW_MS } from './capacity-load.js';
import { armError, ok, type Reply, type RequestContext } from './reply.js';
import { metricPublished } from './eventhouse-faults.js';
import type { SimCapacity, SimCapacityState } from './types.js';

const MINUTE_MS = 60_000;
/** Azure Monitor publishes a minute's point this long after the minute ends. */
export const METRIC_DELAY_MS = 60_000;
/** The longest timespan one query may ask at PT1M (the simulator's limit; the service limits points per call). */
export const MAX_TIMESPAN_MS = 24 * 3_600_000;
const METRICS = {
  cpu_metric: { unit: 'Percent', display: 'CPU (Gen2)' },
  overload_metric: { unit: 'Count', display: 'Overload (Gen2)' },
} as const;
type MetricName = keyof typeof METRICS;
const AGGREGATIONS = ['average', 'maximum', 'minimum', 'total', 'count'] as const;
type Aggregation = (typeof AGGREGATIONS)[number];

export function isEmbedded(c: Pick<SimCapacity, 'sku'>): boolean {
  return /^(A|EM)\d+$/i.test(c.sku);
}

const STATE: Record<SimCapacityState, string> = {
  Active: 'Succeeded',
  Suspended: 'Paused',
  Paused: 'Paused',
  Inactive: 'Paused',
  ProvisionFailed: 'Failed',
  Provisioning: 'Provisioning',
};

export const embeddedResourceId = (c: SimCapacity) => `/subscriptions/${c.subscriptionId}/resourceGroups/${c.resourceGroup}/providers/Microsoft.PowerBIDedicated/capacities/${c.armName}`;

export function embeddedCapacity(c: SimCapacity) {
  return {
    id: embeddedResourceId(c),
    name: c.armName,
    type: 'Microsoft.PowerBIDedicated/capacities',
    location: c.region,
    tags: {},
    sku: { name: c.sku, tier: 'PBIE_Azure' },
    properties: {
      administration: { members: c.admins },
      mode: 'Gen2',
      state: STATE[c.state],
      provisioningState: c.state === 'ProvisionFailed' ? 'Failed' : c.state === 'Provisioning' ? 'Provisioning' : 'Succeeded',
    },
  };
}

/** 403 when the principal has no ARM read at the request's scope (settings.armReadForbidden). */
export function armReadRefusal(ctx: RequestContext): Reply | null {
  const forbidden = ctx.state.settings.armReadForbidden ?? [];
  if (forbidden.length === 0) return null;
  const p = ctx.pathParams;
  const scope = (p.resourceUri ?? (p.resourceGroupName ? `subscriptions/${p.subscriptionId}/resourceGroups/${p.resourceGroupName}` : `subscriptions/${p.subscriptionId}`)).replace(/^\/+/, '').toLowerCase();
  if (!forbidden.some((f) => f === '*' || f === scope || scope.startsWith(`${f}/`))) return null;
  const action = p.resourceUri ? 'Microsoft.Insights/metrics/read' : 'Microsoft.PowerBIDedicated/capacities/read';
  return armError(403, 'AuthorizationFailed', `The client does not have authorization to perform action '${action}' over scope '/${scope}' or the scope is invalid.`);
}

/** `start/end` (ISO 8601) → [start, end) in ms, or a reason. */
function parseTimespan(v: string | null, now: number): [number, number] | string {
  if (v === null) return [now - 3_600_000, now];
  const [a, b] = v.split('/');
  const from = Date.parse(a ?? '');
  const to = Date.parse(b ?? '');
  if (!Number.isFinite(from) || !Number.isFinite(to) || to <= from) return `Invalid timespan '${v}': expected 'startDateTime_ISO/endDateTime_ISO'.`;
  if (to - from > MAX_TIMESPAN_MS) return `The timespan '${v}' is longer than ${MAX_TIMESPAN_MS / 3_600_000} hours at interval PT1M.`;
  return [from, to];
}

interface MinuteFigures {
  cpu: number[];
  overload: number[];
}

/** Each minute's windows of the load model (their Summary rows, once per window), keyed by minute start. */
function minutesOf(ctx: RequestContext, c: SimCapacity, from: number, to: number): Map<number, MinuteFigures> {
  materialize(ctx.state, c, ctx.now);
  const out = new Map<number, MinuteFigures>();
  const seen = new Set<number>();
  for (const r of loadOf(ctx.state, c, ctx.now).rows) {
    if (r.type !== EVENT_TYPES.summary) continue;
    const d = r.data as Record<string, number | string>;
    const start = Date.parse(`${String(d.windowStartTime).slice(0, 19).replace(' ', 'T')}Z`);
    if (start < from || start >= to || seen.has(start)) continue;
    seen.add(start);
    const minute = Math.floor(start / MINUTE_MS) * MINUTE_MS;
    const budget = Number(d.baseCapacityUnits) * 1000 * (WINDOW_MS / 1000);
    const f = out.get(minute) ?? { cpu: [], overload: [] };
    f.cpu.push(budget > 0 ? Math.min(100, (Number(d.capacityUnitMs) / budget) * 100) : 0);
    f.overload.push(Number(d.interactiveDelayThresholdPercentage) > 100 ? 1 : 0);
    out.set(minute, f);
  }
  return out;
}

function aggregate(values: number[], how: Aggregation): number {
  if (how === 'average') return values.reduce((a, b) => a + b, 0) / values.length;
  if (how === 'maximum') return Math.max(...values);
  if (how === 'minimum') return Math.min(...values);
  if (how === 'total') return values.reduce((a, b) => a + b, 0);
  return values.length;
}

/** GET /{resourceUri}/providers/Microsoft.Insights/metrics */
export function metricsList(ctx: RequestContext): Reply {
  const uri = `/${(ctx.pathParams.resourceUri ?? '').replace(/^\/+/, '')}`;
  const m = /^\/subscriptions\/([^/]+)\/resourceGroups\/([^/]+)\/providers\/Microsoft\.PowerBIDedicated\/capacities\/([^/]+)$/i.exec(uri);
  const s = ctx.state.settings;
  if (m && m[1]!.toLowerCase() !== s.subscriptionId.toLowerCase()) return armError(404, 'SubscriptionNotFound', `The subscription '${m[1]}' could not be found.`);
  const refused = armReadRefusal(ctx);
  if (refused) return refused;
  if ((s.metricsThrottled ?? 0) > 0) {
    s.metricsThrottled! -= 1;
    // The metrics back-end's own throttling: 529, not ARM's 429 (capacity-load/README.md §6.1).
    return armError(529, 'TooManyRequests', 'The metrics service is throttling requests; retry with exponential back-off.');
  }
  const c = m ? ctx.state.capacities.find((x) => isEmbedded(x) && x.armName.toLowerCase() === m[3]!.toLowerCase() && x.resourceGroup.toLowerCase() === m[2]!.toLowerCase()) : undefined;
  if (!c) return armError(404, 'ResourceNotFound', `The Resource '${uri}' was not found.`);
  const names = (ctx.query.get('metricnames') ?? 'cpu_metric').split(',').map((n) => n.trim());
  const unknown = names.filter((n) => !(n in METRICS));
  if (unknown.length > 0) {
    return armError(400, 'BadRequest', `Failed to find metric configuration for provider: Microsoft.PowerBIDedicated, resource Type: capacities, metric: ${unknown.join(',')}, Valid metrics: ${Object.keys(METRICS).join(',')}`);
  }
  const interval = ctx.query.get('interval') ?? 'PT1M';
  if (interval !== 'PT1M') return armError(400, 'BadRequest', `The simulator serves interval PT1M only, not '${interval}'.`);
  const aggregations = (ctx.query.get('aggregation') ?? 'average').split(',').map((a) => a.trim().toLowerCase());
  const badAggregation = aggregations.find((a) => !(AGGREGATIONS as readonly string[]).includes(a));
  if (badAggregation) return armError(400, 'BadRequest', `Invalid aggregation '${badAggregation}'.`);
  const span = parseTimespan(ctx.query.get('timespan'), ctx.now);
  if (typeof span === 'string') return armError(400, 'BadRequest', span);
  const [from, to] = span;
  const first = Math.floor(from / MINUTE_MS) * MINUTE_MS;
  const figures = minutesOf(ctx, c, first, to);
  const value = (names as MetricName[]).map((name) => {
    const data: Array<Record<string, unknown>> = [];
    for (let t = first; t < to; t += MINUTE_MS) {
      const point: Record<string, unknown> = { timeStamp: new Date(t).toISOString().replace('.000Z', 'Z') };
      const f = figures.get(t);
      if (f && metricPublished(ctx.state, name, t, ctx.now, METRIC_DELAY_MS)) {
        const values = name === 'cpu_metric' ? f.cpu : f.overload;
        const forced = ctx.state.settings.metricValue?.metric === name ? ctx.state.settings.metricValue.value : null;
        for (const a of aggregations as Aggregation[]) point[a] = forced ?? Math.round(aggregate(values, a) * 1000) / 1000;
      }
      data.push(point);
    }
    return {
      id: `${uri}/providers/Microsoft.Insights/metrics/${name}`,
      type: 'Microsoft.Insights/metrics',
      name: { value: name, localizedValue: METRICS[name].display },
      displayDescription: name === 'cpu_metric' ? 'CPU utilization' : 'Overload: 1 if the capacity is overloaded, else 0',
      unit: METRICS[name].unit,
      timeseries: [{ metadatavalues: [], data }],
      errorCode: 'Success',
    };
  });
  return ok({
    cost: Math.max(1, Math.round((to - first) / MINUTE_MS) * names.length),
    timespan: `${new Date(from).toISOString()}/${new Date(to).toISOString()}`,
    interval: 'PT1M',
    value,
    namespace: 'Microsoft.PowerBIDedicated/capacities',
    resourceregion: c.region.toLowerCase().replace(/\s+/g, ''),
  });
}
