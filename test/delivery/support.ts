/**
 * Helpers of the delivery tests: an organization row and alert events produced the way the
 * alert engine produces them (recordEvent in a transaction, so fan-out runs for real).
 */
import type { AppContext } from '../../src/context.js';
import { newId } from '../../src/ids.js';
import { recordEvent, type AlertEventName, type RecordedEvent } from '../../src/alerts/events.js';
import type { AlertSnapshot } from '../../src/alerts/snapshot.js';
import { waitFor } from '../helpers/wait.js';

export async function insertOrg(ctx: AppContext, name = 'Acme'): Promise<string> {
  const id = newId('org');
  const now = ctx.clock.now();
  await ctx.db.query('INSERT INTO orgs (id, name, escalation_minutes, created_at, updated_at) VALUES ($1, $2, NULL, $3, $3)', [id, name, now]);
  return id;
}

export async function insertAlert(ctx: AppContext, orgId: string, over: Partial<{ severity: string; sourceType: string }> = {}): Promise<string> {
  const id = newId('alt');
  const now = ctx.clock.now();
  await ctx.db.query(
    `INSERT INTO alerts (id, org_id, source_type, source_id, source_name, notification_kind, severity, title, message, status,
                         created_at, last_occurrence_at, updated_at)
     VALUES ($1, $2, $3, $4, 'Gateway One', 'GatewayOffline', $5, 'Gateway offline', 'The gateway stopped answering', 'open', $6, $6, $6)`,
    [id, orgId, over.sourceType ?? 'Gateway', `src-${id}`, over.severity ?? 'error', now],
  );
  return id;
}

export function snapshotFor(ctx: AppContext, alertId: string, over: Partial<AlertSnapshot> = {}): AlertSnapshot {
  return {
    id: alertId,
    title: 'Gateway offline',
    message: 'The gateway stopped answering — “ação” ✓',
    sourceType: 'Gateway',
    sourceId: `src-${alertId}`,
    workspaceName: 'Finance',
    capacityName: null,
    severity: 'error',
    status: 'open',
    acknowledged: false,
    openedAt: ctx.clock.now().toISOString(),
    resolvedAt: null,
    failureCount: 1,
    url: `${ctx.config.baseUrl}/alerts/${alertId}`,
    ...over,
  };
}

/** Emits one event for an alert (creating the alert when not given). */
export async function emit(
  ctx: AppContext,
  orgId: string,
  event: AlertEventName = 'alert.opened',
  opts: { alertId?: string; snapshot?: Partial<AlertSnapshot> } = {},
): Promise<RecordedEvent> {
  const alertId = opts.alertId ?? (await insertAlert(ctx, orgId, { severity: opts.snapshot?.severity, sourceType: opts.snapshot?.sourceType }));
  const now = ctx.clock.now();
  return ctx.db.tx((q) =>
    recordEvent(q, { orgId, alertId, event, occurredAt: now, snapshot: snapshotFor(ctx, alertId, opts.snapshot), now }),
  );
}

/** Polls until fn returns a truthy value (real time; the clock is not involved). */
export function until<T>(fn: () => Promise<T | undefined | null | false>, timeoutMs = 30_000, what = 'condition'): Promise<T> {
  return waitFor(fn, { timeoutMs, what });
}

/** Emits n alert.opened events (a new incident each) in transactions of `chunk` events. */
export async function emitMany(ctx: AppContext, orgId: string, n: number, chunk = 100): Promise<string[]> {
  const ids: string[] = [];
  for (let done = 0; done < n; done += chunk) {
    const size = Math.min(chunk, n - done);
    await ctx.db.tx(async (q) => {
      for (let i = 0; i < size; i++) {
        const alertId = newId('alt');
        const now = ctx.clock.now();
        await q.query(
          `INSERT INTO alerts (id, org_id, source_type, source_id, source_name, notification_kind, severity, title, message, status,
                               created_at, last_occurrence_at, updated_at)
           VALUES ($1, $2, 'Gateway', $1, 'Gateway', 'GatewayOffline', 'error', 'Gateway offline', 'down', 'open', $3, $3, $3)`,
          [alertId, orgId, now],
        );
        await recordEvent(q, { orgId, alertId, event: 'alert.opened', occurredAt: now, snapshot: snapshotFor(ctx, alertId), now });
        ids.push(alertId);
      }
    });
  }
  return ids;
}
