/**
 * The rows e-mail delivery keeps: which recipients took a delivery's message — or a digest's
 * (so a retry sends only to the others), the relay's permanent refusals marked on recipients, and
 * what the organization chose for its mail (language, Reply-To).
 */
import type { Queryable } from '../../db/index.js';
import type { Language } from '../../orgs/language.js';

type Q = Pick<Queryable, 'query'>;

export interface OrgMailSettings {
  orgId: string;
  language: Language;
  timeZone: string;
  replyTo: string | null;
}

/**
 * The settings of the organization owning the destination, and the recipients that already took
 * delivery `deliveryId`'s message (none when null), in one round trip; null for a destination that does not exist.
 */
export async function orgMailSettings(q: Q, destinationId: string, deliveryId: string | null = null): Promise<(OrgMailSettings & { sent: Set<string> }) | null> {
  const { rows } = await q.query<{ org_id: string; language: Language; time_zone: string; email_reply_to: string | null; sent: string[] | null }>(
    `SELECT d.org_id, o.language, o.time_zone, o.email_reply_to,
            (SELECT array_agg(s.address) FROM email_sent s WHERE s.delivery_id = $2) AS sent
       FROM destinations d JOIN orgs o ON o.id = d.org_id WHERE d.id = $1`,
    [destinationId, deliveryId],
  );
  const r = rows[0];
  return r ? { orgId: r.org_id, language: r.language, timeZone: r.time_zone, replyTo: r.email_reply_to, sent: new Set(r.sent ?? []) } : null;
}

/**
 * What a message's per-recipient progress is kept under: its delivery (a grouped opening's: the
 * leader's, whose attempt sends the group), or a digest (its destination and period). A test
 * send keeps none (null).
 */
export type SendProgress = { deliveryId: string } | { digestPeriodEnd: Date };

/** A recipient took the message: remembered under its progress, and its refusal mark (if any) removed. */
export async function recordAccepted(q: Q, x: { progress: SendProgress | null; destinationId: string; address: string; messageId: string; at: Date }): Promise<void> {
  const deliveryId = x.progress && 'deliveryId' in x.progress ? x.progress.deliveryId : null;
  const periodEnd = x.progress && 'digestPeriodEnd' in x.progress ? x.progress.digestPeriodEnd : null;
  // One round trip: the progress row (of a delivery or of a digest) and the mark's removal.
  await q.query(
    `WITH sent AS (
       INSERT INTO email_sent (delivery_id, address, message_id, sent_at)
       SELECT $1::text, $3::text, $4::text, $5::timestamptz WHERE $1::text IS NOT NULL
       ON CONFLICT DO NOTHING),
     digest AS (
       INSERT INTO email_digest_sent (destination_id, period_end, address, message_id, sent_at)
       SELECT $2::text, $6::timestamptz, $3::text, $4::text, $5::timestamptz WHERE $6::timestamptz IS NOT NULL
       ON CONFLICT DO NOTHING)
     DELETE FROM email_recipient_marks WHERE destination_id = $2 AND address = $3`,
    [deliveryId, x.destinationId, x.address, x.messageId, x.at, periodEnd],
  );
}

/** The recipients that already took the digest of this destination and period. */
export async function digestSentTo(q: Q, destinationId: string, periodEnd: Date): Promise<Set<string>> {
  const { rows } = await q.query<{ address: string }>('SELECT address FROM email_digest_sent WHERE destination_id = $1 AND period_end = $2', [destinationId, periodEnd]);
  return new Set(rows.map((r) => r.address));
}

/** The relay refused a recipient for good (5xx): the mark is on that recipient, with the relay's reply. */
export async function markRefused(q: Q, destinationId: string, address: string, reply: string, at: Date): Promise<void> {
  await q.query(
    `INSERT INTO email_recipient_marks (destination_id, address, refused_at, reply) VALUES ($1, $2, $3, $4)
     ON CONFLICT (destination_id, address) DO UPDATE SET refused_at = EXCLUDED.refused_at, reply = EXCLUDED.reply`,
    [destinationId, address, at, reply],
  );
}

export interface RecipientMark {
  address: string;
  refusedAt: string;
  reply: string;
}

/** The marks of the given destinations (of one organization), by destination id. */
export async function recipientMarks(q: Q, orgId: string, destinationIds: string[]): Promise<Map<string, RecipientMark[]>> {
  const out = new Map<string, RecipientMark[]>();
  if (destinationIds.length === 0) return out;
  const { rows } = await q.query<{ destination_id: string; address: string; refused_at: Date; reply: string }>(
    `SELECT m.destination_id, m.address, m.refused_at, m.reply FROM email_recipient_marks m
       JOIN destinations d ON d.id = m.destination_id
      WHERE d.org_id = $1 AND m.destination_id = ANY($2::text[]) ORDER BY m.address`,
    [orgId, destinationIds],
  );
  for (const r of rows) {
    const list = out.get(r.destination_id) ?? [];
    list.push({ address: r.address, refusedAt: new Date(r.refused_at).toISOString(), reply: r.reply });
    out.set(r.destination_id, list);
  }
  return out;
}
