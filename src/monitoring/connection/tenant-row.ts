/**
 * A stored tenant connection as the collectors and the token client read it: the row, how to load
 * it, its endpoints, replication-lag thresholds and (for the token client only) its credentials.
 * The service that creates and changes connections is tenants.ts.
 */
import type { AppContext } from '../../context.js';
import type { Queryable } from '../../db/index.js';
import { notFoundError } from '../../errors.js';
import { PUBLIC_CLOUD, type TenantEndpoints } from './endpoints.js';
import type { MirroringLag } from './mirroring-lag.js';
import type { TenantCredentials, TenantMode } from './tenant-input.js';
import type { UtilizationSettings } from './utilization-settings.js';

export interface TenantRow {
  id: string;
  org_id: string;
  name: string;
  tenant_id: string;
  client_id: string;
  credential_type: 'secret' | 'certificate';
  credentials_sealed: string;
  mode: TenantMode;
  workspaces: string[] | null;
  cost_scopes: string[];
  endpoints: Partial<TenantEndpoints>;
  mirroring_lag_info_seconds: number;
  mirroring_lag_error_seconds: number;
  utilization: Partial<UtilizationSettings>;
  page_findings_at_connection: boolean;
  /** Vigia's share of each documented per-tenant cap, in percent (1–100). */
  cap_share_percent: number;
  /** Days of changes from the activity log kept (1–400, default 30; migration 401). */
  change_retention_days: number;
  change_lookback_minutes: number;
  created_at: Date;
  updated_at: Date;
  /** Counted by the database on every change to what a token is asked with (migration 391). */
  version: number;
}

export const TENANT_COLUMNS =
  'id, org_id, name, tenant_id, client_id, credential_type, credentials_sealed, mode, workspaces, cost_scopes, endpoints, mirroring_lag_info_seconds, mirroring_lag_error_seconds, utilization, page_findings_at_connection, cap_share_percent, change_retention_days, change_lookback_minutes, created_at, updated_at, version';
export function endpointsOf(row: Pick<TenantRow, 'endpoints'>): TenantEndpoints {
  return { ...PUBLIC_CLOUD, ...row.endpoints };
}

export function mirroringLagOf(row: Pick<TenantRow, 'mirroring_lag_info_seconds' | 'mirroring_lag_error_seconds'>): MirroringLag {
  return { infoSeconds: row.mirroring_lag_info_seconds, errorSeconds: row.mirroring_lag_error_seconds };
}

export async function loadTenant(q: Queryable, orgId: string, id: string): Promise<TenantRow> {
  const { rows } = await q.query<TenantRow>(`SELECT ${TENANT_COLUMNS} FROM tenants WHERE org_id = $1 AND id = $2`, [orgId, id]);
  if (!rows[0]) throw notFoundError('tenant');
  return rows[0];
}

/** The stored credentials, opened for the token client only. */
export function openCredentials(ctx: Pick<AppContext, 'sealer'>, row: Pick<TenantRow, 'credentials_sealed'>): TenantCredentials {
  return ctx.sealer.openJson<TenantCredentials>(row.credentials_sealed);
}
