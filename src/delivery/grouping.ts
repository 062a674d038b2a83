/**
 * Grouped openings (docs/notifications.md, "No floods"), for the kinds whose rules say
 * `groupsOpenings` — connectors (teams, slack) and deliverers (email) alike: per destination,
 * incidents that open within its `groupWaitSeconds` and share a tenant — or, for incidents
 * without one, a root cause — go out as ONE message, as Alertmanager's group_wait does. An
 * opening the kind keeps apart (`keepsOpeningApart`: e-mail's `info` digest) is never grouped.
 *
 * - Fan-out (assignGroups): the first opening of a key at a destination leads a new group, due
 *   `groupWaitSeconds` later; each later opening of that key joins it while it is still
 *   gathering (pending, never tried, not yet due) and takes its due time. Incidents that came
 *   through the signals API (no tenant, no cause) share the organization's key.
 * - Two transactions opening the first incidents of one key at once: each takes the key's lock at
 *   that destination before it looks for the gathering group (lockDestinationKeys), so the second
 *   waits, then sees the first one's committed leader and joins it — never two groups.
 * - Claim: a member is never claimed while its leader is pending (outbox claim).
 * - Attempt (gatherGroup): the leader's attempt leases the group's pending members and sends
 *   one message with all of them; each member's delivery then gets the leader's outcome (its own
 *   attempt log row, retries, history). A member whose leader has ended (a lost race, a
 *   redelivery, a recovery) is claimed on its own and gathers what is left of its group.
 */
import type { Queryable } from '../db/index.js';
import { lockDestinationKeys, type PlannedDelivery } from '../outbox/index.js';
import { getConnector } from './connectors/index.js';
import type { KindRules } from './connectors/types.js';
import { getDeliverer } from './deliverers.js';
import { groupWaitSeconds } from './group-wait.js';
import type { DestinationRow } from './destinations.js';

/** Members one attempt carries at most (the rest gather again behind the next attempt). */
export const MAX_GROUP_MEMBERS = 2000;

export interface GroupCandidate {
  planned: PlannedDelivery;
  alertId: string;
  /** The opening incident's severity (a kind may keep some apart). */
  severity: string;
  destination: DestinationRow;
}

function rulesOf(kind: string): KindRules | undefined {
  return getConnector(kind) ?? getDeliverer(kind);
}

/** The kind sends a group of openings as one message (its leader's attempt carries the members). */
export function groupsOpenings(kind: string): boolean {
  return rulesOf(kind)?.groupsOpenings === true;
}

/** How long this opening waits for others at the destination; 0 when it goes out on its own. */
export function groupsAt(d: Pick<DestinationRow, 'kind' | 'config'>, opening: { severity: string }): number {
  const rules = rulesOf(d.kind);
  if (!rules?.groupsOpenings || rules.keepsOpeningApart?.(d.config, opening)) return 0;
  return groupWaitSeconds(d.config);
}

async function groupKeys(q: Queryable, orgId: string, alertIds: string[]): Promise<Map<string, string>> {
  const { rows } = await q.query<{ id: string; tenant_ref: string | null; cause: string | null }>(
    'SELECT id, tenant_ref, cause_alert_ids[1] AS cause FROM alerts WHERE org_id = $1 AND id = ANY($2::text[])',
    [orgId, alertIds],
  );
  return new Map(rows.map((r) => [r.id, r.tenant_ref ? `tenant:${r.tenant_ref}` : r.cause ? `cause:${r.cause}` : 'org']));
}

async function gatheringGroups(q: Queryable, orgId: string, destinations: string[], keys: string[], now: Date) {
  const { rows } = await q.query<{ destination_id: string; group_key: string; id: string; next_attempt_at: Date }>(
    `SELECT DISTINCT ON (destination_id, group_key) destination_id, group_key, id, next_attempt_at
       FROM deliveries
      WHERE org_id = $1 AND destination_id = ANY($2::text[]) AND group_key = ANY($3::text[])
        AND status = 'pending' AND group_id = id AND attempts = 0 AND next_attempt_at > $4
      ORDER BY destination_id, group_key, next_attempt_at`,
    [orgId, destinations, keys, now],
  );
  return new Map(rows.map((r) => [`${r.destination_id}|${r.group_key}`, { id: r.id, dueAt: new Date(r.next_attempt_at) }]));
}

/**
 * Gives each pending opening at a grouping destination its group: joins the group gathering for
 * its key there (written earlier, or planned earlier in this same call) or leads a new one.
 * Changes the planned deliveries in place.
 */
export async function assignGroups(q: Queryable, orgId: string, candidates: GroupCandidate[], now: Date): Promise<void> {
  const eligible = candidates.filter((c) => c.planned.status === 'pending' && groupsAt(c.destination, c) > 0);
  if (eligible.length === 0) return;
  const keys = await groupKeys(q, orgId, [...new Set(eligible.map((c) => c.alertId))]);
  const keyOf = (c: GroupCandidate) => keys.get(c.alertId) ?? 'org';
  // Its own statement, before the read: a statement's snapshot is taken before it could wait.
  // The incident locks' key space (src/outbox/incident-lock.ts); `group <key>` is never an alert id.
  await lockDestinationKeys(q, eligible.map((c) => ({ destinationId: c.destination.id, key: `group ${keyOf(c)}` })));
  const open = await gatheringGroups(q, orgId, [...new Set(eligible.map((c) => c.destination.id))], [...new Set(eligible.map(keyOf))], now);
  for (const c of eligible) {
    const key = keyOf(c);
    const slot = `${c.destination.id}|${key}`;
    let group = open.get(slot);
    if (!group) {
      group = { id: c.planned.id, dueAt: new Date(now.getTime() + groupsAt(c.destination, c) * 1000) };
      open.set(slot, group);
    }
    c.planned.groupKey = key;
    c.planned.groupId = group.id;
    c.planned.dueAt = group.dueAt;
  }
}

export interface GroupMember {
  id: string;
  alert_id: string;
  event: string;
  body: string;
  attempts: number;
  attempt_base: number;
}

/**
 * Leases the pending members of a leader's group to this worker (attempt counted, as a claim
 * does) and returns them, oldest first. Rows leased by another worker are skipped.
 */
export async function gatherGroup(
  q: Pick<Queryable, 'query'>,
  leader: { id: string; destinationId: string; groupId: string },
  o: { now: Date; leaseUntil: Date; workerId: string },
): Promise<GroupMember[]> {
  const { rows } = await q.query<GroupMember>(
    `WITH m AS (
       SELECT id FROM deliveries
        WHERE group_id = $2 AND destination_id = $1 AND id <> $3 AND status = 'pending'
          AND (locked_until IS NULL OR locked_until <= $4)
        ORDER BY created_at, id
        LIMIT ${MAX_GROUP_MEMBERS}
        FOR UPDATE SKIP LOCKED
     )
     UPDATE deliveries d SET attempts = d.attempts + 1, locked_until = $5, locked_by = $6
       FROM m WHERE d.id = m.id
     RETURNING d.id, d.alert_id, d.event, d.body, d.attempts, d.attempt_base`,
    [leader.destinationId, leader.groupId, leader.id, o.now, o.leaseUntil, o.workerId],
  );
  return rows.sort((a, b) => (a.id < b.id ? -1 : a.id > b.id ? 1 : 0));
}
