import type { AppContext } from '../context.js';
import { invalidRequest } from '../http/errors.js';
import { type Granularity, listCapacityUtilization } from '../public-api/queries/capacity-utilization.js';

/**
 * The figures of the console's capacity load chart: the public API's own query of
 * `/capacities/utilization` (so the console and the public API agree to the digit), unpaged, and
 * the capacity-load incidents (CapacityThrottled, CapacityHighUtilization) that were open at some
 * point of the same period, to be marked on the chart. The route is in ./capacity-load.ts.
 */

/** One capacity's 30-second windows of a week: more points than that is a period to narrow. */
export const MAX_POINTS = 20_160;
export const LOAD_KINDS = ['CapacityThrottled', 'CapacityHighUtilization'] as const;

export interface LoadIncident {
  id: string;
  capacityName: string;
  notificationKind: string;
  severity: string;
  title: string;
  openedAt: string;
  resolvedAt: string | null;
}

export async function capacityLoadView(ctx: AppContext, orgId: string, f: { capacityName?: string; from: Date; to: Date; granularity: Granularity }) {
  const page = await listCapacityUtilization(ctx.db, { orgId, ...f }, 0, MAX_POINTS, null);
  if (page.totalCount > MAX_POINTS) {
    throw invalidRequest(`the period holds ${page.totalCount} points, more than ${MAX_POINTS}: choose one capacity, a shorter period or granularity=hour`);
  }
  const params: unknown[] = [orgId, f.from, f.to, [...LOAD_KINDS]];
  const one = f.capacityName !== undefined ? ` AND capacity_name = $${params.push(f.capacityName)}` : '';
  const { rows } = await ctx.db.query<{ id: string; capacity_name: string | null; notification_kind: string; severity: string; title: string; created_at: Date; resolved_at: Date | null }>(
    `SELECT id, capacity_name, notification_kind, severity, title, created_at, resolved_at FROM alerts
      WHERE org_id = $1 AND source_type = 'Capacity' AND notification_kind = ANY($4::text[])
        AND created_at <= $3 AND (resolved_at IS NULL OR resolved_at >= $2)${one}
      ORDER BY created_at, id LIMIT 1000`,
    params,
  );
  const incidents: LoadIncident[] = rows.map((r) => ({
    id: r.id,
    capacityName: r.capacity_name ?? '',
    notificationKind: r.notification_kind,
    severity: r.severity,
    title: r.title,
    openedAt: new Date(r.created_at).toISOString(),
    resolvedAt: r.resolved_at ? new Date(r.resolved_at).toISOString() : null,
  }));
  return { from: f.from.toISOString(), to: f.to.toISOString(), granularity: f.granularity, items: JSON.parse(page.itemsJson) as unknown[], incidents };
}
