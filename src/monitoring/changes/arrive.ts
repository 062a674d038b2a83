/**
 * Where changes read from an activity log land: stored once each (store.ts) and the connection's
 * older ones forgotten, in the `activity` collector's commit (after its lease fence). The records
 * that were new are returned — the place for whatever must follow a change's arrival (the join
 * of late changes to incidents already open, issue 38) to hook in, inside the same transaction.
 */
import type { Queryable } from '../../db/index.js';
import { deleteChangesBefore, insertChanges, type TenantChange } from './store.js';
import { attachLateChanges } from './late.js';

export interface Arrival {
  orgId: string;
  tenantRef: string;
  changes: readonly TenantChange[];
  receivedAt: Date;
  /** Changes that happened before this are forgotten (the connection's changeRetentionDays). */
  keepFrom: Date;
}

/** Stores the arrival's changes and applies the retention; returns the record ids stored now. */
export async function changesArrived(q: Queryable, a: Arrival): Promise<string[]> {
  const fresh = await insertChanges(q, a.orgId, a.tenantRef, a.changes, a.receivedAt);
  await deleteChangesBefore(q, a.tenantRef, a.keepFrom);
  // Late changes join the incidents that opened before they arrived, in this same commit (the
  // minute pass, late.ts, is the fallback for changes stored any other way).
  if (fresh.length > 0) await attachLateChanges(q, a.receivedAt, a.tenantRef);
  return fresh;
}
