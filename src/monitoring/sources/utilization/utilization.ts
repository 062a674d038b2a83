/**
 * utilization — capacity load as incidents. Each run reads the capacity overview events ingested
 * since its cursor from the Eventhouse table named in the connection's `utilization` field
 * (utilization-events.ts), stores the 30-second figures and hourly roll-ups
 * (capacity-history.ts), and judges each capacity's new windows (utilization-verdicts.ts):
 * `CapacityThrottled` (error) and `CapacityHighUtilization` (info) on sourceType `Capacity`.
 * A throttling incident names the items that used the most CU in the half hour before it, from
 * the per-operation events when the table has them, else the workloads of the Summary events.
 *
 * The cursor and each capacity's verdict state are committed with the signals, so a restart
 * neither re-judges nor skips a window. A connection without a source makes no call.
 */
import type { SignalInput } from '../../../alerts/signals.js';
import { storeWindows } from './capacity-history.js';
import type { Collector } from '../../engine/collector.js';
import type { StateChange } from '../../engine/output.js';
import type { Texts } from '../../messages/fixes.js';
import type { PlatformClient } from '../../platform/platform-client.js';
import * as T from '../../messages/titles.js';
import { thresholdsFor, utilizationOf, type EventhouseSource } from '../../connection/utilization-settings.js';
import { settledAzureMonitorSource } from './utilization-azure-monitor.js';
import { metricsAppReleaseSignals, runMetricsApp } from './utilization-metrics-app.js';
import { readCulprits, readNewEvents, type Culprit, type EventCursor, type WindowFigures } from './utilization-events.js';
import { RejectedRows } from './figure-checks.js';
import { REJECTED_KEY, rejectedRelease, rejectedStep, type RejectedMemory } from '../../engine/rejected-rows.js';
import { freshMemory, judgeCapacity, releaseSignals, stageOf, throttledMessage, type CapacityMemory } from './utilization-verdicts.js';

const CURSOR_KEY = 'cursor';
const CAPACITY_PREFIX = 'cap:';
/** The culprits are the heaviest items of this long before the window that throttled. */
export const CULPRIT_SPAN_MS = 30 * 60_000;
const CULPRITS = 5;

function culpritText(culprits: Culprit[]): Texts | null {
  const total = culprits.reduce((n, c) => n + c.cu, 0);
  if (total <= 0) return null;
  return T.heaviestItems(culprits.map((c) => ({ name: c.itemName || c.itemId, kind: c.itemKind, workspace: c.workspaceName || c.workspaceId, share: Math.round((c.cu / total) * 100) })));
}

/** Fallback when the source has no per-operation events: the workloads of the capacity's recent windows. */
function workloadText(windows: WindowFigures[]): Texts | null {
  const sums = new Map<string, number>();
  for (const w of windows) for (const [code, cu] of Object.entries(w.workloads)) sums.set(code, (sums.get(code) ?? 0) + cu);
  const total = [...sums.values()].reduce((a, b) => a + b, 0);
  if (total <= 0) return null;
  const top = [...sums].sort((a, b) => b[1] - a[1]).slice(0, 3);
  return T.heaviestWorkloads(top.map(([code, cu]) => ({ code, share: Math.round((cu / total) * 100) })));
}

async function describeCulprits(client: PlatformClient, source: EventhouseSource, w: WindowFigures, recent: WindowFigures[]): Promise<Texts | null> {
  const end = new Date(w.windowStart.getTime() + 30_000);
  const culprits = await readCulprits(client, source, w.capacityId, new Date(end.getTime() - CULPRIT_SPAN_MS), end, CULPRITS);
  if (culprits.length > 0) return culpritText(culprits);
  return workloadText(recent.filter((r) => r.capacityId === w.capacityId && r.windowStart <= w.windowStart && r.windowStart.getTime() > end.getTime() - CULPRIT_SPAN_MS));
}

export const utilizationCollector: Collector = {
  name: 'utilization',
  async run(run) {
    const { ctx, tenant, client, state, write } = run;
    const settings = utilizationOf(tenant.utilization);
    // Rows any source skipped as unbelievable (figure-checks.ts): the collector's status, and a Tenant incident if it lasts.
    const rejected = new RejectedRows();
    const commit: typeof run.commit = (signals, changes) => {
      const step = rejectedStep(state.get(REJECTED_KEY) as RejectedMemory | undefined, { count: rejected.count, note: rejected.note() }, 'utilization', tenant, ctx.clock.now());
      run.reportProgress({ polled: rejected.read, deferred: 0, rejected: rejected.count, rejectedNote: rejected.note() });
      return run.commit([...signals, ...step.signals], [...changes, ...step.changes]);
    };
    // Azure Monitor metrics of Embedded A SKUs (utilization-azure-monitor.ts), beside the Eventhouse:
    // its failure is the run's error, raised after the other source's progress is committed.
    const azureMonitor = settings.armScopes.length > 0 ? await settledAzureMonitorSource(run, settings, rejected) : null;
    const source = settings.eventhouse;
    if (!source) {
      if (settings.metricsApp) {
        // The Capacity Metrics app's model when there is no event stream (utilization-metrics-app.ts);
        // Azure Monitor's progress is committed with it (one commit per run).
        const withAzure: typeof commit = (signals, changes) => commit([...(azureMonitor?.signals ?? []), ...signals], [...(azureMonitor?.changes ?? []), ...changes]);
        await runMetricsApp({ ctx, tenant, client, state, reader: run.reader, write, commit: withAzure }, settings, settings.metricsApp, rejected);
      } else if (azureMonitor) await commit(azureMonitor.signals, azureMonitor.changes);
      if (azureMonitor?.error) throw azureMonitor.error;
      // No source (or only sources this version does not read): no call, nothing to commit.
      return;
    }
    const now = ctx.clock.now();
    // The cursor is on the platform's clock (the newest ingestion_time() read; utilization-events.ts).
    const cursor = (state.get(CURSOR_KEY) as EventCursor | undefined) ?? null;
    const batch = await readNewEvents(client, source, cursor, now, rejected);
    write((q) => storeWindows(q, tenant.org_id, tenant.id, batch.windows.filter((w) => w.utilizationPct <= 500)));

    const ids = new Set([...batch.windows.map((w) => w.capacityId), ...batch.states.map((s) => s.capacityId)]);
    const signals: SignalInput[] = [];
    const changes: StateChange[] = [{ key: CURSOR_KEY, value: batch.cursor }];
    for (const id of ids) {
      const windows = batch.windows.filter((w) => w.capacityId === id);
      const states = batch.states.filter((s) => s.capacityId === id);
      const name = windows.at(-1)?.capacityName ?? states.at(-1)?.capacityName ?? id;
      const prev = (state.get(CAPACITY_PREFIX + id) as CapacityMemory | undefined) ?? freshMemory(name);
      const judged = judgeCapacity(id, prev, windows, states, thresholdsFor(settings, name));
      // Each throttling signal gets the items behind it.
      for (const s of judged.signals) {
        if (s.kind !== 'failure' || s.notificationKind !== 'CapacityThrottled') continue;
        const w = judged.throttledAt.shift()!;
        s.message = throttledMessage(w, stageOf(w)!, await describeCulprits(client, source, w, batch.windows));
      }
      signals.push(...judged.signals);
      changes.push({ key: CAPACITY_PREFIX + id, value: judged.memory });
    }
    await commit([...signals, ...(azureMonitor?.signals ?? [])], [...changes, ...(azureMonitor?.changes ?? [])]);
    if (azureMonitor?.error) throw azureMonitor.error;
  },
  releaseAll(state, now) {
    return [...state]
      .filter(([k]) => k.startsWith(CAPACITY_PREFIX))
      .flatMap(([k, v]) => releaseSignals(k.slice(CAPACITY_PREFIX.length), v as CapacityMemory, now))
      .concat(metricsAppReleaseSignals(state, now), rejectedRelease(state, 'utilization', now));
  },
};
