/**
 * The changes an event's payload names (docs/monitoring.md "What changed before it broke"): for
 * each incident, its attached changes (alert_changes) as activity, object and time — never the
 * actor, whose column is not even read here. Added to the snapshot when the event is recorded,
 * so the delivery body carries them (outbox/body.ts copies exactly these fields).
 */
import type { Queryable } from '../db/index.js';
import type { AlertChangeRef } from '../outbox/index.js';

interface RefRow {
  alert_id: string;
  activity: string;
  object_kind: string;
  object_id: string | null;
  object_name: string | null;
  occurred_at: Date;
}

/** The inputs, each snapshot with `changes` when its incident has attached changes (most likely first). */
export async function withChangeRefs<T extends { alertId: string; snapshot: { changes?: AlertChangeRef[] } }>(q: Queryable, inputs: T[]): Promise<T[]> {
  if (inputs.length === 0) return inputs;
  const { rows } = await q.query<RefRow>(
    `SELECT j.alert_id, c.activity, c.object_kind, c.object_id, c.object_name, c.occurred_at
       FROM alert_changes j JOIN tenant_changes c ON c.tenant_ref = j.tenant_ref AND c.record_id = j.record_id AND c.org_id = j.org_id
      WHERE j.alert_id = ANY($1::text[])
      ORDER BY j.alert_id, j.rank`,
    [[...new Set(inputs.map((i) => i.alertId))]],
  );
  if (rows.length === 0) return inputs;
  const byAlert = new Map<string, AlertChangeRef[]>();
  for (const r of rows) {
    const list = byAlert.get(r.alert_id) ?? [];
    list.push({ activity: r.activity, object: { kind: r.object_kind, id: r.object_id, name: r.object_name }, occurredAt: r.occurred_at.toISOString() });
    byAlert.set(r.alert_id, list);
  }
  return inputs.map((i) => {
    const changes = byAlert.get(i.alertId);
    return changes ? { ...i, snapshot: { ...i.snapshot, changes } } : i;
  });
}
