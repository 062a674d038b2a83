/**
 * The inbound block of a connector destination's view: its address, whether it is on, the last
 * event and the counts of applied, ignored and refused events (endpoints.ts writes them).
 */
import type { AppContext } from '../context.js';

export interface InboundView {
  url: string;
  enabled: boolean;
  lastEventAt: string | null;
  applied: number;
  ignored: number;
  refused: number;
  lastRefusal: string | null;
}

export interface EndpointRow {
  destination_id: string;
  enabled: boolean;
  secrets_sealed: string | null;
  last_event_at: Date | null;
  applied: string | number;
  ignored: string | number;
  refused: string | number;
  last_refusal: string | null;
}

export function inboundUrl(baseUrl: string, destinationId: string): string {
  return `${baseUrl}/api/inbound/v1/destinations/${encodeURIComponent(destinationId)}`;
}

/**
 * The Request URL a `slack` destination's Slack app posts its button clicks to (Interactivity &
 * Shortcuts): built from the instance's public address (VIGIA_BASE_URL), never from the address
 * a browser used, so an operator behind a proxy or on an internal name copies the right one.
 */
export function slackRequestUrl(baseUrl: string, destinationId: string): string {
  return `${baseUrl}/api/inbound/v1/slack/${encodeURIComponent(destinationId)}`;
}

/**
 * Whether a kind has the connectors' inbound address: the ITSM connectors only. Webhooks take
 * nothing back; e-mail, Teams and Slack have doors of their own (unsubscribe, ack links, Slack's
 * Request URL).
 */
export function hasInboundAddress(kind: string): boolean {
  return !['webhook', 'email', 'teams', 'slack'].includes(kind);
}

/** The inbound block of each destination given (connector kinds; the caller leaves webhooks out). */
export async function readInboundViews(ctx: Pick<AppContext, 'db' | 'config'>, orgId: string, destinationIds: string[]): Promise<Map<string, InboundView>> {
  const { rows } = await ctx.db.query<EndpointRow>(
    'SELECT * FROM inbound_endpoints WHERE org_id = $1 AND destination_id = ANY($2::text[])',
    [orgId, destinationIds],
  );
  const byId = new Map(rows.map((r) => [r.destination_id, r]));
  return new Map(
    destinationIds.map((id) => {
      const r = byId.get(id);
      return [
        id,
        {
          url: inboundUrl(ctx.config.baseUrl, id),
          enabled: r?.enabled ?? false,
          lastEventAt: r?.last_event_at ? r.last_event_at.toISOString() : null,
          applied: Number(r?.applied ?? 0),
          ignored: Number(r?.ignored ?? 0),
          refused: Number(r?.refused ?? 0),
          lastRefusal: r?.last_refusal ?? null,
        },
      ];
    }),
  );
}

