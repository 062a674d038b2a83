/**
 * Calls per hour against each cap, as the tenant view and /metrics show them: per API family the
 * ceiling Vigia keeps, and per endpoint the platform caps per tenant the documented cap, Vigia's
 * share of it (the connection's capSharePercent) and, for the hour after a 429 there, the lowered
 * cap. Read from the shared budget rows, so any instance shows what every instance spent.
 */
import type { Queryable } from '../../db/index.js';
import { HOURLY_CAPS, TENANT_WIDE_CAPS, readBudgetUse, sharedCap, tenantWideCap, type ApiFamily, type BudgetUse } from './budget.js';

export interface ApiBudgetView {
  /** `family`, or `family:endpoint` for an endpoint capped per tenant. */
  key: string;
  family: ApiFamily;
  endpoint: string | null;
  /** Calls of the last 60 minutes (every instance, every tenant connection of the same directory). */
  callsLastHour: number;
  /** Calls per hour Vigia allows itself now: its share of the documented cap (lowered after a 429), or its own family ceiling. */
  cap: number;
  /** The platform's documented per-tenant cap; null for a family (Vigia's own ceiling). */
  documentedCap: number | null;
  /** Until when a 429 lowered the cap (null when no lowering holds). */
  loweredUntil: string | null;
  /** The last 429 on this endpoint. */
  lastThrottledAt: string | null;
}

/** One tenant connection's view from its directory's budget rows. */
export function budgetViewOf(uses: BudgetUse[], sharePercent: number, caps: Record<ApiFamily, number> = HOURLY_CAPS): ApiBudgetView[] {
  const byKey = new Map(uses.map((u) => [u.key, u]));
  const families = (Object.keys(caps) as ApiFamily[]).map((family): ApiBudgetView => ({
    key: family,
    family,
    endpoint: null,
    callsLastHour: byKey.get(family)?.calls ?? 0,
    cap: caps[family],
    documentedCap: null,
    loweredUntil: null,
    lastThrottledAt: null,
  }));
  // Endpoints: those called or throttled (a row exists); the others are at 0 of their share.
  const endpoints = TENANT_WIDE_CAPS.filter((c) => byKey.has(c.key)).map((c): ApiBudgetView => {
    const u = byKey.get(c.key)!;
    const share = sharedCap(c.perHour, sharePercent);
    return {
      key: c.key,
      family: c.family,
      endpoint: c.key.slice(c.family.length + 1),
      callsLastHour: u.calls,
      cap: u.loweredCap !== null ? Math.min(share, u.loweredCap) : share,
      documentedCap: c.perHour,
      loweredUntil: u.loweredUntil?.toISOString() ?? null,
      lastThrottledAt: u.throttledAt?.toISOString() ?? null,
    };
  });
  return [...families, ...endpoints];
}

/** The budget rows of each of these directories (a tenant connection's share then decides its caps). */
export async function readBudgetUseOf(q: Queryable, directoryIds: string[], now: Date): Promise<Map<string, BudgetUse[]>> {
  const uses = await readBudgetUse(q, [...new Set(directoryIds)], now);
  const out = new Map<string, BudgetUse[]>();
  for (const u of uses) out.set(u.directoryId, [...(out.get(u.directoryId) ?? []), u]);
  return out;
}

/** Calls per hour Vigia allows itself on a budget key now, for a run that plans its calls. */
export async function allowedPerHour(q: Queryable, directoryId: string, key: string, sharePercent: number, now: Date, caps: Record<ApiFamily, number> = HOURLY_CAPS): Promise<number> {
  const wide = tenantWideCap(key);
  if (!wide) return caps[key as ApiFamily] ?? 0;
  const share = sharedCap(wide.perHour, sharePercent);
  const use = (await readBudgetUse(q, [directoryId], now)).find((u) => u.key === key);
  return use?.loweredCap != null ? Math.min(share, use.loweredCap) : share;
}
