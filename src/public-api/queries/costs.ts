import type { Queryable } from '../../db/index.js';

/** SPEC §2.6 field order (also the CSV header). */
export const COST_FIELDS = ['date', 'capacityName', 'currency', 'cost', 'amortizedCost', 'overageCost'] as const;

export interface CostItem {
  date: string;
  capacityName: string;
  currency: string;
  cost: number;
  amortizedCost: number;
  overageCost: number;
}

/** The currency with the most rows in the period; ties go to the alphabetically first code. */
export async function predominantCurrency(db: Queryable, orgId: string, from: string, to: string): Promise<string | null> {
  const { rows } = await db.query<{ currency: string }>(
    `SELECT currency FROM daily_costs WHERE org_id = $1 AND date BETWEEN $2::date AND $3::date
      GROUP BY currency ORDER BY count(*) DESC, currency ASC LIMIT 1`,
    [orgId, from, to],
  );
  return rows[0]?.currency ?? null;
}

/** One page of daily costs in one currency, newest day first, then capacity name. */
export async function listDailyCosts(
  db: Queryable,
  f: { orgId: string; from: string; to: string; currency: string },
  offset: number,
  limit: number,
) {
  const params = [f.orgId, f.from, f.to, f.currency];
  const cond = 'org_id = $1 AND date BETWEEN $2::date AND $3::date AND currency = $4';
  const [count, page] = await Promise.all([
    db.query<{ n: number }>(`SELECT count(*)::int8 AS n FROM daily_costs WHERE ${cond}`, params),
    db.query<CostItem>(
      `SELECT date, capacity_name AS "capacityName", currency, cost, amortized_cost AS "amortizedCost",
              overage_cost AS "overageCost"
         FROM daily_costs WHERE ${cond} ORDER BY date DESC, capacity_name ASC OFFSET $5 LIMIT $6`,
      [...params, offset, limit],
    ),
  ]);
  return { totalCount: count.rows[0]!.n, items: page.rows };
}
