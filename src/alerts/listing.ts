import type { Queryable } from '../db/index.js';
import { notFoundError } from '../errors.js';
import { requireOrg } from '../orgs/orgs.js';
import { alertColumns, toAlertJson, type AlertJson, type AlertRow } from './rows.js';

/** What the admin alert list (the console's) filters by; every field optional but the org. */
export interface AlertListFilter {
  status?: 'open' | 'resolved';
  severity?: 'error' | 'info';
  sourceType?: string;
  /** The source's id, compared without case (platform ids differ in case between APIs). */
  sourceId?: string;
  /** The capacity or workspace the alert names (the inventory pages link here). */
  capacityName?: string;
  workspaceName?: string;
  /**
   * A tenant connection's id: the incidents its collectors raised, and the monitor's own
   * incidents about it (source type Tenant, source id the connection's id).
   */
  tenant?: string;
  /** created_at in [from, to). */
  from?: Date;
  to?: Date;
}

/**
 * One page of an organization's alerts with every field (ids and links included), newest first
 * (created_at DESC, id DESC: a total order, so pages never repeat or skip), and the exact total.
 * 404 for an unknown organization.
 */
export async function listOrgAlerts(
  db: Queryable,
  baseUrl: string,
  orgId: string,
  f: AlertListFilter,
  page: { offset: number; limit: number },
): Promise<{ value: AlertJson[]; totalCount: number }> {
  await requireOrg(db, orgId);
  const params: unknown[] = [orgId];
  const conditions = ['org_id = $1'];
  const add = (sql: string, value: unknown) => {
    params.push(value);
    conditions.push(`${sql} $${params.length}`);
  };
  if (f.status) add('status =', f.status);
  if (f.severity) add('severity =', f.severity);
  if (f.sourceType) add('source_type =', f.sourceType);
  if (f.sourceId) {
    params.push(f.sourceId);
    conditions.push(`lower(source_id) = lower($${params.length})`);
  }
  if (f.capacityName) add('capacity_name =', f.capacityName);
  if (f.workspaceName) add('workspace_name =', f.workspaceName);
  if (f.tenant) {
    params.push(f.tenant);
    conditions.push(`(tenant_ref = $${params.length} OR (source_type = 'Tenant' AND source_id = $${params.length}))`);
  }
  if (f.from) add('created_at >=', f.from);
  if (f.to) add('created_at <', f.to);
  const where = conditions.join(' AND ');
  const [count, list] = await Promise.all([
    db.query<{ n: number }>(`SELECT count(*)::int AS n FROM alerts WHERE ${where}`, params),
    db.query<AlertRow>(
      `SELECT ${alertColumns()} FROM alerts WHERE ${where} ORDER BY created_at DESC, id DESC
        LIMIT $${params.length + 1} OFFSET $${params.length + 2}`,
      [...params, page.limit, page.offset],
    ),
  ]);
  return { value: list.rows.map((r) => toAlertJson(r, baseUrl)), totalCount: count.rows[0]!.n };
}

/** Throws not-found unless the organization exists and owns the alert. */
export async function requireAlert(db: Queryable, orgId: string, alertId: string): Promise<void> {
  await requireOrg(db, orgId);
  const { rows } = await db.query('SELECT 1 FROM alerts WHERE org_id = $1 AND id = $2', [orgId, alertId]);
  if (rows.length === 0) throw notFoundError('alert');
}

export interface OpenAlertCount {
  severity: 'error' | 'info';
  sourceType: string;
  incidents: number;
}

/** Open incidents now, by severity and source type (the console's overview). */
export async function countOpenAlerts(db: Queryable, orgId: string): Promise<OpenAlertCount[]> {
  const { rows } = await db.query<{ severity: 'error' | 'info'; source_type: string; n: number }>(
    `SELECT severity, source_type, count(*)::int AS n FROM alerts WHERE org_id = $1 AND status = 'open'
      GROUP BY severity, source_type ORDER BY severity, source_type`,
    [orgId],
  );
  return rows.map((r) => ({ severity: r.severity, sourceType: r.source_type, incidents: Number(r.n) }));
}

/** Open incidents now per capacity or per workspace name (the inventory pages). */
export async function countOpenAlertsBy(db: Queryable, orgId: string, by: 'capacity' | 'workspace'): Promise<Map<string, number>> {
  const column = by === 'capacity' ? 'capacity_name' : 'workspace_name';
  const { rows } = await db.query<{ name: string; n: number }>(
    `SELECT ${column} AS name, count(*)::int AS n FROM alerts
      WHERE org_id = $1 AND status = 'open' AND ${column} IS NOT NULL GROUP BY ${column}`,
    [orgId],
  );
  return new Map(rows.map((r) => [r.name, Number(r.n)]));
}
