/**
 * Findings at connection (docs/monitoring.md). What is already broken when a tenant is
 * connected is shown at once but pages no one as if it had just happened: the first committed
 * run of each collector of a new tenant opens its incidents silenced with the reason "found at
 * connection" (they never page, not even when some silence ends; they stay quiet until they
 * resolve), and once every enabled collector of the tenant has done its first pass, one info
 * incident `Tenant` / `TenantConnected` says how many problems were found and where to see them
 * — one delivery instead of one per finding. A tenant with `pageFindingsAtConnection` pages its
 * first passes' findings like any other failure (and still gets the TenantConnected summary).
 *
 * The first pass of a collector is its first COMPLETE pass: a run that commits ends it unless
 * the collector has not seen the tenant whole yet — a rotating or sliced collector whose first
 * rotation has not completed (rotation.ts, `firstPassDone`, checked by output.ts), freshness
 * before the first full scan, the scanner before its first full scan (`firstPassGoesOn`). Until
 * then everything it finds opens "found at connection", however many runs that takes.
 */
import type { Queryable } from '../../db/index.js';
import type { SignalOutcome } from '../../alerts/batch-plan.js';
import type { SignalInput } from '../../alerts/signals.js';
import type { Lease } from './lease.js';
import { tenantConnected } from '../messages/titles.js';

export const FOUND_AT_CONNECTION = 'found at connection';
export const TENANT_CONNECTED = 'TenantConnected';

/** A run's place in its collector's first pass: null once that pass is done. */
export interface FirstPass {
  /** Open the run's incidents silenced "found at connection" (false: the tenant pages them). */
  quiet: boolean;
}

/**
 * Whether this run is its collector's first pass. When it is, the tenant row is locked first
 * (before the schedule row, the order tenant changes take), so the first passes of one tenant
 * commit one after the other and exactly one of them sees every collector done.
 */
export async function startFirstPass(q: Queryable, lease: Lease): Promise<FirstPass | null> {
  const { rows } = await q.query<{ first_pass_done: boolean }>('SELECT first_pass_done FROM collector_schedules WHERE tenant_ref = $1 AND collector = $2', [
    lease.tenantRef,
    lease.collector,
  ]);
  if (!rows[0] || rows[0].first_pass_done) return null;
  const { rows: tenants } = await q.query<{ page_findings_at_connection: boolean; connection_announced_at: Date | null }>(
    'SELECT page_findings_at_connection, connection_announced_at FROM tenants WHERE id = $1 FOR NO KEY UPDATE',
    [lease.tenantRef],
  );
  if (!tenants[0]) return null;
  // A collector enabled after the tenant's connection was summed up finds nothing "at connection": it pages as usual.
  if (tenants[0].connection_announced_at !== null) {
    await q.query('UPDATE collector_schedules SET first_pass_done = true WHERE tenant_ref = $1 AND collector = $2', [lease.tenantRef, lease.collector]);
    return null;
  }
  return { quiet: !tenants[0].page_findings_at_connection };
}

const openedIn = (outcomes: SignalOutcome[]) => outcomes.filter((o) => o.outcome === 'opened' && o.alertId !== null).length;

/** A run of a first pass that goes on: what it opened still counts toward the TenantConnected summary. */
export async function countFirstPassFindings(q: Queryable, lease: Lease, outcomes: SignalOutcome[]): Promise<void> {
  const opened = openedIn(outcomes);
  if (opened === 0) return;
  await q.query('UPDATE tenants SET connection_findings = connection_findings + $2 WHERE id = $1 AND connection_announced_at IS NULL', [lease.tenantRef, opened]);
}

/**
 * Ends the collector's first pass in the run's commit: counts the incidents it opened and, when
 * it was the tenant's last collector to finish, returns the TenantConnected signal (once per
 * tenant, and only when something was found).
 */
export async function endFirstPass(
  q: Queryable,
  lease: Lease,
  outcomes: SignalOutcome[],
  now: Date,
  consoleUrl: string,
): Promise<SignalInput | null> {
  const opened = openedIn(outcomes);
  await q.query('UPDATE collector_schedules SET first_pass_done = true WHERE tenant_ref = $1 AND collector = $2', [lease.tenantRef, lease.collector]);
  const { rows } = await q.query<{ id: string; org_id: string; name: string; connection_findings: number; page_findings_at_connection: boolean; pending: boolean }>(
    `UPDATE tenants t SET connection_findings = connection_findings + $2,
       connection_announced_at = CASE WHEN p.pending THEN NULL ELSE $3::timestamptz END
     FROM (SELECT EXISTS (SELECT 1 FROM collector_schedules WHERE tenant_ref = $1 AND enabled AND NOT first_pass_done) AS pending) p
     WHERE t.id = $1 AND t.connection_announced_at IS NULL
     RETURNING t.id, t.org_id, t.name, t.connection_findings, t.page_findings_at_connection, p.pending`,
    [lease.tenantRef, opened, now],
  );
  const t = rows[0];
  if (!t || t.pending || t.connection_findings === 0) return null;
  return tenantConnectedSignal(t, t.connection_findings, t.page_findings_at_connection, consoleUrl, now);
}

export function tenantConnectedSignal(
  tenant: { id: string; org_id: string; name: string },
  found: number,
  paged: boolean,
  baseUrl: string,
  occurredAt: Date,
): SignalInput {
  const list = `${baseUrl}/alerts?${new URLSearchParams({ tenant: tenant.id, tenantName: tenant.name })}`;
  const api = `GET /orgs/${tenant.org_id}/alerts?tenant=${tenant.id}`;
  const { title, message } = tenantConnected(tenant.name, found, paged, FOUND_AT_CONNECTION, list, api);
  return {
    sourceType: 'Tenant',
    sourceId: tenant.id,
    sourceName: tenant.name,
    kind: 'failure',
    notificationKind: TENANT_CONNECTED,
    severity: 'info',
    title,
    message,
    occurredAt,
  };
}
