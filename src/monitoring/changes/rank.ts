/**
 * The ranking of changes against an incident (docs/monitoring.md "What changed before it broke"):
 * a score in (0, 1] from how close the change is to the incident's object in the dependency path
 * and how close in time it came before the incident opened. Pure: the join (join.ts) reads the
 * candidates and writes the result.
 */
import type { StoredChange } from './store.js';

/** How a change reaches the incident's object, nearest first. */
export const CHANGE_PATHS = ['same', 'datasource', 'gateway', 'workspace', 'capacity', 'tenant'] as const;
export type ChangePath = (typeof CHANGE_PATHS)[number];

/** The weight of each path: the object itself counts most, a tenant setting least. */
export const PATH_WEIGHT: Record<ChangePath, number> = { same: 1, datasource: 0.9, gateway: 0.8, workspace: 0.6, capacity: 0.5, tenant: 0.3 };

/** Closeness in time halves every this many minutes before the incident opened. */
export const HALF_LIFE_MINUTES = 240;
/** A change the platform logged as failed (IsSuccess false) changed little: its score is multiplied by this. */
export const FAILED_CHANGE_FACTOR = 0.2;
/** At most this many changes are attached to one incident. */
export const MAX_ATTACHED = 3;
/** Changes scoring below this are not attached. */
export const MIN_SCORE = 0.05;

/** What an incident's object is and what it depends on (lower-case ids). */
export interface IncidentScope {
  items: string[];
  datasources: string[];
  gateways: string[];
  workspaces: string[];
  capacities: string[];
  /** The incident is about the tenant itself (its tenant settings are 'same'). */
  tenantItself: boolean;
  /** Which of the scope's kinds is the incident's own object ('same'). */
  own: 'item' | 'datasource' | 'gateway' | 'capacity' | 'tenant';
}

export interface RankedChange {
  change: StoredChange;
  path: ChangePath;
  score: number;
  rank: number;
}

const has = (list: string[], id: string | null) => id !== null && list.includes(id);

/**
 * The nearest path by which the change touches the scope, or null when it does not. A change to
 * another item never counts through the ids it links to (most item records carry their
 * workspace's capacity; a credentials change on another model is not this model's cause), but a
 * change whose object is a gateway, data source, workspace or capacity does.
 */
export function pathOf(c: StoredChange, s: IncidentScope): ChangePath | null {
  const o = c.object;
  const l = c.links;
  if ((o.kind === 'item' && has(s.items, o.id)) || has(s.items, l.datasetId)) return 'same';
  const otherItem = o.kind === 'item';
  const found: ChangePath[] = [];
  if (!otherItem && has(s.datasources, l.datasourceId)) found.push(s.own === 'datasource' ? 'same' : 'datasource');
  if ((o.kind === 'gateway' && has(s.gateways, o.id)) || (!otherItem && has(s.gateways, l.gatewayId))) found.push(s.own === 'gateway' ? 'same' : 'gateway');
  if (o.kind === 'workspace' && has(s.workspaces, o.id)) found.push('workspace');
  if ((o.kind === 'capacity' && has(s.capacities, o.id)) || (o.kind === 'workspace' && has(s.capacities, l.capacityId))) found.push(s.own === 'capacity' ? 'same' : 'capacity');
  if (o.kind === 'tenant') found.push(s.tenantItself ? 'same' : 'tenant');
  if (found.length === 0) return null;
  return found.sort((a, b) => CHANGE_PATHS.indexOf(a) - CHANGE_PATHS.indexOf(b))[0]!;
}

/** The score of a change that touches the scope by `path`, `ageMinutes` before the incident opened. */
export function scoreOf(path: ChangePath, ageMinutes: number, isSuccess: boolean | null): number {
  const time = Math.pow(0.5, Math.max(0, ageMinutes) / HALF_LIFE_MINUTES);
  return PATH_WEIGHT[path] * time * (isSuccess === false ? FAILED_CHANGE_FACTOR : 1);
}

/**
 * The most likely changes among `candidates` (already limited to the look-back before `openedAt`):
 * scored, the best MAX_ATTACHED at or above MIN_SCORE, ranked 1… (ties: the later change, then
 * the record id).
 */
export function rankChanges(candidates: readonly StoredChange[], scope: IncidentScope, openedAt: Date): RankedChange[] {
  const scored: Omit<RankedChange, 'rank'>[] = [];
  for (const change of candidates) {
    if (change.occurredAt.getTime() > openedAt.getTime()) continue;
    const path = pathOf(change, scope);
    if (!path) continue;
    const score = scoreOf(path, (openedAt.getTime() - change.occurredAt.getTime()) / 60_000, change.isSuccess);
    if (score >= MIN_SCORE) scored.push({ change, path, score });
  }
  scored.sort(
    (a, b) => b.score - a.score || b.change.occurredAt.getTime() - a.change.occurredAt.getTime() || a.change.recordId.localeCompare(b.change.recordId),
  );
  return scored.slice(0, MAX_ATTACHED).map((r, i) => ({ ...r, rank: i + 1 }));
}
