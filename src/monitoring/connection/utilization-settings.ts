/**
 * The `utilization` field of a tenant connection: where the `utilization` collector reads
 * capacity load, and when it raises incidents.
 *
 * - `eventhouse` — the Eventhouse table an Eventstream fills with the capacity overview events
 *   (query URI, database, table); read through the Kusto REST API.
 * - `metricsApp` — the Capacity Metrics app's semantic model (workspace and dataset IDs).
 * - `armScopes` — subscriptions / resource groups holding Power BI Embedded A SKUs.
 * - `warnPercent` (default 80) — the 10-minute figure above which `CapacityHighUtilization` opens;
 * - `recoverWindows` (default 4) — consecutive 30-second windows below every threshold before an
 *   incident recovers (a capacity hovering at 100 % does not flap);
 * - `overrides` — `warnPercent` / `recoverWindows` per capacity name.
 *
 * A change replaces the top-level fields it gives (null removes a source); the rest stay.
 */
import { invalidInput } from '../../errors.js';

/**
 * The Eventhouse query URI receives a Bearer token of the tenant's service principal (audience
 * Kusto): its hosts, DNS and the credentials a change of it needs are the credential rule's
 * (src/delivery/credential-rule.ts, table in credential-origins.ts), applied by the tenants service.
 */
export interface EventhouseSource {
  /** The Eventhouse's (or KQL database's) `queryServiceUri`, an https origin. */
  queryUri: string;
  database: string;
  table: string;
}

export interface MetricsAppSource {
  workspaceId: string;
  datasetId: string;
}

export interface CapacityThresholds {
  warnPercent: number;
  recoverWindows: number;
}

export interface UtilizationSettings extends CapacityThresholds {
  eventhouse: EventhouseSource | null;
  metricsApp: MetricsAppSource | null;
  armScopes: string[];
  overrides: Record<string, Partial<CapacityThresholds>>;
}

export type UtilizationInput = Partial<{
  eventhouse: EventhouseSource | null;
  metricsApp: MetricsAppSource | null;
  armScopes: string[];
  warnPercent: number;
  recoverWindows: number;
  overrides: Record<string, Partial<CapacityThresholds>> | null;
}>;

export const DEFAULT_UTILIZATION: UtilizationSettings = { eventhouse: null, metricsApp: null, armScopes: [], warnPercent: 80, recoverWindows: 4, overrides: {} };
export const MAX_RECOVER_WINDOWS = 240;
export const MAX_OVERRIDES = 500;

const GUID = /^[0-9a-f]{8}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{12}$/i;
const ARM_SCOPE = /^\/subscriptions\/[0-9a-f]{8}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{12}(\/resourceGroups\/[-\w.()]{1,90})?$/i;
/** Kusto entity names: letters, digits, `_ . -` and spaces (no quote, so a name never leaves its brackets). */
const KUSTO_NAME = /^[\w .-]{1,1024}$/;

function percent(v: unknown, field: string): number {
  if (typeof v !== 'number' || !Number.isInteger(v) || v < 1 || v > 100) throw invalidInput(`${field} must be a whole percentage between 1 and 100`);
  return v;
}

function windows(v: unknown, field: string): number {
  if (typeof v !== 'number' || !Number.isInteger(v) || v < 1 || v > MAX_RECOVER_WINDOWS) throw invalidInput(`${field} must be a whole number of 30-second windows between 1 and ${MAX_RECOVER_WINDOWS}`);
  return v;
}

function checkEventhouse(e: EventhouseSource): EventhouseSource {
  const field = 'utilization.eventhouse.queryUri';
  if (typeof e.queryUri !== 'string' || !URL.canParse(e.queryUri)) throw invalidInput(`${field} must be an absolute https URL`);
  const url = new URL(e.queryUri);
  if ((url.pathname !== '/' && url.pathname !== '') || url.search || url.hash) {
    throw invalidInput(`${field} must be the query URI alone (https://host[:port]), as the Eventhouse shows it`);
  }
  for (const f of ['database', 'table'] as const) {
    if (typeof e[f] !== 'string' || !KUSTO_NAME.test(e[f]) || e[f].trim() === '') throw invalidInput(`utilization.eventhouse.${f} must be a Kusto name (letters, digits, _ . - and spaces)`);
  }
  // As the origin when it is one (no credentials, https); otherwise as given, for the rule to refuse.
  return { queryUri: url.protocol === 'https:' && !url.username && !url.password ? url.origin : e.queryUri, database: e.database, table: e.table };
}

/**
 * The fields `given` replaces, validated. Each is judged on its own (none depends on the stored
 * value), so a change is checked before the row is locked, and applied to the locked row with
 * `applyUtilization`.
 */
export function checkUtilization(given: UtilizationInput | undefined): Partial<UtilizationSettings> {
  if (given === undefined) return {};
  const out: Partial<UtilizationSettings> = {};
  if (given.eventhouse !== undefined) out.eventhouse = given.eventhouse === null ? null : checkEventhouse(given.eventhouse);
  if (given.metricsApp !== undefined) {
    const m = given.metricsApp;
    if (m !== null && (!GUID.test(m.workspaceId) || !GUID.test(m.datasetId))) throw invalidInput('utilization.metricsApp.workspaceId and datasetId must be GUIDs');
    out.metricsApp = m === null ? null : { workspaceId: m.workspaceId.toLowerCase(), datasetId: m.datasetId.toLowerCase() };
  }
  if (given.armScopes !== undefined) {
    given.armScopes.forEach((s, i) => {
      if (!ARM_SCOPE.test(s)) throw invalidInput(`utilization.armScopes[${i}] must be "/subscriptions/{id}" or "/subscriptions/{id}/resourceGroups/{name}"`);
    });
    if (new Set(given.armScopes.map((s) => s.toLowerCase())).size !== given.armScopes.length) throw invalidInput('utilization.armScopes: duplicate scope');
    out.armScopes = given.armScopes;
  }
  if (given.warnPercent !== undefined) out.warnPercent = percent(given.warnPercent, 'utilization.warnPercent');
  if (given.recoverWindows !== undefined) out.recoverWindows = windows(given.recoverWindows, 'utilization.recoverWindows');
  if (given.overrides !== undefined) {
    const o = given.overrides ?? {};
    if (Object.keys(o).length > MAX_OVERRIDES) throw invalidInput(`utilization.overrides: at most ${MAX_OVERRIDES} capacities`);
    const overrides: UtilizationSettings['overrides'] = {};
    out.overrides = overrides;
    for (const [name, t] of Object.entries(o)) {
      const field = `utilization.overrides["${name.slice(0, 100)}"]`;
      if (name.trim() === '' || name.length > 256) throw invalidInput('utilization.overrides: capacity names are 1 to 256 characters');
      overrides[name] = {
        ...(t.warnPercent !== undefined ? { warnPercent: percent(t.warnPercent, `${field}.warnPercent`) } : {}),
        ...(t.recoverWindows !== undefined ? { recoverWindows: windows(t.recoverWindows, `${field}.recoverWindows`) } : {}),
      };
    }
  }
  return out;
}

/** The settings after a checked change: the fields it gives replace the current ones. */
export function applyUtilization(current: UtilizationSettings, change: Partial<UtilizationSettings>): UtilizationSettings {
  return { ...current, ...change };
}

/** The stored field (absent members take their defaults). */
export function utilizationOf(stored: Partial<UtilizationSettings> | null | undefined): UtilizationSettings {
  return { ...DEFAULT_UTILIZATION, ...(stored ?? {}) };
}

/** The thresholds of one capacity: its override (by name, case-insensitive), else the tenant's. */
export function thresholdsFor(s: UtilizationSettings, capacityName: string): CapacityThresholds {
  const key = Object.keys(s.overrides).find((k) => k.toLowerCase() === capacityName.toLowerCase());
  const o = key ? s.overrides[key]! : {};
  return { warnPercent: o.warnPercent ?? s.warnPercent, recoverWindows: o.recoverWindows ?? s.recoverWindows };
}
