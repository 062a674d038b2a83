/**
 * A click on a Vigia message's Acknowledge / Resolve button in Slack (docs/notifications.md,
 * "Slack app: buttons that act"). Slack posts the interaction to the destination's inbound door
 * (`POST /api/inbound/v1/slack/{destinationId}`); it is authenticated with the signing secret
 * of the destination's Slack app (stored sealed with its credentials, `appSigningSecret`),
 * the button's value is checked to be one this destination was given (slackButtonValue), and
 * the change goes through the alert lifecycle like any tool's: the other destinations are
 * told, this one is not (its message is replaced instead, through `response_url`, by
 * slack-reply.ts after the answer).
 */
import type { AppContext } from '../context.js';
import type { Queryable } from '../db/index.js';
import { applyToolChangeIn } from '../alerts/lifecycle.js';
import { txWithRetry } from '../db/retry.js';
import { recordAudit } from '../access/audit.js';
import { DEFAULT_LANGUAGE, type Language } from '../orgs/language.js';
import { loadAckKey, readSlackButtonValue, slackButtonValue, type SlackAction } from '../delivery/ack-links.js';
import { verifySlackRequest } from './slack-verify.js';

export interface SlackClick {
  orgId: string;
  destinationId: string;
  language: Language;
  alertId: string;
  action: SlackAction;
  /** `@username` (or the Slack user id) of who clicked. */
  who: string;
  responseUrl: string | null;
  /** The clicked message's blocks, to be shown again with this alert's buttons as they are now. */
  blocks: unknown[];
  /** Whether this click changed the alert (false: it was already in that state). */
  applied: boolean;
  alertTitle: string;
  /** The alert in the console (`{VIGIA_BASE_URL}/alerts/{id}`), linked from the replaced message. */
  consoleUrl: string;
  /**
   * The alert's buttons after the click: Resolve while it is open (and Acknowledge while it is
   * not acknowledged), none once it is resolved.
   */
  actions: { ack: string | null; resolve: string } | null;
}

export type SlackOutcome =
  | { kind: 'unauthenticated'; reason: 'bad_signature' | 'stale_timestamp' }
  | { kind: 'refused'; reason: string }
  | { kind: 'handled'; click: SlackClick };

interface SlackTarget {
  org_id: string;
  enabled: boolean;
  language: Language;
  credentials_sealed: string | null;
}

/** What a decoy secret is for: an unknown destination costs the same HMAC as a known one. */
const DECOY_SECRET = '0'.repeat(32);

async function loadTarget(ctx: Pick<AppContext, 'db' | 'sealer'>, destinationId: string): Promise<{ target: SlackTarget | null; secret: string }> {
  const { rows } = await ctx.db.query<SlackTarget>(
    `SELECT d.org_id, d.enabled, d.credentials_sealed, o.language FROM destinations d JOIN orgs o ON o.id = d.org_id
      WHERE d.id = $1 AND d.kind = 'slack' AND d.deleted_at IS NULL`,
    [destinationId],
  );
  const r = rows[0];
  const secret = r?.credentials_sealed ? ctx.sealer.openJson<Record<string, string>>(r.credentials_sealed).appSigningSecret : undefined;
  return secret && r ? { target: r, secret } : { target: null, secret: DECOY_SECRET };
}

interface ParsedClick {
  value: string;
  who: string;
  responseUrl: string | null;
  blocks: unknown[];
}

/** The one button action of a `block_actions` payload (form field `payload`), or why not. */
export function parseSlackPayload(rawBody: Buffer): ParsedClick | string {
  const json = new URLSearchParams(rawBody.toString('utf8')).get('payload');
  if (!json) return 'the body has no "payload" form field';
  let p: { type?: unknown; user?: { id?: unknown; username?: unknown; name?: unknown }; actions?: unknown; response_url?: unknown; message?: { blocks?: unknown } };
  try {
    p = JSON.parse(json);
  } catch {
    return 'the payload is not JSON';
  }
  if (p === null || typeof p !== 'object') return 'the payload is not an object';
  if (p.type !== 'block_actions') return `interaction type not used: ${String(p.type).slice(0, 40)}`;
  const action = Array.isArray(p.actions) ? (p.actions[0] as { action_id?: unknown; value?: unknown } | undefined) : undefined;
  if (!action || (action.action_id !== 'vigia.ack' && action.action_id !== 'vigia.resolve') || typeof action.value !== 'string') return 'no Vigia button in the payload';
  const name = [p.user?.username, p.user?.name, p.user?.id].find((x): x is string => typeof x === 'string' && x.length > 0 && x.length <= 100);
  return {
    value: action.value,
    who: name ? `@${name.replace(/^@/, '')}` : 'Slack',
    responseUrl: typeof p.response_url === 'string' ? p.response_url : null,
    blocks: Array.isArray(p.message?.blocks) ? p.message.blocks : [],
  };
}

export async function receiveSlackAction(
  ctx: Pick<AppContext, 'db' | 'sealer' | 'clock' | 'config'>,
  req: { destinationId: string; headers: Record<string, string | string[] | undefined>; rawBody: Buffer; address: string },
): Promise<SlackOutcome> {
  const now = ctx.clock.now();
  const { target, secret } = await loadTarget(ctx, req.destinationId);
  const check = verifySlackRequest([secret], req.headers, req.rawBody, now);
  if (!check.ok) return { kind: 'unauthenticated', reason: check.reason };
  if (!target) return { kind: 'unauthenticated', reason: 'bad_signature' };
  if (!target.enabled) return { kind: 'refused', reason: 'the destination is disabled' };
  const parsed = parseSlackPayload(req.rawBody);
  if (typeof parsed === 'string') return { kind: 'refused', reason: parsed };
  const key = await loadAckKey(ctx);
  const button = readSlackButtonValue(key, req.destinationId, parsed.value);
  if (!button) return { kind: 'refused', reason: 'the button was not made by Vigia for this destination' };
  const change = { orgId: target.org_id, destinationId: req.destinationId, alertId: button.alertId, action: button.action, who: parsed.who, address: req.address };
  const result = await txWithRetry(ctx.db, (q) => applyClick(q, ctx.config.baseUrl, change, now));
  if (!result) return { kind: 'refused', reason: 'no alert of this organization matches the button' };
  const valueFor = (action: SlackAction) => slackButtonValue(key, req.destinationId, button.alertId, action);
  return {
    kind: 'handled',
    click: {
      ...change,
      language: target.language ?? DEFAULT_LANGUAGE,
      responseUrl: parsed.responseUrl,
      blocks: parsed.blocks,
      applied: result.applied,
      alertTitle: result.title,
      consoleUrl: `${ctx.config.baseUrl}/alerts/${encodeURIComponent(button.alertId)}`,
      actions: result.status === 'open' ? { ack: result.acknowledged ? null : valueFor('ack'), resolve: valueFor('resolve') } : null,
    },
  };
}

async function applyClick(
  q: Queryable,
  baseUrl: string,
  c: { orgId: string; destinationId: string; alertId: string; action: SlackAction; who: string; address: string },
  now: Date,
): Promise<{ applied: boolean; title: string; status: string; acknowledged: boolean } | null> {
  const { rows } = await q.query<{ title: string }>('SELECT title FROM alerts WHERE id = $1 AND org_id = $2', [c.alertId, c.orgId]);
  if (!rows[0]) return null;
  const kind = c.action === 'ack' ? 'acknowledge' : 'resolve';
  const by = `Slack: ${c.who}`;
  const row = await applyToolChangeIn(q, baseUrl, { orgId: c.orgId, alertId: c.alertId, kind, at: now, by, originDestinationId: c.destinationId }, now);
  if (row) {
    await recordAudit(q, {
      actor: { id: c.destinationId, label: by },
      orgId: c.orgId,
      address: c.address,
      action: `alerts.${kind}`,
      target: c.alertId,
      changes: { via: 'slack', destinationId: c.destinationId },
      at: now,
    });
  }
  // The state after the click (this one's, or an earlier change's), for the replaced message's buttons.
  const { rows: after } = await q.query<{ status: string; acknowledged: boolean }>('SELECT status, acknowledged FROM alerts WHERE id = $1 AND org_id = $2', [c.alertId, c.orgId]);
  return { applied: row !== null, title: rows[0].title, status: after[0]!.status, acknowledged: after[0]!.acknowledged };
}
