/** Silences (docs/alerts.md): matchers on sourceType / sourceId / notificationKind, a time window. */
import type { AppContext } from '../context.js';
import type { Queryable } from '../db/index.js';
import { invalidInput, notFoundError } from '../errors.js';
import { newId } from '../ids.js';
import { requireOrg } from '../orgs/orgs.js';
import { releaseOrg } from './release.js';
import { txWithRetry } from '../db/retry.js';
import { auditTarget } from '../access/audit-context.js';

type Ctx = Pick<AppContext, 'db' | 'clock' | 'config'>;

export interface SilenceMatchers {
  sourceType?: string;
  sourceId?: string;
  notificationKind?: string;
}

export interface SilenceJson {
  id: string;
  matchers: SilenceMatchers;
  startsAt: string;
  endsAt: string;
  comment: string | null;
  createdAt: string;
  active: boolean;
}

interface SilenceRow {
  id: string;
  source_type: string | null;
  source_id: string | null;
  notification_kind: string | null;
  starts_at: Date;
  ends_at: Date;
  comment: string | null;
  created_at: Date;
}

function toJson(r: SilenceRow, now: Date): SilenceJson {
  const matchers: SilenceMatchers = {};
  if (r.source_type !== null) matchers.sourceType = r.source_type;
  if (r.source_id !== null) matchers.sourceId = r.source_id;
  if (r.notification_kind !== null) matchers.notificationKind = r.notification_kind;
  return {
    id: r.id,
    matchers,
    startsAt: r.starts_at.toISOString(),
    endsAt: r.ends_at.toISOString(),
    comment: r.comment,
    createdAt: r.created_at.toISOString(),
    active: r.starts_at.getTime() <= now.getTime() && now.getTime() < r.ends_at.getTime(),
  };
}

export interface ActiveSilence {
  id: string;
  source_type: string | null;
  source_id: string | null;
  notification_kind: string | null;
  ends_at: Date;
}

/** The organization's silences active at `now`, latest-ending first (the one a new incident records). */
export async function activeSilences(q: Queryable, orgId: string, now: Date): Promise<ActiveSilence[]> {
  const { rows } = await q.query<ActiveSilence>(
    `SELECT id, source_type, source_id, notification_kind, ends_at FROM silences
     WHERE org_id = $1 AND starts_at <= $2 AND ends_at > $2 ORDER BY ends_at DESC, id`,
    [orgId, now],
  );
  return rows;
}

/**
 * The silence a new incident of this key records (the first of `silences` that matches), or
 * null. A null matcher matches anything; the release pass's SQL applies the same rule.
 */
export function matchSilence(silences: ActiveSilence[], key: { sourceType: string; sourceId: string; notificationKind: string }): string | null {
  const hit = silences.find(
    (s) =>
      (s.source_type === null || s.source_type === key.sourceType) &&
      (s.source_id === null || s.source_id === key.sourceId) &&
      (s.notification_kind === null || s.notification_kind === key.notificationKind),
  );
  return hit?.id ?? null;
}

export async function createSilence(
  ctx: Ctx,
  orgId: string,
  input: { matchers: SilenceMatchers; startsAt?: Date; endsAt: Date; comment?: string | null },
): Promise<SilenceJson> {
  const now = ctx.clock.now();
  const startsAt = input.startsAt ?? now;
  if (input.endsAt.getTime() <= startsAt.getTime()) throw invalidInput('endsAt must be after startsAt');
  if (input.endsAt.getTime() <= now.getTime()) throw invalidInput('endsAt must be in the future');
  await requireOrg(ctx.db, orgId);
  const id = newId('sil', now);
  auditTarget(id);
  const { rows } = await ctx.db.query<SilenceRow>(
    `INSERT INTO silences (id, org_id, source_type, source_id, notification_kind, starts_at, ends_at, comment, created_at)
     VALUES ($1, $2, $3, $4, $5, $6, $7, $8, $9) RETURNING *`,
    [
      id, orgId, input.matchers.sourceType ?? null, input.matchers.sourceId ?? null,
      input.matchers.notificationKind ?? null, startsAt, input.endsAt, input.comment ?? null, now,
    ],
  );
  return toJson(rows[0]!, now);
}

export async function listSilences(ctx: Ctx, orgId: string): Promise<SilenceJson[]> {
  const now = ctx.clock.now();
  await requireOrg(ctx.db, orgId);
  const { rows } = await ctx.db.query<SilenceRow>(
    'SELECT * FROM silences WHERE org_id = $1 ORDER BY created_at DESC, id DESC',
    [orgId],
  );
  return rows.map((r) => toJson(r, now));
}

/**
 * Ends a silence now (DELETE). The incidents it held are released in the same transaction,
 * so their `alert.opened` is emitted at once rather than on the next background pass.
 */
export async function endSilence(ctx: Ctx, orgId: string, silenceId: string): Promise<void> {
  const now = ctx.clock.now();
  await requireOrg(ctx.db, orgId);
  await txWithRetry(ctx.db, async (q) => {
    const { rows } = await q.query<SilenceRow>(
      `UPDATE silences SET ends_at = LEAST(ends_at, $3), starts_at = LEAST(starts_at, $3)
       WHERE id = $1 AND org_id = $2 RETURNING *`,
      [silenceId, orgId, now],
    );
    if (!rows[0]) throw notFoundError('silence');
    await releaseOrg(q, ctx.config.baseUrl, orgId, now);
  });
}
