/**
 * Acknowledge links and Slack button values (docs/notifications.md, "Acknowledge from the
 * message"). A link names one alert and one destination, carries its own expiry and a random id,
 * and is signed with HMAC-SHA256 under the server's link key: nothing is stored when a message is
 * built, the link proves itself when it comes back (constant-time comparison), and its id is
 * recorded when it is used (src/inbound/ack-link-use.ts), which makes it single-use.
 *
 * The link key is 32 random bytes made once per installation and kept in `settings`, sealed
 * under the master key like every other secret; every instance reads the same key.
 * Lives under delivery/ because the message builders call `ackLinkUrl`; the inbound door
 * verifies with `readAckToken`.
 */
import { createHmac, randomBytes } from 'node:crypto';
import type { AppContext } from '../context.js';
import type { Queryable } from '../db/index.js';
import { randomBase62 } from '../ids.js';
import { safeEqual } from '../secrets/tokens.js';

/** How long an acknowledge link works after the message carrying it was built. */
export const ACK_LINK_TTL_MS = 24 * 60 * 60_000;
const SETTING = 'ack_link_key';
const TOKEN = /^v1\.([A-Za-z0-9_-]{10,600})\.([A-Za-z0-9_-]{43})$/;

export interface AckLinkClaims {
  orgId: string;
  alertId: string;
  destinationId: string;
  /** A random id: the link's single use is recorded under it. */
  linkId: string;
  expiresAt: Date;
}

/** The opened link key, by database (every context of one installation shares it). */
const keys = new WeakMap<object, Buffer>();

/** The installation's link key: made and stored sealed on first use, then cached. */
export async function loadAckKey(ctx: Pick<AppContext, 'db' | 'sealer'>): Promise<Buffer> {
  const cached = keys.get(ctx.db);
  if (cached) return cached;
  const key = await readOrCreateKey(ctx.db, ctx.sealer);
  keys.set(ctx.db, key);
  return key;
}

async function readOrCreateKey(db: Queryable, sealer: AppContext['sealer']): Promise<Buffer> {
  // Two instances starting at once: the first insert wins and both read the winner.
  await db.query('INSERT INTO settings (key, value) VALUES ($1, $2) ON CONFLICT (key) DO NOTHING', [SETTING, sealer.seal(randomBytes(32).toString('base64'))]);
  const { rows } = await db.query<{ value: string }>('SELECT value FROM settings WHERE key = $1', [SETTING]);
  return Buffer.from(sealer.open(rows[0]!.value), 'base64');
}

function mac(key: Buffer, text: string): string {
  return createHmac('sha256', key).update(text, 'utf8').digest('base64url');
}

/** A signed token for one alert at one destination, valid for ACK_LINK_TTL_MS from `now`. */
export function signAckToken(key: Buffer, claims: { orgId: string; alertId: string; destinationId: string; now: Date }): string {
  const body = {
    o: claims.orgId,
    a: claims.alertId,
    d: claims.destinationId,
    n: randomBase62(16),
    e: Math.floor((claims.now.getTime() + ACK_LINK_TTL_MS) / 1000),
  };
  const payload = Buffer.from(JSON.stringify(body), 'utf8').toString('base64url');
  return `v1.${payload}.${mac(key, `ack:${payload}`)}`;
}

/**
 * The URL a message carries: `{VIGIA_BASE_URL}/ack/{token}`. Called by the message builders
 * (src/delivery/notify/) for an open incident only.
 */
export function ackLinkUrl(baseUrl: string, key: Buffer, claims: { orgId: string; alertId: string; destinationId: string; now: Date }): string {
  return `${baseUrl.replace(/\/+$/, '')}/ack/${signAckToken(key, claims)}`;
}

export type AckTokenReading = { ok: true; claims: AckLinkClaims } | { ok: false; reason: 'malformed' | 'forged' };

/**
 * The claims of a token whose signature is ours (compared in constant time), or why not. Expiry
 * is the caller's judgment (it has the clock and says so on its page).
 */
export function readAckToken(key: Buffer, token: string): AckTokenReading {
  const m = TOKEN.exec(token);
  if (!m) return { ok: false, reason: 'malformed' };
  if (!safeEqual(mac(key, `ack:${m[1]}`), m[2]!)) return { ok: false, reason: 'forged' };
  let body: { o?: unknown; a?: unknown; d?: unknown; n?: unknown; e?: unknown };
  try {
    body = JSON.parse(Buffer.from(m[1]!, 'base64url').toString('utf8'));
  } catch {
    return { ok: false, reason: 'malformed' };
  }
  const { o, a, d, n, e } = body;
  if (typeof o !== 'string' || typeof a !== 'string' || typeof d !== 'string' || typeof n !== 'string' || typeof e !== 'number') return { ok: false, reason: 'malformed' };
  return { ok: true, claims: { orgId: o, alertId: a, destinationId: d, linkId: n, expiresAt: new Date(e * 1000) } };
}

export type SlackAction = 'ack' | 'resolve';

/**
 * The `value` of a Slack button: the alert, the action and a short HMAC binding them to the
 * destination, so a click can only act on an alert this destination was sent. No expiry: a
 * Slack message keeps its buttons; Slack's own request signature proves the click is fresh.
 */
export function slackButtonValue(key: Buffer, destinationId: string, alertId: string, action: SlackAction): string {
  return `${action}.${alertId}.${mac(key, `slack:${destinationId}:${alertId}:${action}`).slice(0, 22)}`;
}

/** The alert and action of a button value made by slackButtonValue for this destination, or null. */
export function readSlackButtonValue(key: Buffer, destinationId: string, value: string): { alertId: string; action: SlackAction } | null {
  const m = /^(ack|resolve)\.([A-Za-z0-9_-]{1,100})\.([A-Za-z0-9_-]{22})$/.exec(value);
  if (!m) return null;
  const action = m[1] as SlackAction;
  const expected = mac(key, `slack:${destinationId}:${m[2]}:${action}`).slice(0, 22);
  return safeEqual(expected, m[3]!) ? { alertId: m[2]!, action } : null;
}

/**
 * The acknowledge links of a message, keyed by alert id: one per alert of `alertIds` that is
 * open and not acknowledged now (the others get none), bound to this destination. The message
 * builders pass it as `MessageContext.ackUrls` (src/delivery/notify/build.ts). `key` comes
 * from loadAckKey, read before any transaction.
 */
export async function loadAckUrls(
  q: Queryable,
  key: Buffer,
  baseUrl: string,
  input: { orgId: string; destinationId: string; alertIds: readonly string[]; now: Date },
): Promise<Map<string, string>> {
  const urls = new Map<string, string>();
  if (input.alertIds.length === 0) return urls;
  const { rows } = await q.query<{ id: string }>(
    "SELECT id FROM alerts WHERE org_id = $1 AND id = ANY($2::text[]) AND status = 'open' AND NOT acknowledged",
    [input.orgId, [...input.alertIds]],
  );
  for (const r of rows) urls.set(r.id, ackLinkUrl(baseUrl, key, { orgId: input.orgId, alertId: r.id, destinationId: input.destinationId, now: input.now }));
  return urls;
}

/**
 * The Slack button values of a message for a `slack` destination with its app's signing secret,
 * keyed by alert id: Resolve for every open alert, Acknowledge too while it is unacknowledged.
 */
export async function loadSlackActions(
  q: Queryable,
  key: Buffer,
  input: { orgId: string; destinationId: string; alertIds: readonly string[] },
): Promise<Map<string, { ack: string | null; resolve: string }>> {
  const out = new Map<string, { ack: string | null; resolve: string }>();
  if (input.alertIds.length === 0) return out;
  const { rows } = await q.query<{ id: string; acknowledged: boolean }>(
    "SELECT id, acknowledged FROM alerts WHERE org_id = $1 AND id = ANY($2::text[]) AND status = 'open'",
    [input.orgId, [...input.alertIds]],
  );
  for (const r of rows) {
    out.set(r.id, {
      ack: r.acknowledged ? null : slackButtonValue(key, input.destinationId, r.id, 'ack'),
      resolve: slackButtonValue(key, input.destinationId, r.id, 'resolve'),
    });
  }
  return out;
}
