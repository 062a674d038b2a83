import type { Queryable } from '../../db/index.js';
import { type JsonPage, type KeyRecheck, runPageStatement, SqlParams } from '../page-statement.js';

/** The documented field order of a daily cost item (also the CSV header). */
export const COST_FIELDS = ['date', 'capacityName', 'currency', 'cost', 'amortizedCost', 'overageCost'] as const;

/** A daily cost item: the stored daily cost (orgs/inventory.ts) as the API writes it. */
export type { DailyCost as CostItem } from '../../orgs/inventory.js';

export interface CostPage extends JsonPage {
  /** The requested currency, else the period's predominant one; null when the period has no rows. */
  currency: string | null;
}

/**
 * One page of daily costs in one currency, newest day first, then capacity name, in one
 * statement: without a requested currency, the one with the most rows in the period (ties go to
 * the alphabetically first code). Amounts are written as JSON numbers (float8, as the API's
 * number type), dates as yyyy-MM-dd.
 */
export async function listDailyCosts(
  db: Queryable,
  f: { orgId: string; from: string; to: string; currency?: string },
  offset: number,
  limit: number,
  recheck: KeyRecheck | null,
): Promise<CostPage> {
  const params = new SqlParams();
  const period = `org_id = ${params.add(f.orgId)} AND date BETWEEN ${params.add(f.from)}::date AND ${params.add(f.to)}::date`;
  const chosen =
    f.currency !== undefined
      ? `SELECT ${params.add(f.currency)}::text AS c`
      : `SELECT (SELECT currency FROM daily_costs WHERE ${period}
                  GROUP BY currency ORDER BY count(*) DESC, currency ASC LIMIT 1) AS c`;
  const cond = `${period} AND currency = (SELECT c FROM cur)`;
  const result = await runPageStatement<{ currency: string | null }>(db, params, recheck, {
    with: `cur AS (${chosen})`,
    count: `SELECT count(*) FROM daily_costs WHERE ${cond}`,
    rows: `SELECT row_number() OVER (ORDER BY d.date DESC, d.capacity_name ASC) AS ord, row_to_json(t)::text AS j
             FROM (SELECT date, capacity_name, currency, cost, amortized_cost, overage_cost FROM daily_costs
                    WHERE ${cond} ORDER BY date DESC, capacity_name ASC
                   OFFSET ${params.add(offset)} LIMIT ${params.add(limit)}) d
            CROSS JOIN LATERAL (SELECT d.date, d.capacity_name AS "capacityName", d.currency, d.cost::float8 AS cost,
                                       d.amortized_cost::float8 AS "amortizedCost", d.overage_cost::float8 AS "overageCost") t`,
    extra: ', (SELECT c FROM cur) AS currency',
  });
  return { keyState: result.keyState, currency: result.extra.currency, totalCount: result.totalCount, itemsJson: result.itemsJson };
}
