/**
 * The changes joined to an incident, as its admin API view and the console's alert page show
 * them ("o que mudou antes" / "what changed before"): ranked, with the path and how long before
 * the incident each happened, and the incident's one sentence from the most likely. The actor
 * (a UPN) only when the caller's role may see it (docs/access.md); payloads that leave Vigia
 * never read this.
 */
import type { Queryable } from '../../db/index.js';
import type { Texts } from '../../orgs/language.js';
import type { ChangeHeadRow, ChangeObjectKind } from './store.js';
import { likelyChangeSentence } from './sentence.js';

export interface AttachedChangeJson {
  recordId: string;
  activity: string;
  occurredAt: string;
  /** Minutes between the change and the incident's opening. */
  minutesBefore: number;
  object: { kind: ChangeObjectKind; id: string | null; type: string | null; name: string | null };
  /** How the change reaches the incident's object (docs/monitoring.md, the ranking). */
  path: string;
  rank: number;
  score: number;
  isSuccess: boolean | null;
  /** The actor's UPN: null unless the caller's role may see it. */
  actor: string | null;
  attachedAt: string;
}

export interface IncidentChanges {
  changes: AttachedChangeJson[];
  /** The sentence naming the most likely change, or null when none is attached. */
  likelyChange: Texts | null;
}

interface Row extends ChangeHeadRow {
  path: string;
  rank: number;
  score: number;
  attached_at: Date;
  source_type: string;
  created_at: Date;
}

/** The incident's attached changes, best first; `withActor` for roles that may see who made them. */
export async function incidentChanges(q: Queryable, orgId: string, alertId: string, withActor: boolean): Promise<IncidentChanges> {
  const { rows } = await q.query<Row>(
    `SELECT c.record_id, c.activity, c.occurred_at, c.object_kind, c.object_id, c.object_type, c.object_name, j.path, j.rank, j.score,
            c.is_success, ${withActor ? 'c.actor_upn' : 'NULL::text AS actor_upn'}, j.attached_at, a.source_type, a.created_at
       FROM alert_changes j
       JOIN tenant_changes c ON c.tenant_ref = j.tenant_ref AND c.record_id = j.record_id AND c.org_id = j.org_id
       JOIN alerts a ON a.id = j.alert_id AND a.org_id = j.org_id
      WHERE j.org_id = $1 AND j.alert_id = $2
      ORDER BY j.rank`,
    [orgId, alertId],
  );
  const changes = rows.map((r) => ({
    recordId: r.record_id,
    activity: r.activity,
    occurredAt: r.occurred_at.toISOString(),
    minutesBefore: Math.round((r.created_at.getTime() - r.occurred_at.getTime()) / 60_000),
    object: { kind: r.object_kind, id: r.object_id, type: r.object_type, name: r.object_name },
    path: r.path,
    rank: r.rank,
    score: Math.round(r.score * 1000) / 1000,
    isSuccess: r.is_success,
    actor: withActor ? r.actor_upn : null,
    attachedAt: r.attached_at.toISOString(),
  }));
  const top = rows[0];
  return { changes, likelyChange: top ? likelyChangeSentence(top.source_type, top.activity, changes[0]!.minutesBefore) : null };
}
