/**
 * One-click unsubscribe (RFC 8058): a POST with a recipient's token takes that recipient off that
 * destination's `recipients` (audited, acted by the recipient); a GET only shows what the POST
 * would do. Scoped by the token: it names one destination and one address, nothing else.
 */
import type { AppContext } from '../../context.js';
import type { Queryable } from '../../db/index.js';
import { recordAudit } from '../../access/audit.js';
import type { Language } from '../../orgs/language.js';
import { normalizeAddress, readEmailConfig } from './rules.js';
import { readUnsubscribeToken } from './tokens.js';

export interface UnsubscribeView {
  language: Language;
  address: string;
  destinationName: string;
  /** The address is (still) a recipient of the destination. */
  listed: boolean;
}

interface DestinationOfToken {
  org_id: string;
  name: string;
  config: Record<string, unknown>;
  language: Language;
}

const sameAddress = (a: string, b: string) => normalizeAddress(a).toLowerCase() === normalizeAddress(b).toLowerCase();

async function load(q: Queryable, destinationId: string, lock: boolean) {
  const { rows } = await q.query<DestinationOfToken>(
    `SELECT d.org_id, d.name, d.config, o.language FROM destinations d JOIN orgs o ON o.id = d.org_id
      WHERE d.id = $1 AND d.kind = 'email' AND d.deleted_at IS NULL${lock ? ' FOR UPDATE OF d' : ''}`,
    [destinationId],
  );
  return rows[0] ?? null;
}

/** What the confirmation page shows; null for a token that is not valid or a destination that is gone. */
export async function unsubscribeView(ctx: AppContext, token: string): Promise<UnsubscribeView | null> {
  const claim = readUnsubscribeToken(ctx, token);
  if (!claim) return null;
  const d = await load(ctx.db, claim.destinationId, false);
  if (!d) return null;
  const listed = readEmailConfig(d.config).recipients.some((r) => sameAddress(r, claim.address));
  return { language: d.language, address: claim.address, destinationName: d.name, listed };
}

/** Takes the token's recipient off its destination; 'already' when it was not listed any more; null for a bad token. */
export async function unsubscribe(ctx: AppContext, token: string, from: string | null): Promise<{ outcome: 'removed' | 'already'; view: UnsubscribeView } | null> {
  const claim = readUnsubscribeToken(ctx, token);
  if (!claim) return null;
  return ctx.db.tx(async (q) => {
    const d = await load(q, claim.destinationId, true);
    if (!d) return null;
    const cfg = readEmailConfig(d.config);
    const kept = cfg.recipients.filter((r) => !sameAddress(r, claim.address));
    const view = { language: d.language, address: claim.address, destinationName: d.name, listed: false };
    if (kept.length === cfg.recipients.length) return { outcome: 'already' as const, view };
    const now = ctx.clock.now();
    await q.query('UPDATE destinations SET config = $3::jsonb, updated_at = $4 WHERE org_id = $1 AND id = $2', [
      d.org_id,
      claim.destinationId,
      JSON.stringify({ ...d.config, recipients: kept }),
      now,
    ]);
    await recordAudit(q, {
      orgId: d.org_id,
      address: from,
      action: 'destination.unsubscribe',
      target: claim.destinationId,
      changes: { recipient: claim.address, recipientsLeft: kept.length },
      at: now,
      actor: { id: claim.destinationId, label: `e-mail recipient ${claim.address}` },
    });
    return { outcome: 'removed' as const, view };
  });
}
