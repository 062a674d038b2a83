/**
 * How far the rotating collectors get through a large tenant, read back from the RotationState
 * each of them keeps under ROTATION_KEY: per (tenant, collector) the last full rotation's
 * seconds and how many resources are polled every run (hot) or take turns (cold). The admin
 * API's tenant view, the console and /metrics show it; collectors that do not rotate have none.
 */
import type { Queryable } from '../../db/index.js';
import { CATALOG_ROTATION_KEY, ROTATION_KEY, type RotationState } from './rotation.js';

export interface RotationView {
  /** Seconds between the last two completed rotations; null until one completed after another. */
  lastFullRotationSeconds: number | null;
  /** Resources of the last run polled every run, and taking turns. */
  hot: number;
  cold: number;
  /** The shortest interval the collector's budget can honour for what is due every run (null: not known). */
  minIntervalSeconds: number | null;
  /** freshness: its catalog's pass over the workspaces (CATALOG_ROTATION_KEY), when it keeps one. */
  catalog?: RotationView;
}

export interface RotationRow extends RotationView {
  orgId: string;
  tenantRef: string;
  collector: string;
}

const count = (n: unknown) => (typeof n === 'number' && Number.isFinite(n) ? n : 0);

export function rotationView(state: Partial<RotationState>): RotationView {
  const seconds = state.lastFullRotationSeconds;
  return {
    lastFullRotationSeconds: typeof seconds === 'number' && Number.isFinite(seconds) ? seconds : null,
    hot: count(state.hot),
    cold: count(state.cold),
    minIntervalSeconds: typeof state.minIntervalSeconds === 'number' && Number.isFinite(state.minIntervalSeconds) ? state.minIntervalSeconds : null,
  };
}

/**
 * The interval a collector runs at: the one asked for, or the shortest its budget can honour
 * when that is longer (what the last run found due every run), with a note saying so.
 */
export function effectiveIntervalOf(collector: string, intervalSeconds: number, rotation: RotationView | null): { seconds: number; note: string | null } {
  const min = rotation?.minIntervalSeconds ?? null;
  if (min === null || min <= intervalSeconds) return { seconds: intervalSeconds, note: null };
  return {
    seconds: min,
    note:
      `The ${collector} collector runs every ${min} s, not every ${intervalSeconds} s: its share of the hourly budget pays for ` +
      `${rotation!.hot} checks due every run and a turn of the ${rotation!.cold} others once every ${min} s. ` +
      'A shorter interval would leave due checks unread.',
  };
}

/** The key of a (tenant, collector) in the map readRotations returns. */
export const rotationKeyOf = (tenantRef: string, collector: string) => `${tenantRef}\u0000${collector}`;

/**
 * The rotation of each (tenant, collector) among the given tenants, keyed by rotationKeyOf. The
 * caller passes tenants it already scoped to one organization.
 */
export async function readRotations(q: Queryable, tenantRefs: string[]): Promise<Map<string, RotationView>> {
  if (tenantRefs.length === 0) return new Map();
  const { rows } = await q.query<{ tenant_ref: string; collector: string; key: string; value: Partial<RotationState> }>(
    'SELECT tenant_ref, collector, key, value FROM collector_state WHERE key = ANY($1::text[]) AND tenant_ref = ANY($2::text[])',
    [[ROTATION_KEY, CATALOG_ROTATION_KEY], tenantRefs],
  );
  const out = new Map<string, RotationView>();
  for (const r of rows.filter((x) => x.key === ROTATION_KEY)) out.set(rotationKeyOf(r.tenant_ref, r.collector), rotationView(r.value));
  for (const r of rows.filter((x) => x.key === CATALOG_ROTATION_KEY)) {
    const key = rotationKeyOf(r.tenant_ref, r.collector);
    out.set(key, { ...(out.get(key) ?? rotationView({})), catalog: rotationView(r.value) });
  }
  return out;
}

/** Every rotation of every tenant, with its organization (for /metrics, which reports them all). */
export async function readAllRotations(q: Queryable): Promise<RotationRow[]> {
  const { rows } = await q.query<{ org_id: string; tenant_ref: string; collector: string; value: Partial<RotationState> }>(
    `SELECT t.org_id, s.tenant_ref, s.collector, s.value
       FROM collector_state s JOIN tenants t ON t.id = s.tenant_ref
      WHERE s.key = $1`,
    [ROTATION_KEY],
  );
  return rows.map((r) => ({ orgId: r.org_id, tenantRef: r.tenant_ref, collector: r.collector, ...rotationView(r.value) }));
}
