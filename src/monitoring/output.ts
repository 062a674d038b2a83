/**
 * Where collected facts go: signals into the alert lifecycle and the collector's remembered
 * state, written in ONE transaction. A run that dies before the commit wrote nothing and the
 * next run sees the same transitions again; a run that committed never signals them twice.
 */
import type { AppContext } from '../context.js';
import type { Queryable } from '../db/index.js';
import { applySignalsIn as applyLifecycleSignals, type SignalOutcome } from '../alerts/lifecycle.js';
import { txWithRetry } from '../alerts/retry.js';
import { validateSignal, type SignalInput } from '../alerts/signals.js';

export interface StateChange {
  key: string;
  /** null deletes the remembered state of the key. */
  value: unknown | null;
}

type Ctx = Pick<AppContext, 'db' | 'clock' | 'config'>;

/** Validates the collector's signals and applies them inside the caller's transaction (the lifecycle's batch). */
export async function applySignalsIn(q: Queryable, ctx: Ctx, orgId: string, inputs: SignalInput[], now: Date): Promise<SignalOutcome[]> {
  const signals = inputs.map((s, i) => validateSignal(s, `signals[${i}]`, now));
  return applyLifecycleSignals(q, ctx, orgId, signals, now);
}

export async function writeState(q: Queryable, tenantRef: string, collector: string, changes: StateChange[], now: Date): Promise<void> {
  const upserts = changes.filter((c) => c.value !== null);
  const deletes = changes.filter((c) => c.value === null).map((c) => c.key);
  if (upserts.length > 0) {
    await q.query(
      `INSERT INTO collector_state (tenant_ref, collector, key, value, updated_at)
       SELECT $1, $2, k, v::jsonb, $5 FROM unnest($3::text[], $4::text[]) AS u(k, v)
       ON CONFLICT (tenant_ref, collector, key) DO UPDATE SET value = EXCLUDED.value, updated_at = EXCLUDED.updated_at`,
      [tenantRef, collector, upserts.map((c) => c.key), upserts.map((c) => JSON.stringify(c.value)), now],
    );
  }
  if (deletes.length > 0) {
    await q.query('DELETE FROM collector_state WHERE tenant_ref = $1 AND collector = $2 AND key = ANY($3::text[])', [tenantRef, collector, deletes]);
  }
}

export async function readState<T>(q: Queryable, tenantRef: string, collector: string): Promise<Map<string, T>> {
  const { rows } = await q.query<{ key: string; value: T }>('SELECT key, value FROM collector_state WHERE tenant_ref = $1 AND collector = $2', [tenantRef, collector]);
  return new Map(rows.map((r) => [r.key, r.value]));
}

/** Marks the run's incidents as its tenant's (the admin alert list filters by it). */
async function tagTenant(q: Queryable, orgId: string, tenantRef: string, outcomes: SignalOutcome[]): Promise<void> {
  const ids = outcomes.map((o) => o.alertId).filter((id): id is string => id !== null);
  if (ids.length === 0) return;
  await q.query('UPDATE alerts SET tenant_ref = $1 WHERE org_id = $2 AND id = ANY($3::text[]) AND tenant_ref IS DISTINCT FROM $1', [tenantRef, orgId, ids]);
}

/** Signals and state changes of one run, committed together (all incident keys locked first, in one order). */
export async function commitRun(ctx: Ctx, orgId: string, tenantRef: string, collector: string, signals: SignalInput[], changes: StateChange[]): Promise<SignalOutcome[]> {
  const now = ctx.clock.now();
  return txWithRetry(ctx.db, async (q) => {
    const out = await applySignalsIn(q, ctx, orgId, signals, now);
    await tagTenant(q, orgId, tenantRef, out);
    await writeState(q, tenantRef, collector, changes, now);
    return out;
  });
}
