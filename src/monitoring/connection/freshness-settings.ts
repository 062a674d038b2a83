/**
 * Data freshness settings of a tenant connection (table freshness_settings): the grace period a
 * scheduled refresh has to complete after its slot, and the optional maximum age of the data
 * (`maxAgeMinutes`) for the whole tenant, a workspace or one item (semantic model or mirrored
 * database) — the most specific one wins. Read and replaced as one document through the admin
 * API; the freshness collector reads it at the start of each run.
 */
import type { AppContext } from '../../context.js';
import type { Queryable } from '../../db/index.js';
import { invalidInput } from '../../errors.js';
import { loadTenant } from './tenant-row.js';

export const DEFAULT_GRACE_MINUTES = 30;
export const MAX_GRACE_MINUTES = 24 * 60;
/** 90 days: an older limit is not a freshness check any more. */
export const MAX_AGE_LIMIT_MINUTES = 90 * 24 * 60;
export const MAX_SCOPED_ENTRIES = 1000;

export interface ScopedMaxAge {
  id: string;
  maxAgeMinutes: number;
}

export interface FreshnessSettings {
  graceMinutes: number;
  /** Tenant-wide maximum age; null: no limit unless a workspace or item sets one. */
  maxAgeMinutes: number | null;
  workspaces: ScopedMaxAge[];
  items: ScopedMaxAge[];
}

export type FreshnessSettingsInput = Partial<FreshnessSettings>;

interface Row {
  scope: 'tenant' | 'workspace' | 'item';
  scope_id: string;
  max_age_minutes: number | null;
  grace_minutes: number | null;
}

function minutes(v: unknown, field: string, max: number): number {
  if (typeof v !== 'number' || !Number.isInteger(v) || v < 1 || v > max) throw invalidInput(`${field} must be a whole number of minutes from 1 to ${max}`);
  return v;
}

/** Checks the document (the route's schema checks the shape; this checks the rules) and normalizes ids. */
export function validateFreshnessSettings(input: FreshnessSettingsInput): FreshnessSettings {
  const scoped = (list: ScopedMaxAge[] | undefined, field: string): ScopedMaxAge[] => {
    const out = new Map<string, ScopedMaxAge>();
    const items = list ?? [];
    if (items.length > MAX_SCOPED_ENTRIES) throw invalidInput(`${field} must have at most ${MAX_SCOPED_ENTRIES} entries`);
    items.forEach((e, i) => {
      const id = typeof e.id === 'string' ? e.id.trim().toLowerCase() : '';
      if (id === '' || id.length > 100) throw invalidInput(`${field}[${i}].id must be a platform id`);
      if (out.has(id)) throw invalidInput(`${field}[${i}].id ${id} is listed twice`);
      out.set(id, { id, maxAgeMinutes: minutes(e.maxAgeMinutes, `${field}[${i}].maxAgeMinutes`, MAX_AGE_LIMIT_MINUTES) });
    });
    return [...out.values()].sort((a, b) => (a.id < b.id ? -1 : 1));
  };
  return {
    graceMinutes: input.graceMinutes === undefined ? DEFAULT_GRACE_MINUTES : minutes(input.graceMinutes, 'graceMinutes', MAX_GRACE_MINUTES),
    maxAgeMinutes: input.maxAgeMinutes === undefined || input.maxAgeMinutes === null ? null : minutes(input.maxAgeMinutes, 'maxAgeMinutes', MAX_AGE_LIMIT_MINUTES),
    workspaces: scoped(input.workspaces, 'workspaces'),
    items: scoped(input.items, 'items'),
  };
}

/** The settings of a tenant connection (defaults when none were saved). No org check: callers scope. */
export async function readFreshnessSettings(q: Pick<Queryable, 'query'>, tenantRef: string): Promise<FreshnessSettings> {
  const { rows } = await q.query<Row>('SELECT scope, scope_id, max_age_minutes, grace_minutes FROM freshness_settings WHERE tenant_ref = $1 ORDER BY scope, scope_id', [tenantRef]);
  const tenant = rows.find((r) => r.scope === 'tenant');
  const of = (scope: Row['scope']) => rows.filter((r) => r.scope === scope && r.max_age_minutes !== null).map((r) => ({ id: r.scope_id, maxAgeMinutes: r.max_age_minutes! }));
  return {
    graceMinutes: tenant?.grace_minutes ?? DEFAULT_GRACE_MINUTES,
    maxAgeMinutes: tenant?.max_age_minutes ?? null,
    workspaces: of('workspace'),
    items: of('item'),
  };
}

export async function getFreshnessSettings(ctx: AppContext, orgId: string, tenantRef: string): Promise<FreshnessSettings> {
  await loadTenant(ctx.db, orgId, tenantRef);
  return readFreshnessSettings(ctx.db, tenantRef);
}

/** Replaces the whole document (fields left out take their defaults). */
export async function putFreshnessSettings(ctx: AppContext, orgId: string, tenantRef: string, input: FreshnessSettingsInput): Promise<FreshnessSettings> {
  const s = validateFreshnessSettings(input);
  const now = ctx.clock.now();
  await ctx.db.tx(async (q) => {
    await loadTenant(q, orgId, tenantRef);
    await q.query('DELETE FROM freshness_settings WHERE tenant_ref = $1', [tenantRef]);
    const scopes = ['tenant', ...s.workspaces.map(() => 'workspace'), ...s.items.map(() => 'item')];
    const ids = ['', ...s.workspaces.map((w) => w.id), ...s.items.map((i) => i.id)];
    const ages = [s.maxAgeMinutes, ...s.workspaces.map((w) => w.maxAgeMinutes), ...s.items.map((i) => i.maxAgeMinutes)];
    const graces = [s.graceMinutes, ...s.workspaces.map(() => null), ...s.items.map(() => null)];
    await q.query(
      `INSERT INTO freshness_settings (tenant_ref, scope, scope_id, max_age_minutes, grace_minutes, updated_at)
       SELECT $1, u.scope, u.scope_id, u.max_age, u.grace, $6 FROM unnest($2::text[], $3::text[], $4::int[], $5::int[]) AS u(scope, scope_id, max_age, grace)`,
      [tenantRef, scopes, ids, ages, graces, now],
    );
  });
  return s;
}

/** Back to the defaults: grace 30 minutes, no maximum age. */
export async function deleteFreshnessSettings(ctx: AppContext, orgId: string, tenantRef: string): Promise<void> {
  await ctx.db.tx(async (q) => {
    await loadTenant(q, orgId, tenantRef);
    await q.query('DELETE FROM freshness_settings WHERE tenant_ref = $1', [tenantRef]);
  });
}

export type MaxAgeOf = (itemId: string, workspaceId: string) => number | null;

/** The maximum age that applies to an item: its own, else its workspace's, else the tenant's (ids in lower case). */
export function maxAgeResolver(s: FreshnessSettings): MaxAgeOf {
  const items = new Map(s.items.map((i) => [i.id, i.maxAgeMinutes]));
  const workspaces = new Map(s.workspaces.map((w) => [w.id, w.maxAgeMinutes]));
  return (itemId, workspaceId) => items.get(itemId) ?? workspaces.get(workspaceId) ?? s.maxAgeMinutes;
}
