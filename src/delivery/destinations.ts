/**
 * Destination rows: the shape the admin API returns (never a secret), the event filter, and
 * the loading the fan-out needs.
 */
import type { Queryable } from '../db/index.js';
import type { AlertEventName } from '../outbox/index.js';
import type { DestinationKind } from './connectors/types.js';
import type { SignatureScheme } from './signing.js';
import type { HealthRecord } from '../outbox/index.js';

export const DESTINATION_KINDS = ['webhook', 'pagerduty', 'opsgenie', 'servicenow', 'azure-devops', 'jsm', 'teams', 'slack', 'email'] as const;
export const MAX_DESTINATIONS_PER_ORG = 20;

export interface DestinationFilter {
  events?: AlertEventName[];
  severities?: ('error' | 'info')[];
  sourceTypes?: string[];
}

export interface DestinationRow {
  id: string;
  org_id: string;
  name: string;
  kind: DestinationKind;
  url: string | null;
  config: Record<string, unknown>;
  credentials_sealed: string | null;
  signing_secret_sealed: string | null;
  signature_scheme: SignatureScheme;
  rate_limit_per_second: number | null;
  filter: DestinationFilter | null;
  enabled: boolean;
  created_at: Date;
  updated_at: Date;
}

export const DESTINATION_COLUMNS =
  'id, org_id, name, kind, url, config, credentials_sealed, signing_secret_sealed, signature_scheme, rate_limit_per_second, filter, enabled, created_at, updated_at';

/** Absent filter or absent field = everything. */
export function matchesFilter(filter: DestinationFilter | null, ev: { event: string; severity: string; sourceType: string }): boolean {
  if (!filter) return true;
  if (filter.events && !filter.events.includes(ev.event as AlertEventName)) return false;
  if (filter.severities && !filter.severities.includes(ev.severity as 'error' | 'info')) return false;
  if (filter.sourceTypes && !filter.sourceTypes.includes(ev.sourceType)) return false;
  return true;
}

/** The admin API view of a destination: no credentials, no signing secret, ever. */
export function toDestinationView(row: DestinationRow) {
  return {
    id: row.id,
    name: row.name,
    kind: row.kind,
    /** Webhooks: the URL; teams and slack: the webhook URL masked (the whole one is a sealed credential). */
    url: row.url,
    config: row.config,
    /** Webhooks only; null for connector kinds, which do not sign. */
    signatureScheme: row.kind === 'webhook' ? row.signature_scheme : null,
    filter: row.filter ?? null,
    enabled: row.enabled,
    /** Sends per second across all workers; null = unlimited. */
    rateLimitPerSecond: row.rate_limit_per_second,
    credentialsSet: row.credentials_sealed !== null || row.signing_secret_sealed !== null,
    createdAt: row.created_at.toISOString(),
    updatedAt: row.updated_at.toISOString(),
  };
}

/** Destinations that are not deleted, enabled or not (a disabled one records its events as skipped). */
export async function loadLiveDestinations(q: Queryable, orgId: string): Promise<DestinationRow[]> {
  const { rows } = await q.query<DestinationRow>(
    `SELECT ${DESTINATION_COLUMNS} FROM destinations WHERE org_id = $1 AND deleted_at IS NULL ORDER BY created_at, id`,
    [orgId],
  );
  return rows;
}

export type HealthState = 'healthy' | 'failing' | 'disabled';

export interface DestinationHealthView {
  state: HealthState;
  consecutiveFailures: number;
  /** Succeeded ÷ ended (succeeded, failed, abandoned) over the last 24 hours; null when none ended. */
  successRate24h: number | null;
  lastSuccessAt: string | null;
  lastFailureAt: string | null;
  disabledAt: string | null;
  disabledReason: string | null;
}

const iso = (d: Date | null) => (d ? new Date(d).toISOString() : null);

/** The `health` object of a destination in the admin API. */
export function toHealthView(enabled: boolean, h: HealthRecord | undefined): DestinationHealthView {
  const failures = h?.consecutiveFailures ?? 0;
  return {
    state: !enabled ? 'disabled' : failures > 0 ? 'failing' : 'healthy',
    consecutiveFailures: failures,
    successRate24h: h && h.ended24h > 0 ? Math.round((h.succeeded24h / h.ended24h) * 10_000) / 10_000 : null,
    lastSuccessAt: iso(h?.lastSuccessAt ?? null),
    lastFailureAt: iso(h?.lastFailureAt ?? null),
    disabledAt: enabled ? null : iso(h?.disabledAt ?? null),
    disabledReason: enabled ? null : (h?.disabledReason ?? null),
  };
}
