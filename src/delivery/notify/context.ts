/**
 * What the message builder needs from the database besides the delivery bodies: the
 * organization's language and time zone, the tenant connection each alert came from and the
 * root cause of correlated alerts. Every query is scoped to the organization.
 */
import type { Queryable } from '../../db/index.js';
import { DEFAULT_LANGUAGE, type Language } from '../../orgs/language.js';
import { DEFAULT_TIME_ZONE } from '../../orgs/time-zone.js';
import type { MessageContext, NotifySettings } from './build.js';

export async function loadNotifySettings(q: Queryable, orgId: string): Promise<NotifySettings> {
  const { rows } = await q.query<{ language: Language; time_zone: string }>('SELECT language, time_zone FROM orgs WHERE id = $1', [orgId]);
  return { language: rows[0]?.language ?? DEFAULT_LANGUAGE, timeZone: rows[0]?.time_zone ?? DEFAULT_TIME_ZONE };
}

/** Tenant names and root-cause titles of the given alerts (missing ones are simply absent). */
export async function loadMessageContext(q: Queryable, orgId: string, alertIds: readonly string[]): Promise<MessageContext> {
  const tenants = new Map<string, string>();
  const rootCauses = new Map<string, string>();
  if (alertIds.length === 0) return { tenants, rootCauses };
  const { rows } = await q.query<{ id: string; tenant: string | null; cause: string | null }>(
    `SELECT a.id, t.name AS tenant,
            (SELECT c.title FROM alerts c WHERE c.org_id = a.org_id AND c.id = a.cause_alert_ids[1]) AS cause
       FROM alerts a LEFT JOIN tenants t ON t.org_id = a.org_id AND t.id = a.tenant_ref
      WHERE a.org_id = $1 AND a.id = ANY($2::text[])`,
    [orgId, [...alertIds]],
  );
  for (const r of rows) {
    if (r.tenant) tenants.set(r.id, r.tenant);
    if (r.cause) rootCauses.set(r.id, r.cause);
  }
  return { tenants, rootCauses };
}
