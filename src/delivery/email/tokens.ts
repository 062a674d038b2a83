/**
 * Unsubscribe tokens: the destination and the recipient, sealed (AES-256-GCM under the master
 * key), so a token cannot be forged, altered or read — the address is not in the URL in clear.
 * One token per recipient and destination; it does not expire (a link in an old message still works).
 */
import type { AppContext } from '../../context.js';

export interface UnsubscribeClaim {
  destinationId: string;
  address: string;
}

export function unsubscribeToken(ctx: Pick<AppContext, 'sealer'>, c: UnsubscribeClaim): string {
  return ctx.sealer.sealJson({ k: 'unsub', d: c.destinationId, a: c.address });
}

/** The claim of a token, or null when it is not one of ours (forged, altered, another kind). */
export function readUnsubscribeToken(ctx: Pick<AppContext, 'sealer'>, token: string): UnsubscribeClaim | null {
  if (token.length > 2000) return null;
  try {
    const v = ctx.sealer.openJson<{ k?: unknown; d?: unknown; a?: unknown }>(token);
    if (v.k !== 'unsub' || typeof v.d !== 'string' || typeof v.a !== 'string') return null;
    return { destinationId: v.d, address: v.a };
  } catch {
    return null;
  }
}

/** The https URL a recipient's one-click unsubscribe posts to (GET shows a confirmation page). */
export function unsubscribeUrl(ctx: Pick<AppContext, 'sealer' | 'config'>, c: UnsubscribeClaim): string {
  return `${ctx.config.baseUrl}/api/inbound/v1/email/unsubscribe?t=${encodeURIComponent(unsubscribeToken(ctx, c))}`;
}
