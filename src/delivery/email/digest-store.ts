/**
 * Rows of the `info` digest: an opening recorded for its period, the due ones claimed by one pass
 * (a lease, so two workers never send the same digest), and marked sent.
 */
import type { Queryable } from '../../db/index.js';
import type { DeliveryBody } from '../../outbox/index.js';
import { zoneOffsetMs } from '../../zone-offset.js';
import type { Digest } from './rules.js';

type Q = Pick<Queryable, 'query'>;

const HOUR = 3_600_000;
const DAY = 24 * HOUR;
/** How long a pass holds the digests it claimed; a pass that dies leaves them to the next one after this. */
export const DIGEST_LEASE_MS = 5 * 60_000;

/** The end of the period `at` falls in: the next full hour, or the next midnight in the time zone. */
export function periodEnd(digest: Digest, at: Date, timeZone: string): Date {
  const t = at.getTime();
  if (digest === 'hourly') return new Date(Math.floor(t / HOUR) * HOUR + HOUR);
  const offset = zoneOffsetMs(timeZone, t);
  const nextLocalMidnight = Math.floor((t + offset) / DAY) * DAY + DAY;
  return new Date(nextLocalMidnight - zoneOffsetMs(timeZone, nextLocalMidnight - offset));
}

export async function recordDigestItem(q: Q, x: { deliveryId: string; orgId: string; destinationId: string; body: DeliveryBody; periodEnd: Date }): Promise<void> {
  await q.query(
    `INSERT INTO email_digest_items (delivery_id, org_id, destination_id, body, period_end)
     SELECT $1, $2, $3, $4::jsonb, $5 WHERE EXISTS (SELECT 1 FROM deliveries WHERE id = $1)
     ON CONFLICT (delivery_id) DO NOTHING`,
    [x.deliveryId, x.orgId, x.destinationId, JSON.stringify(x.body), x.periodEnd],
  );
}

export interface DueDigest {
  orgId: string;
  destinationId: string;
  periodEnd: Date;
  deliveryIds: string[];
  bodies: DeliveryBody[];
}

/** Claims every item whose period ended (and no live lease holds), grouped by destination and period. */
export async function claimDueDigests(q: Q, now: Date): Promise<DueDigest[]> {
  const { rows } = await q.query<{ delivery_id: string; org_id: string; destination_id: string; body: DeliveryBody | string; period_end: Date }>(
    `UPDATE email_digest_items SET claimed_until = $2
      WHERE sent_at IS NULL AND period_end <= $1 AND (claimed_until IS NULL OR claimed_until < $1)
      RETURNING delivery_id, org_id, destination_id, body, period_end`,
    [now, new Date(now.getTime() + DIGEST_LEASE_MS)],
  );
  const groups = new Map<string, DueDigest>();
  for (const r of rows) {
    const end = new Date(r.period_end);
    const key = `${r.destination_id}|${end.getTime()}`;
    const g = groups.get(key) ?? { orgId: r.org_id, destinationId: r.destination_id, periodEnd: end, deliveryIds: [], bodies: [] };
    g.deliveryIds.push(r.delivery_id);
    g.bodies.push(typeof r.body === 'string' ? (JSON.parse(r.body) as DeliveryBody) : r.body);
    groups.set(key, g);
  }
  return [...groups.values()];
}

/** The digest is done: its items marked sent, its per-recipient progress (email_digest_sent) no longer needed. */
export async function markDigestSent(q: Q, g: Pick<DueDigest, 'deliveryIds' | 'destinationId' | 'periodEnd'>, now: Date): Promise<void> {
  await q.query(
    `WITH done AS (UPDATE email_digest_items SET sent_at = $2, claimed_until = NULL WHERE delivery_id = ANY($1::text[]))
     DELETE FROM email_digest_sent WHERE destination_id = $3 AND period_end = $4`,
    [g.deliveryIds, now, g.destinationId, g.periodEnd],
  );
}
