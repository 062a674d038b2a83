import type { Queryable } from '../../db/index.js';
import { type JsonPage, type KeyRecheck, runPageStatement, SqlParams } from '../page-statement.js';

/** The documented field order of a capacity utilization item (also the CSV header). */
export const UTILIZATION_FIELDS = [
  'time', 'capacityName', 'granularity', 'windows',
  'utilizationMax', 'utilizationMean', 'interactiveDelayMax', 'interactiveDelayMean',
  'interactiveRejectionMax', 'interactiveRejectionMean', 'backgroundRejectionMax', 'backgroundRejectionMean',
  'carryForwardMaxCuSeconds', 'interactiveDelayMinutes', 'interactiveRejectionMinutes', 'backgroundRejectionMinutes',
] as const;

export type Granularity = '30s' | 'hour';

/**
 * One page of a capacity's (or every capacity's) load, oldest first then by capacity name: the
 * 30-second figures (kept 14 days) or their hourly roll-ups (kept 400 days), in one item shape —
 * a 30-second item is one window whose max and mean are its value and whose stage minutes are
 * 0.5 when the figure was over 100 %. Percentages are of the capacity's CU; `time` is the start
 * of the window or hour (ISO 8601 UTC).
 */
export async function listCapacityUtilization(
  db: Queryable,
  f: { orgId: string; capacityName?: string; from: Date; to: Date; granularity: Granularity },
  offset: number,
  limit: number,
  recheck: KeyRecheck | null,
): Promise<JsonPage> {
  const params = new SqlParams();
  const hourly = f.granularity === 'hour';
  const table = hourly ? 'capacity_utilization_hourly' : 'capacity_utilization';
  const at = hourly ? 'hour' : 'window_start';
  const cond = `org_id = ${params.add(f.orgId)} AND ${at} >= ${params.add(f.from)} AND ${at} < ${params.add(f.to)}${
    f.capacityName !== undefined ? ` AND capacity_name = ${params.add(f.capacityName)}` : ''
  }`;
  const over = (col: string) => `CASE WHEN d.${col} > 100 THEN 0.5 ELSE 0 END::float8`;
  const fields = hourly
    ? `d.windows, d.utilization_max::float8 AS "utilizationMax", d.utilization_mean::float8 AS "utilizationMean",
       d.delay_max::float8 AS "interactiveDelayMax", d.delay_mean::float8 AS "interactiveDelayMean",
       d.interactive_rejection_max::float8 AS "interactiveRejectionMax", d.interactive_rejection_mean::float8 AS "interactiveRejectionMean",
       d.background_rejection_max::float8 AS "backgroundRejectionMax", d.background_rejection_mean::float8 AS "backgroundRejectionMean",
       (d.carry_forward_max_cu_ms / 1000)::float8 AS "carryForwardMaxCuSeconds", d.delay_minutes::float8 AS "interactiveDelayMinutes",
       d.interactive_rejection_minutes::float8 AS "interactiveRejectionMinutes", d.background_rejection_minutes::float8 AS "backgroundRejectionMinutes"`
    : `1 AS windows, d.utilization_pct::float8 AS "utilizationMax", d.utilization_pct::float8 AS "utilizationMean",
       d.delay_pct::float8 AS "interactiveDelayMax", d.delay_pct::float8 AS "interactiveDelayMean",
       d.interactive_rejection_pct::float8 AS "interactiveRejectionMax", d.interactive_rejection_pct::float8 AS "interactiveRejectionMean",
       d.background_rejection_pct::float8 AS "backgroundRejectionMax", d.background_rejection_pct::float8 AS "backgroundRejectionMean",
       (d.carry_forward_cu_ms / 1000)::float8 AS "carryForwardMaxCuSeconds", ${over('delay_pct')} AS "interactiveDelayMinutes",
       ${over('interactive_rejection_pct')} AS "interactiveRejectionMinutes", ${over('background_rejection_pct')} AS "backgroundRejectionMinutes"`;
  const result = await runPageStatement(db, params, recheck, {
    count: `SELECT count(*) FROM ${table} WHERE ${cond}`,
    rows: `SELECT row_number() OVER (ORDER BY d.${at}, d.capacity_name, d.capacity_id) AS ord, row_to_json(t)::text AS j
             FROM (SELECT * FROM ${table} WHERE ${cond} ORDER BY ${at}, capacity_name, capacity_id
                   OFFSET ${params.add(offset)} LIMIT ${params.add(limit)}) d
            CROSS JOIN LATERAL (SELECT to_char(d.${at} AT TIME ZONE 'UTC', 'YYYY-MM-DD"T"HH24:MI:SS"Z"') AS time, d.capacity_name AS "capacityName",
                                       ${params.add(f.granularity)}::text AS granularity, ${fields}) t`,
  });
  return { keyState: result.keyState, totalCount: result.totalCount, itemsJson: result.itemsJson };
}
