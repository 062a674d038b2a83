/**
 * costs — daily cost of the Fabric capacities from Cost Management Query, per cost scope:
 * actual and amortized cost, daily, grouped by resource and meter, filtered to
 * `microsoft.fabric/capacities`. The first run reads 90 days back, later runs from three days
 * before the last day read (Cost Management refreshes its data about every 4 hours and late
 * usage lands on past days); at most 31 days per query. `overageCost` is the actual cost of the
 * meters whose name contains "Overage". Rows are upserted per (day, capacity, billing currency),
 * so reading a day again replaces it; they are written in the run's commit, with the cursors. The capacity is the last segment of the resource id, spelled
 * as the organization's inventory spells it when it lists that capacity.
 */
import { capacitiesOf, upsertCostsIn, type DailyCost } from '../../../orgs/inventory.js';
import type { Collector } from '../../engine/collector.js';
import type { StateChange } from '../../engine/output.js';
import type { PlatformClient } from '../../platform/platform-client.js';
import { VendorAnswerError } from '../../platform/platform-client.js';
import { COST_API_VERSION } from './cost-query.js';

const FIRST_RUN_DAYS = 90;
const REREAD_DAYS = 3;
const MAX_DAYS_PER_QUERY = 31;
const DAY_MS = 86_400_000;

const isoDay = (ms: number) => new Date(ms).toISOString().slice(0, 10);

/** [from, to] day windows of at most 31 days covering [from, to]. */
export function dayWindows(from: string, to: string): [string, string][] {
  const out: [string, string][] = [];
  for (let start = Date.parse(from); start <= Date.parse(to); start += MAX_DAYS_PER_QUERY * DAY_MS) {
    out.push([isoDay(start), isoDay(Math.min(start + (MAX_DAYS_PER_QUERY - 1) * DAY_MS, Date.parse(to)))]);
  }
  return out;
}

interface Row {
  date: string;
  capacity: string;
  meter: string;
  currency: string;
  cost: number;
}

async function query(client: PlatformClient, scope: string, type: 'ActualCost' | 'AmortizedCost', from: string, to: string): Promise<Row[]> {
  const body = {
    type,
    timeframe: 'Custom',
    timePeriod: { from: `${from}T00:00:00Z`, to: `${to}T23:59:59Z` },
    dataset: {
      granularity: 'Daily',
      aggregation: { totalCost: { name: 'Cost', function: 'Sum' } },
      grouping: [
        { type: 'Dimension', name: 'ResourceId' },
        { type: 'Dimension', name: 'Meter' },
      ],
      filter: { dimensions: { name: 'ResourceType', operator: 'In', values: ['microsoft.fabric/capacities'] } },
    },
  };
  const url = `${client.arm(scope)}/providers/Microsoft.CostManagement/query?api-version=${COST_API_VERSION}`;
  const rows: Row[] = [];
  const read = (page: Record<string, unknown>) => {
    const props = (page.properties ?? {}) as { columns?: { name?: string }[]; rows?: unknown[][] };
    const names = (props.columns ?? []).map((c) => String(c.name ?? '').toLowerCase());
    const at = (n: string) => names.indexOf(n);
    const cost = at('totalcost') >= 0 ? at('totalcost') : at('cost');
    const date = at('usagedate');
    const resource = at('resourceid');
    const meter = at('meter');
    const currency = at('currency');
    if ([cost, date, resource, currency].some((i) => i < 0)) throw new VendorAnswerError('Cost Management answered without the expected columns');
    return (props.rows ?? []).map((r) => {
      const d = String(r[date]);
      const resourceId = String(r[resource] ?? '');
      return {
        date: /^\d{8}$/.test(d) ? `${d.slice(0, 4)}-${d.slice(4, 6)}-${d.slice(6, 8)}` : d.slice(0, 10),
        capacity: resourceId.split('/').pop() || resourceId,
        meter: meter >= 0 ? String(r[meter] ?? '') : '',
        currency: String(r[currency] ?? ''),
        cost: Number(r[cost]),
      };
    });
  };
  for await (const page of client.nextLinkPages<Row>({ family: 'cost', audience: 'arm', method: 'POST', url, body }, read)) rows.push(...page);
  return rows;
}

export const costsCollector: Collector = {
  name: 'costs',
  async run({ ctx, tenant, client, state, reader, write, commit }) {
    const today = isoDay(ctx.clock.now().getTime());
    const changes: StateChange[] = [];
    // Cost Management spells resource ids in lower case: a cost row takes the inventory's
    // spelling of its capacity's name, so costs and capacities join on the same name. A capacity
    // whose display name differs from its resource name is found by its ARM name (inventory.ts).
    const inventory = await capacitiesOf(reader, tenant.org_id);
    const known = new Map(inventory.map((c) => [c.name.toLowerCase(), c.name]));
    for (const c of inventory) if (c.armName && !known.has(c.armName.toLowerCase())) known.set(c.armName.toLowerCase(), c.name);
    const nameOf = (resourceName: string) => known.get(resourceName.toLowerCase()) ?? resourceName;
    for (const scope of tenant.cost_scopes) {
      const key = `cursor:${scope.toLowerCase()}`;
      const last = state.get(key) as string | undefined;
      const from = last ? isoDay(Date.parse(last) - REREAD_DAYS * DAY_MS) : isoDay(Date.parse(today) - FIRST_RUN_DAYS * DAY_MS);
      const byKey = new Map<string, DailyCost>();
      const entry = (r: Row) => {
        const capacityName = nameOf(r.capacity);
        const k = `${r.date}|${capacityName}|${r.currency}`;
        const seen = byKey.get(k);
        if (seen) return seen;
        const e: DailyCost = { date: r.date, capacityName, currency: r.currency, cost: 0, amortizedCost: 0, overageCost: 0 };
        byKey.set(k, e);
        return e;
      };
      for (const [a, b] of dayWindows(from, today)) {
        for (const r of await query(client, scope, 'ActualCost', a, b)) {
          const e = entry(r);
          e.cost += r.cost;
          if (/overage/i.test(r.meter)) e.overageCost += r.cost;
        }
        for (const r of await query(client, scope, 'AmortizedCost', a, b)) entry(r).amortizedCost += r.cost;
      }
      const items = [...byKey.values()].map((c) => ({
        ...c,
        cost: Math.round(c.cost * 1e6) / 1e6,
        amortizedCost: Math.round(c.amortizedCost * 1e6) / 1e6,
        overageCost: Math.round(c.overageCost * 1e6) / 1e6,
      }));
      if (items.length > 0) write((q) => upsertCostsIn(q, tenant.org_id, items));
      changes.push({ key, value: today });
    }
    await commit([], changes);
  },
};
