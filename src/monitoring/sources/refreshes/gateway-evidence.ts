/**
 * Evidence that a gateway is down, found by other collectors. No documented call returns the
 * status of every gateway at once, and on a large tenant each gateway's turn in the gateway
 * collector's rotation is far away; but a scheduled refresh (or a data-source check) that fails
 * with an error of the gateway family (`DM_GWPipeline_Client_GatewayUnreachable` …) on an item
 * bound to gateway G says G is worth checking now. Such a failure marks G hot in
 * `gateway_hot_marks` (shared by every instance) for HOT_MARK_MS and asks the gateway collector
 * to run now (run-now.ts), so G is checked within a minute of the first failed refresh. This
 * module is the table's only writer, always inside the marking run's commit (after its lease
 * fence); the gateway collector reads it.
 */
import type { FencedTx, FencedWrite, Reader } from '../../engine/reader.js';
import { errorCodeOf, isGatewayErrorCode } from './refresh-errors.js';
import type { RefreshEntry } from './refresh-history.js';
import { askToRunNow } from '../../engine/run-now.js';

/** How long a mark keeps a gateway hot: a few runs of the gateway collector at its default interval. */
export const HOT_MARK_MS = 15 * 60_000;

export interface GatewayEvidence {
  gatewayIds: readonly string[];
  /** When the failure happened: the same failure seen again neither renews the mark nor asks for another run. */
  at: Date;
  /** What was seen, e.g. "refresh of model 1234…: DM_GWPipeline_Client_GatewayUnreachable". */
  reason: string;
}

const GUID = /[0-9a-f]{8}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{12}/gi;

/**
 * Marks the gateways hot and, when a mark is new or renewed by newer evidence, asks the tenant's
 * gateway collector to run now. Marks of gateways the collector does not list are harmless: it
 * only looks up the gateways it watches.
 */
export async function markGatewaysHot(q: FencedTx, tenantRef: string, evidence: GatewayEvidence[], now: Date): Promise<string[]> {
  const marked: string[] = [];
  for (const e of evidence) {
    const ids = [...new Set(e.gatewayIds.map((g) => g.toLowerCase()))];
    if (ids.length === 0) continue;
    const { rows } = await q.query<{ gateway_id: string }>(
      `INSERT INTO gateway_hot_marks (tenant_ref, gateway_id, evidence_at, marked_at, expires_at, reason)
       SELECT $1, g, $3, $4, $5, $6 FROM unnest($2::text[]) AS u(g)
       ON CONFLICT (tenant_ref, gateway_id) DO UPDATE SET evidence_at = EXCLUDED.evidence_at, marked_at = EXCLUDED.marked_at,
         expires_at = EXCLUDED.expires_at, reason = EXCLUDED.reason
       WHERE gateway_hot_marks.evidence_at < EXCLUDED.evidence_at
       RETURNING gateway_id`,
      [tenantRef, ids, e.at, now, new Date(now.getTime() + HOT_MARK_MS), e.reason.slice(0, 300)],
    );
    marked.push(...rows.map((r) => r.gateway_id));
  }
  if (marked.length > 0) {
    await q.query('DELETE FROM gateway_hot_marks WHERE tenant_ref = $1 AND expires_at <= $2', [tenantRef, now]);
    await askToRunNow(q, tenantRef, 'gateway', now);
  }
  return marked;
}

/** The tenant's gateways marked hot at `now`, with when each was marked. */
export async function hotMarks(q: Reader, tenantRef: string, now: Date): Promise<Map<string, Date>> {
  const { rows } = await q.query<{ gateway_id: string; marked_at: Date }>('SELECT gateway_id, marked_at FROM gateway_hot_marks WHERE tenant_ref = $1 AND expires_at > $2', [
    tenantRef,
    now,
  ]);
  return new Map(rows.map((r) => [r.gateway_id, new Date(r.marked_at)]));
}

/** One model's refreshes as the refreshes collector read them, with the gateways its data sources go through. */
export interface RefreshesSeen {
  modelId: string;
  history: readonly RefreshEntry[];
  gatewayIds: readonly string[] | undefined;
}

/** The marks as a write for the run's commit (CollectorRun.write): none when the run lost its lease. */
export function hotMarksWrite(tenantRef: string, evidence: GatewayEvidence[], now: Date): FencedWrite {
  return async (q) => {
    await markGatewaysHot(q, tenantRef, evidence, now);
  };
}

/**
 * The refreshes collector's hook: failures of the gateway family that finished within the
 * mark's lifetime mark the model's gateways (and any gateway id the error itself names) hot.
 */
export function refreshFailureEvidence(seen: Iterable<RefreshesSeen>, now: Date): GatewayEvidence[] {
  const evidence: GatewayEvidence[] = [];
  for (const s of seen) {
    for (const r of s.history) {
      if (r.status !== 'Failed') continue;
      const code = errorCodeOf(r.serviceExceptionJson);
      if (!isGatewayErrorCode(code)) continue;
      const at = new Date(Date.parse(r.endTime ?? r.startTime));
      if (!Number.isFinite(at.getTime()) || now.getTime() - at.getTime() > HOT_MARK_MS) continue;
      const named = (r.serviceExceptionJson ?? '').match(GUID) ?? [];
      // The failure's own time is its identity (a clock ahead of ours does not make it new again).
      evidence.push({ gatewayIds: [...(s.gatewayIds ?? []), ...named], at, reason: `refresh of semantic model ${s.modelId}: ${code}` });
    }
  }
  return evidence;
}
