/**
 * One inbound event from an ITSM tool, start to end (docs/connectors.md, "Acknowledging in the
 * tool"): authenticate before reading, read the tool's body, refuse an event older than any
 * tool retries (or from the future), then in one
 * transaction take the event id (each applied once), find the Vigia alerts by the keys the
 * delivery stored, keep only changes newer than the last one applied to the alert, apply them
 * through the alert lifecycle (events to the other destinations only), write the audit log with
 * the tool as actor, and count the outcome on the destination.
 */
import type { AppContext } from '../context.js';
import type { Queryable } from '../db/index.js';
import { applyToolChangeIn } from '../alerts/lifecycle.js';
import { txWithRetry } from '../db/retry.js';
import { recordAudit } from '../access/audit.js';
import { createGuardedSend } from '../delivery/guarded-http.js';
import { countInbound, loadInboundTarget, openCredentials, type InboundTarget, type Verdict } from './endpoints.js';
import { incidentAlertKeys } from './pagerduty-alerts.js';
import { parseToolEvent, TOOL_NAMES, type InboundEvent } from './tools.js';
import { unsafeTextIn } from './text-safety.js';
import { authenticate } from './verify.js';

/**
 * How old a signed event may be and still be applied: longer than any tool retries (PagerDuty
 * retries for 48 hours, Azure DevOps keeps a hook on probation for about 36 hours, a ServiceNow
 * retry policy stops after 24 hours by default), so events held back by an outage of Vigia are
 * applied when they arrive, when they are the newest change of their alert.
 */
export const MAX_EVENT_AGE_MS = 72 * 60 * 60_000;
/** A tool's clock may be this far ahead of Vigia's. */
export const MAX_CLOCK_AHEAD_MS = 10 * 60_000;
/** Event ids, and Vigia's own writes to the tools, are remembered this long (well past the age an event may have). */
const SEEN_RETENTION_MS = 7 * 24 * 60 * 60_000;
/** A tool's time of a change Vigia wrote is within this of the write's start (clock skew, queueing). */
const ECHO_WINDOW_MS = 2 * 60_000;
export const AUTH_FAILED = 'authentication failed (signature or secret does not match)';

export type InboundOutcome =
  /** `recordRefusal` counts it on the destination (the same statement for an unknown one, which changes no row). */
  | { kind: 'unauthenticated'; recordRefusal: () => Promise<void> }
  | { kind: 'handled'; tool: string; verdict: Verdict; reason: string | null; alertIds: string[] };

export interface InboundRequest {
  destinationId: string;
  headers: Record<string, string | undefined>;
  rawBody: Buffer;
  address: string;
}

export async function receiveInboundEvent(ctx: AppContext, req: InboundRequest): Promise<InboundOutcome> {
  const now = ctx.clock.now();
  const { target, secrets } = await loadInboundTarget(ctx, req.destinationId, now);
  if (!authenticate(target?.kind ?? null, secrets, req.headers, req.rawBody).ok || !target) {
    // The same work and the same answer for a known and an unknown destination; the count is written after the answer.
    return { kind: 'unauthenticated', recordRefusal: () => countInbound(ctx.db, req.destinationId, 'refused', now, AUTH_FAILED) };
  }
  const done = async (verdict: Verdict, reason: string | null, alertIds: string[] = []): Promise<InboundOutcome> => {
    await countInbound(ctx.db, target.destinationId, verdict, now, reason);
    return { kind: 'handled', tool: target.kind, verdict, reason, alertIds };
  };
  if (!target.destinationEnabled) return done('refused', 'the destination is disabled: events from the tool are not applied');
  let body: unknown;
  try {
    body = JSON.parse(req.rawBody.toString('utf8'));
  } catch {
    return done('refused', 'the body is not JSON');
  }
  const unsafe = unsafeTextIn(body);
  if (unsafe) return done('refused', unsafe);
  const parsed = parseToolEvent(target.kind, body);
  if (!parsed.ok) return done('refused', parsed.reason);
  const ev = parsed.event;
  const tooOld = now.getTime() - ev.at.getTime() > MAX_EVENT_AGE_MS;
  if (tooOld || ev.at.getTime() - now.getTime() > MAX_CLOCK_AHEAD_MS) {
    return done('refused', `stale event: the tool's time ${ev.at.toISOString()} is ${tooOld ? `more than ${MAX_EVENT_AGE_MS / 3_600_000} hours old` : `more than ${MAX_CLOCK_AHEAD_MS / 60_000} minutes ahead`}`);
  }
  if (!ev.change) return done('ignored', `event type not used: ${ev.type}`);
  const alertIds = await candidateAlertIds(ctx, target, ev);
  const result = await txWithRetry(ctx.db, (q) => applyEvent(q, ctx, target, ev, alertIds, req.address, now));
  return done(result.applied.length > 0 ? 'applied' : 'ignored', result.reason, result.applied);
}

/** The alert ids the event names; for PagerDuty with a REST API key, confirmed by the incident's alerts. */
async function candidateAlertIds(ctx: AppContext, target: InboundTarget, ev: InboundEvent): Promise<string[]> {
  const apiKey = target.kind === 'pagerduty' ? openCredentials(ctx.sealer, target).restApiKey : undefined;
  if (target.kind !== 'pagerduty' || !apiKey || !ev.pagerDutyIncidentId) return ev.alertIds;
  const send = createGuardedSend(ctx);
  try {
    return (await incidentAlertKeys(send, target.config, apiKey, ev.pagerDutyIncidentId)) ?? ev.alertIds;
  } finally {
    await send.close().catch(() => undefined);
  }
}

async function applyEvent(
  q: Queryable,
  ctx: AppContext,
  target: InboundTarget,
  ev: InboundEvent,
  alertIds: string[],
  address: string,
  now: Date,
): Promise<{ applied: string[]; reason: string | null }> {
  const forgetBefore = new Date(now.getTime() - SEEN_RETENTION_MS);
  await q.query('DELETE FROM inbound_seen_events WHERE destination_id = $1 AND seen_at < $2', [target.destinationId, forgetBefore]);
  await q.query('DELETE FROM connector_writes WHERE destination_id = $1 AND written_at < $2', [target.destinationId, forgetBefore]);
  const { rows: taken } = await q.query(
    'INSERT INTO inbound_seen_events (destination_id, event_key, seen_at) VALUES ($1, $2, $3) ON CONFLICT DO NOTHING RETURNING event_key',
    [target.destinationId, ev.eventKey, now],
  );
  if (taken.length === 0) return { applied: [], reason: 'event already received' };
  const matched = await matchAlerts(q, target, ev, alertIds);
  if (matched.length === 0) return { applied: [], reason: 'no Vigia alert of this destination matches the event' };
  const applied: string[] = [];
  let stale = 0;
  let echoes = 0;
  for (const alertId of matched) {
    if (await isOwnEcho(q, target.destinationId, alertId, ev)) {
      echoes += 1;
      continue;
    }
    const { rows: newer } = await q.query(
      `INSERT INTO inbound_alert_versions (destination_id, alert_id, last_at) VALUES ($1, $2, $3)
       ON CONFLICT (destination_id, alert_id) DO UPDATE SET last_at = EXCLUDED.last_at WHERE inbound_alert_versions.last_at <= EXCLUDED.last_at
       RETURNING alert_id`,
      [target.destinationId, alertId, ev.at],
    );
    if (newer.length === 0) {
      stale += 1; // an older change arriving after a newer one
      continue;
    }
    const tool = TOOL_NAMES[target.kind] ?? target.kind;
    const row = await applyToolChangeIn(
      q,
      ctx.config.baseUrl,
      { orgId: target.orgId, alertId, kind: ev.change!, at: ev.at, by: ev.actor ?? tool, originDestinationId: target.destinationId },
      now,
    );
    if (!row) continue;
    applied.push(alertId);
    await recordToolAudit(q, { orgId: target.orgId, destinationId: target.destinationId, tool, actor: ev.actor, address, alertId, change: ev.change!, at: ev.at, eventKey: ev.eventKey, now });
  }
  if (applied.length > 0) return { applied, reason: null };
  if (echoes === matched.length) return { applied, reason: "echo: the tool reflects Vigia's own write of this change" };
  if (stale === matched.length) return { applied, reason: `stale: a newer change from this tool was already applied (the event's time is ${ev.at.toISOString()})` };
  return { applied, reason: 'no change: the alert is already in that state, or resolved' };
}

/**
 * Whether the event only reflects a change Vigia wrote to this tool (the notification log,
 * connector_writes): the same alert and change, at a tool time within ECHO_WINDOW_MS of the
 * write. Each write explains one event (it is taken).
 */
async function isOwnEcho(q: Queryable, destinationId: string, alertId: string, ev: InboundEvent): Promise<boolean> {
  const { rows } = await q.query(
    `DELETE FROM connector_writes WHERE (destination_id, alert_id, change, written_at) IN (
       SELECT destination_id, alert_id, change, written_at FROM connector_writes
        WHERE destination_id = $1 AND alert_id = $2 AND change = $3 AND written_at BETWEEN $4 AND $5
        ORDER BY written_at LIMIT 1)
     RETURNING written_at`,
    [destinationId, alertId, ev.change, new Date(ev.at.getTime() - ECHO_WINDOW_MS), new Date(ev.at.getTime() + ECHO_WINDOW_MS)],
  );
  return rows.length > 0;
}

/**
 * The alerts of this destination's organization the event names, among those this destination
 * holds a delivery reference for — and, when the event carries the tool's own reference
 * (ServiceNow sys_id, work item id), whose stored reference agrees. A work item without our tag
 * is found by its id alone.
 */
async function matchAlerts(q: Queryable, target: InboundTarget, ev: InboundEvent, alertIds: string[]): Promise<string[]> {
  const { rows } = await q.query<{ alert_id: string; ref: Record<string, unknown> }>(
    `SELECT r.alert_id, r.ref FROM connector_refs r JOIN alerts a ON a.id = r.alert_id AND a.org_id = $2
      WHERE r.destination_id = $1 AND (r.alert_id = ANY($3::text[]) OR ($4::text IS NOT NULL AND r.ref ->> $5 = $4::text))
      ORDER BY r.alert_id LIMIT 50`,
    [target.destinationId, target.orgId, alertIds, ev.ref?.value ?? null, ev.ref?.field ?? 'none'],
  );
  return rows
    .filter((r) => !ev.ref || r.ref[ev.ref.field] === undefined || String(r.ref[ev.ref.field]) === ev.ref.value)
    .filter((r) => alertIds.includes(r.alert_id) || target.kind === 'azure-devops')
    .map((r) => r.alert_id);
}

/** The audit entry of a change made in a tool: the tool (and the person's name there) as actor. */
async function recordToolAudit(
  q: Queryable,
  e: { orgId: string; destinationId: string; tool: string; actor: string | null; address: string; alertId: string; change: string; at: Date; eventKey: string; now: Date },
): Promise<void> {
  await recordAudit(q, {
    actor: { id: e.destinationId, label: e.actor ? `${e.tool}: ${e.actor}` : e.tool },
    orgId: e.orgId,
    address: e.address,
    action: `alerts.${e.change}`,
    target: e.alertId,
    changes: { via: 'inbound', tool: e.tool, destinationId: e.destinationId, event: e.eventKey, at: e.at.toISOString() },
    at: e.now,
  });
}
