/**
 * What an acknowledge link does when it comes back (docs/notifications.md, "Acknowledge from the
 * message"). `inspectAckLink` (GET) only reads: a mail scanner opening the link changes nothing.
 * `useAckLink` (POST) records the link's id (single-use) and acknowledges the alert through the
 * lifecycle, as an acknowledgement from an on-call tool is applied: MTTA and SLA count it, the
 * other destinations get `alert.acknowledged`, the destination the link came from does not (no
 * echo), and the audit log names who acted. Every refusal is a kind the page says in words,
 * never an exception.
 */
import type { AppContext } from '../context.js';
import type { Queryable } from '../db/index.js';
import { applyToolChangeIn } from '../alerts/lifecycle.js';
import { recordAudit } from '../access/audit.js';
import type { Principal } from '../access/principal.js';
import { actorLabel } from '../access/principal.js';
import { roleIn } from '../access/people.js';
import { atLeast } from '../access/roles.js';
import { DEFAULT_LANGUAGE, type Language } from '../orgs/language.js';
import { loadAckKey, readAckToken, type AckLinkClaims } from '../delivery/ack-links.js';

export type AckRefusal = 'malformed' | 'forged' | 'expired' | 'used' | 'gone' | 'sign-in' | 'forbidden' | 'not-open' | 'acknowledged';

export interface AckAlertView {
  /** The organization's time zone, in which the page shows when the incident opened. */
  timeZone: string;
  title: string;
  sourceType: string;
  sourceName: string;
  severity: string;
  status: string;
  acknowledged: boolean;
  acknowledgedBy: string | null;
  createdAt: Date;
}

export type AckLinkState =
  | { kind: 'refused'; reason: AckRefusal; language: Language; alert: AckAlertView | null; alertId: string | null }
  | { kind: 'ready'; language: Language; alert: AckAlertView; alertId: string; destinationName: string }
  | { kind: 'done'; language: Language; alert: AckAlertView; alertId: string; by: string };

interface Loaded {
  claims: AckLinkClaims;
  language: Language;
  requiresSignIn: boolean;
  destinationName: string;
  alert: AckAlertView;
}

/** The caller of the page: the console session's principal, when the browser brought one. */
export type AckCaller = Principal | null;

type Step = { ok: true; loaded: Loaded } | { ok: false; state: AckLinkState };

const refused = (reason: AckRefusal, language: Language = DEFAULT_LANGUAGE, alert: AckAlertView | null = null, alertId: string | null = null): Step => ({
  ok: false,
  state: { kind: 'refused', reason, language, alert, alertId },
});

/** Reads and checks a link: signature, expiry, the organization, destination and alert it names, the caller when sign-in is required. */
async function load(ctx: Pick<AppContext, 'clock'>, q: Queryable, key: Buffer, token: string, caller: AckCaller, lock: boolean): Promise<Step> {
  const read = readAckToken(key, token);
  if (!read.ok) return refused(read.reason);
  const c = read.claims;
  const { rows } = await q.query<{ language: Language; time_zone: string; ack_requires_sign_in: boolean; destination_name: string | null }>(
    `SELECT o.language, o.time_zone, o.ack_requires_sign_in,
            (SELECT d.name FROM destinations d WHERE d.id = $2 AND d.org_id = o.id AND d.deleted_at IS NULL) AS destination_name
       FROM orgs o WHERE o.id = $1`,
    [c.orgId, c.destinationId],
  );
  const org = rows[0];
  if (!org) return refused('gone');
  const alert = await loadAlertView(q, c.orgId, c.alertId, lock, org.time_zone);
  if (!alert || org.destination_name === null) return refused('gone', org.language, alert, alert ? c.alertId : null);
  const fail = (reason: AckRefusal) => refused(reason, org.language, alert, c.alertId);
  if (ctx.clock.now().getTime() >= c.expiresAt.getTime()) return fail('expired');
  const { rows: used } = await q.query('SELECT 1 FROM ack_link_uses WHERE link_id = $1', [c.linkId]);
  if (used.length > 0) return fail('used');
  if (org.ack_requires_sign_in || caller) {
    const allowed = await callerMayAcknowledge(q, caller, c.orgId);
    if (allowed === 'no-session' && org.ack_requires_sign_in) return fail('sign-in');
    if (allowed === 'no-role') return fail('forbidden');
  }
  if (alert.status !== 'open') return fail('not-open');
  if (alert.acknowledged) return fail('acknowledged');
  return { ok: true, loaded: { claims: c, language: org.language, requiresSignIn: org.ack_requires_sign_in, destinationName: org.destination_name, alert } };
}

async function callerMayAcknowledge(q: Queryable, caller: AckCaller, orgId: string): Promise<'yes' | 'no-session' | 'no-role'> {
  if (!caller) return 'no-session';
  if (caller.kind === 'instance-admin') return 'yes';
  return atLeast(await roleIn(q, caller, orgId), 'operator') ? 'yes' : 'no-role';
}

async function loadAlertView(q: Queryable, orgId: string, alertId: string, lock: boolean, timeZone: string): Promise<AckAlertView | null> {
  const { rows } = await q.query<{
    title: string; source_type: string; source_name: string; severity: string; status: string; acknowledged: boolean; acknowledged_by: string | null; created_at: Date;
  }>(
    `SELECT title, source_type, source_name, severity, status, acknowledged, acknowledged_by, created_at FROM alerts WHERE id = $1 AND org_id = $2${lock ? ' FOR UPDATE' : ''}`,
    [alertId, orgId],
  );
  const r = rows[0];
  if (!r) return null;
  return {
    timeZone,
    title: r.title, sourceType: r.source_type, sourceName: r.source_name, severity: r.severity, status: r.status,
    acknowledged: r.acknowledged, acknowledgedBy: r.acknowledged_by, createdAt: r.created_at,
  };
}

/** GET: what the page shows. Changes nothing. */
export async function inspectAckLink(ctx: Pick<AppContext, 'db' | 'sealer' | 'clock'>, token: string, caller: AckCaller): Promise<AckLinkState> {
  const step = await load(ctx, ctx.db, await loadAckKey(ctx), token, caller, false);
  if (!step.ok) return step.state;
  const l = step.loaded;
  return { kind: 'ready', language: l.language, alert: l.alert, alertId: l.claims.alertId, destinationName: l.destinationName };
}

/** POST: acknowledges once. The link's id and the acknowledgement are written in one transaction. */
export async function useAckLink(ctx: Pick<AppContext, 'db' | 'sealer' | 'clock' | 'config'>, token: string, caller: AckCaller, address: string): Promise<AckLinkState> {
  const now = ctx.clock.now();
  const key = await loadAckKey(ctx); // before the transaction: PGlite has one connection
  return ctx.db.tx(async (q) => {
    const step = await load(ctx, q, key, token, caller, true);
    if (!step.ok) return step.state;
    const { claims: c, destinationName, language } = step.loaded;
    const by = caller ? actorLabel(caller) : destinationName;
    const { rows: taken } = await q.query(
      `INSERT INTO ack_link_uses (link_id, org_id, alert_id, destination_id, used_at, used_by, expires_at)
       VALUES ($1, $2, $3, $4, $5, $6, $7) ON CONFLICT (link_id) DO NOTHING RETURNING link_id`,
      [c.linkId, c.orgId, c.alertId, c.destinationId, now, by, c.expiresAt],
    );
    if (taken.length === 0) return { kind: 'refused', reason: 'used', language, alert: step.loaded.alert, alertId: c.alertId } as AckLinkState;
    await q.query('DELETE FROM ack_link_uses WHERE expires_at < $1', [new Date(now.getTime() - 24 * 60 * 60_000)]);
    const row = await applyToolChangeIn(q, ctx.config.baseUrl, { orgId: c.orgId, alertId: c.alertId, kind: 'acknowledge', at: now, by, originDestinationId: c.destinationId }, now);
    // Open and unacknowledged under the lock, so this is only a change of the same instant.
    if (!row) return { kind: 'refused', reason: 'acknowledged', language, alert: step.loaded.alert, alertId: c.alertId } as AckLinkState;
    await recordAudit(q, {
      ...(caller ? { principal: caller } : { actor: { id: c.destinationId, label: `ack link: ${destinationName}` } }),
      orgId: c.orgId,
      address,
      action: 'alerts.acknowledge',
      target: c.alertId,
      changes: { via: 'ack-link', destinationId: c.destinationId },
      at: now,
    });
    const alert = (await loadAlertView(q, c.orgId, c.alertId, false, step.loaded.alert.timeZone))!;
    return { kind: 'done', language, alert, alertId: c.alertId, by } as AckLinkState;
  });
}
