import type { AppContext } from '../context.js';
import { countOpenAlertsBy } from '../alerts/listing.js';
import { invalidRequest } from '../http/errors.js';
import { listDailyCosts, type CostItem } from '../public-api/queries/costs.js';
import { listCapacities, listWorkspaces, type CapacityItem, type WorkspaceItem } from '../public-api/queries/inventory.js';
import { capacitiesOf } from '../orgs/inventory.js';
import { monitoredCapacitiesByName } from '../monitoring/sources/inventory/inventory-views.js';
import { summarizeIncidents } from '../public-api/queries/metrics.js';
import { capacityAvailability, loadSlaTargets, slaReport } from '../public-api/queries/sla.js';
import { DAY_MS, type dayWindow, formatDate, monthWindow } from '../public-api/windows.js';

/**
 * The figures of the console's overview and inventory views, computed with the public API's own
 * query functions (metrics, SLA, costs, inventory) and the same windows, so the console and the
 * public API always agree for the same period. The routes are in ./overview.ts.
 */

/** Rows a single answer may carry (a year of daily costs of ~27 capacities). */
const MAX_ROWS = 10_000;
/** Buckets of one series: 92 days, or the weeks of a year. */
const MAX_BUCKETS = 92;

type Window = ReturnType<typeof dayWindow>;

/** Every cost row of the window in one currency (the public list's statement, one big page). */
export async function allCosts(ctx: AppContext, orgId: string, w: { from: string; to: string }, currency?: string) {
  const page = await listDailyCosts(ctx.db, { orgId, from: w.from, to: w.to, currency }, 0, MAX_ROWS, null);
  return { currency: page.currency, items: JSON.parse(page.itemsJson) as CostItem[] };
}

function buckets(w: Window, step: 'day' | 'week'): Array<{ start: Date; end: Date }> {
  const size = step === 'day' ? DAY_MS : 7 * DAY_MS;
  const out: Array<{ start: Date; end: Date }> = [];
  for (let s = w.start.getTime(); s < w.endExclusive.getTime(); s += size) {
    out.push({ start: new Date(s), end: new Date(Math.min(s + size, w.endExclusive.getTime())) });
  }
  return out;
}

/** Incidents by source type, MTTA and MTTR per day or per week of the window. */
export async function metricsSeries(ctx: AppContext, orgId: string, w: Window, step: 'day' | 'week') {
  const parts = buckets(w, step);
  if (parts.length > MAX_BUCKETS) throw invalidRequest(`the period must have at most ${MAX_BUCKETS} ${step}s`);
  const out = [];
  // One bucket after the other: each is a small read of the rollups, and a series must not
  // take every connection of the pool.
  for (const b of parts) {
    const s = await summarizeIncidents(ctx.db, orgId, b.start, b.end);
    out.push({
      from: formatDate(b.start),
      to: formatDate(new Date(b.end.getTime() - DAY_MS)),
      incidents: s.incidents,
      bySourceType: s.bySourceType,
      mtta: s.mtta,
      mttr: s.mttr,
    });
  }
  return { from: w.from, to: w.to, step, buckets: out };
}

/** SLA reports of the last 12 months, the current one (so far) last. */
export async function slaHistory(ctx: AppContext, orgId: string) {
  const now = ctx.clock.now();
  const org = await loadSlaTargets(ctx.db, orgId);
  const months = [];
  for (let back = 11; back >= 0; back--) {
    const d = new Date(Date.UTC(now.getUTCFullYear(), now.getUTCMonth() - back, 1));
    months.push(await slaReport(ctx.db, org, monthWindow(d.toISOString().slice(0, 7), now), now));
  }
  return { months };
}

/** Capacities with availability and cost this month and open incidents. */
export async function capacityInventory(ctx: AppContext, orgId: string) {
  const now = ctx.clock.now();
  const month = monthWindow(formatDate(now).slice(0, 7), now);
  const org = await loadSlaTargets(ctx.db, orgId);
  const page = await listCapacities(ctx.db, orgId, 0, MAX_ROWS, null);
  const capacities = JSON.parse(page.itemsJson) as CapacityItem[];
  const availability = new Map(
    (await capacityAvailability(ctx.db, orgId, month.start, now, org.availabilityPercent)).map((a) => [a.capacityName, a.availabilityPercent]),
  );
  const costs = await allCosts(ctx, orgId, { from: formatDate(month.start), to: formatDate(now) });
  const costOf = new Map<string, number>();
  for (const c of costs.items) costOf.set(c.capacityName, (costOf.get(c.capacityName) ?? 0) + c.cost);
  const open = await countOpenAlertsBy(ctx.db, orgId, 'capacity');
  const armNames = new Map((await capacitiesOf(ctx.db, orgId)).map((c) => [c.name, c.armName ?? null]));
  const monitored = await monitoredCapacitiesByName(ctx.db, orgId);
  return {
    month: month.month,
    currency: costs.currency,
    items: capacities.map((c) => ({
      ...c,
      armName: armNames.get(c.name) ?? null,
      // A capacity without any Capacity error incident was up the whole month.
      availabilityPercent: availability.get(c.name) ?? 100,
      costThisMonth: costOf.has(c.name) ? Math.round(costOf.get(c.name)! * 100) / 100 : null,
      openIncidents: open.get(c.name) ?? 0,
      monitored: monitored.get(c.name) ?? [],
    })),
  };
}

/** Workspaces with their capacity and open incidents. */
export async function workspaceInventory(ctx: AppContext, orgId: string) {
  const page = await listWorkspaces(ctx.db, orgId, 0, MAX_ROWS, null);
  const workspaces = JSON.parse(page.itemsJson) as WorkspaceItem[];
  const open = await countOpenAlertsBy(ctx.db, orgId, 'workspace');
  return { items: workspaces.map((w) => ({ ...w, openIncidents: open.get(w.name) ?? 0 })) };
}
