/**
 * Capacity load history: each capacity's 30-second figures (14 days) and their hourly roll-ups
 * (400 days: max and mean of each figure, minutes in each throttling stage). Writing is
 * idempotent — a window already stored is not stored again, and an hour's roll-up is recomputed
 * from the stored windows — so a commit retried, or the next run reading the same rows again,
 * doubles nothing. The collector stores windows only through its run's commit (reader.ts): a run
 * that lost its lease stores none.
 */
import type { FencedTx } from '../../engine/reader.js';
import type { WindowFigures } from './utilization-events.js';

export const RAW_RETENTION_DAYS = 14;
export const HOURLY_RETENTION_DAYS = 400;
const DAY_MS = 86_400_000;

/** Stores new windows and refreshes the roll-up of every hour they touch. */
export async function storeWindows(q: FencedTx, orgId: string, tenantRef: string, windows: WindowFigures[]): Promise<void> {
  if (windows.length === 0) return;
  await q.query(
    `INSERT INTO capacity_utilization (tenant_ref, org_id, capacity_id, capacity_name, window_start, sku, utilization_pct, delay_pct,
       interactive_rejection_pct, background_rejection_pct, carry_forward_cu_ms)
     SELECT $1, $2, u.* FROM unnest($3::text[], $4::text[], $5::timestamptz[], $6::text[], $7::real[], $8::real[], $9::real[], $10::real[], $11::float8[])
       AS u(capacity_id, capacity_name, window_start, sku, utilization_pct, delay_pct, irej, brej, carry)
     ON CONFLICT (tenant_ref, capacity_id, window_start) DO NOTHING`,
    [
      tenantRef,
      orgId,
      windows.map((w) => w.capacityId),
      windows.map((w) => w.capacityName),
      windows.map((w) => w.windowStart),
      windows.map((w) => w.sku),
      windows.map((w) => w.utilizationPct),
      windows.map((w) => w.delayPct),
      windows.map((w) => w.interactiveRejectionPct),
      windows.map((w) => w.backgroundRejectionPct),
      windows.map((w) => w.carryForwardCuMs),
    ],
  );
  const hours = new Map<string, { capacityId: string; hour: Date }>();
  for (const w of windows) {
    const hour = new Date(Math.floor(w.windowStart.getTime() / 3_600_000) * 3_600_000);
    hours.set(`${w.capacityId}|${hour.toISOString()}`, { capacityId: w.capacityId, hour });
  }
  const list = [...hours.values()];
  await q.query(
    `INSERT INTO capacity_utilization_hourly (tenant_ref, org_id, capacity_id, capacity_name, hour, windows, utilization_max, utilization_mean,
       delay_max, delay_mean, interactive_rejection_max, interactive_rejection_mean, background_rejection_max, background_rejection_mean,
       carry_forward_max_cu_ms, delay_minutes, interactive_rejection_minutes, background_rejection_minutes)
     SELECT c.tenant_ref, c.org_id, c.capacity_id, (array_agg(c.capacity_name ORDER BY c.window_start DESC))[1], h.hour, count(*)::int,
       max(c.utilization_pct), avg(c.utilization_pct), max(c.delay_pct), avg(c.delay_pct),
       max(c.interactive_rejection_pct), avg(c.interactive_rejection_pct), max(c.background_rejection_pct), avg(c.background_rejection_pct),
       max(c.carry_forward_cu_ms),
       0.5 * count(*) FILTER (WHERE c.delay_pct > 100),
       0.5 * count(*) FILTER (WHERE c.interactive_rejection_pct > 100),
       0.5 * count(*) FILTER (WHERE c.background_rejection_pct > 100)
     FROM unnest($2::text[], $3::timestamptz[]) AS h(capacity_id, hour)
     JOIN capacity_utilization c ON c.tenant_ref = $1 AND c.capacity_id = h.capacity_id
       AND c.window_start >= h.hour AND c.window_start < h.hour + interval '1 hour'
     GROUP BY c.tenant_ref, c.org_id, c.capacity_id, h.hour
     ON CONFLICT (tenant_ref, capacity_id, hour) DO UPDATE SET capacity_name = EXCLUDED.capacity_name, windows = EXCLUDED.windows,
       utilization_max = EXCLUDED.utilization_max, utilization_mean = EXCLUDED.utilization_mean, delay_max = EXCLUDED.delay_max,
       delay_mean = EXCLUDED.delay_mean, interactive_rejection_max = EXCLUDED.interactive_rejection_max,
       interactive_rejection_mean = EXCLUDED.interactive_rejection_mean, background_rejection_max = EXCLUDED.background_rejection_max,
       background_rejection_mean = EXCLUDED.background_rejection_mean, carry_forward_max_cu_ms = EXCLUDED.carry_forward_max_cu_ms,
       delay_minutes = EXCLUDED.delay_minutes, interactive_rejection_minutes = EXCLUDED.interactive_rejection_minutes,
       background_rejection_minutes = EXCLUDED.background_rejection_minutes`,
    [tenantRef, list.map((h) => h.capacityId), list.map((h) => h.hour)],
  );
}

/** Drops 30-second figures older than 14 days and roll-ups older than 400 days. */
export async function purgeUtilizationHistory(q: FencedTx, now: Date): Promise<{ windows: number; hours: number }> {
  const raw = await q.query('DELETE FROM capacity_utilization WHERE window_start < $1', [new Date(now.getTime() - RAW_RETENTION_DAYS * DAY_MS)]);
  const hourly = await q.query('DELETE FROM capacity_utilization_hourly WHERE hour < $1', [new Date(now.getTime() - HOURLY_RETENTION_DAYS * DAY_MS)]);
  return { windows: raw.rowCount ?? 0, hours: hourly.rowCount ?? 0 };
}
