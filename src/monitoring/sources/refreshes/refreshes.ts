/**
 * refreshes — semantic-model refresh results. A `Failed` refresh opens `Dataset` /
 * `RefreshFailed` (error) with the platform's error code and a Portuguese explanation; every
 * further failed refresh is a reoccurrence; the next `Completed` one recovers it. `Unknown`
 * (running) is not a result yet and `Disabled` is no failure. Each result is counted once,
 * across restarts, from the newest one remembered per model (refresh-history.ts).
 *
 * Member mode reads each model's history (refresh-member.ts), admin mode the refreshables list
 * (refresh-admin.ts). A failure names as its causes the offline gateways its data sources go
 * through and its capacity when not active, so it is correlated to that incident and pages
 * nobody while the cause is open. The lineage (model → workspace → capacity; model → data
 * sources → gateways) is saved for the other collectors and the console.
 */
import type { SignalInput } from '../../../alerts/signals.js';
import { BudgetExhaustedError, HOURLY_CAPS } from '../../platform/budget.js';
import type { Collector } from '../../engine/collector.js';
import { hotMarksWrite, refreshFailureEvidence } from './gateway-evidence.js';
import { itemsBehindGateways, type LineageChanges } from '../../lineage/lineage.js';
import { causesOf, openRootCauses, type OpenRootCauses } from '../../lineage/root-causes.js';
import { progressOf } from '../../engine/rotation.js';
import * as T from '../../messages/titles.js';
import { type AdminRunResult, runAdmin } from './refresh-admin-run.js';
import { DUE_BUCKET_PREFIX, HOT_PREFIX } from './refresh-due.js';
import { explainRefreshError, refreshFailureMessage } from './refresh-errors.js';
import { newResults } from './refresh-history.js';
import { isHotModel, readMember } from './refresh-member.js';
import type { Observation } from './refresh-reads.js';
import { CallBudget, RunBudgetSpent, runBudget } from '../../platform/run-budget.js';
import { BRIEF_FIELDS, MODEL_PREFIX, RefreshMemory, type ModelState, rememberedModels } from './refresh-state.js';

export const REFRESH_FAILED_KIND = 'RefreshFailed';

/**
 * Share of the `powerbi` family's hourly budget this collector plans to use. It is the main
 * Power BI caller (one history read per model); the freshness and data-source collectors and
 * the connection check share the other half.
 */
export const POWERBI_SHARE = 0.5;
export { ADMIN_SHARE, REFRESHABLES_KEY } from './refresh-admin-run.js';

/**
 * The collector; `dueReads` off leaves admin mode to the refreshables pages alone (the collect
 * bench's baseline for the due models' reads, refresh-hot.ts).
 */
export function makeRefreshesCollector(opts: { dueReads: boolean } = { dueReads: true }): Collector {
  return {
    name: 'refreshes',
    // Admin mode reads a few refreshables pages a run: only their models' state is loaded; the due
    // index's buckets and the hot models are read as the run needs them too.
    entityPrefixes: [MODEL_PREFIX, DUE_BUCKET_PREFIX, HOT_PREFIX],
    async run({ ctx, tenant, client, state, entities, reader, write, intervalSeconds: interval, reportProgress, commit }) {
      const now = ctx.clock.now();
      const memory = new RefreshMemory(state);
      // Member mode judges every model each run (rotation, hot models) by its compact row; whole
      // states are read only for the models the run polls, re-places or forgets.
      if (tenant.mode !== 'admin') memory.loadBriefs(await entities.fields(MODEL_PREFIX, BRIEF_FIELDS));
      const observations: Observation[] = [];
      const observe = (o: Observation) => observations.push(o);
      let hourSpent = false;
      let due: AdminRunResult = { hourSpent: false, changes: [], due: null };
      const powerbi = new CallBudget(runBudget(HOURLY_CAPS.powerbi, POWERBI_SHARE, interval));
      try {
        if (tenant.mode === 'admin') {
          due = await runAdmin({ client, tenant, reader, entities, state, memory, powerbi, intervalSeconds: interval, now, dueReads: opts.dueReads }, observe);
          hourSpent = due.hourSpent;
        } else await readMember(client, tenant, memory, entities, powerbi, now, observe);
      } catch (err) {
        // A spent budget ends the run quietly: what was read is applied, the rest waits for the next run.
        if (!(err instanceof RunBudgetSpent || err instanceof BudgetExhaustedError)) throw err;
        ctx.log.info({ tenant: tenant.id, collector: 'refreshes', err: err.message }, 'refreshes: budget spent; continuing next run');
        hourSpent = err instanceof BudgetExhaustedError;
      }
      const read = new Set(observations.map((o) => o.modelId));
      if (tenant.mode === 'admin') {
        // The refreshables list is paced by design; only a spent hourly budget (or a 429 that lowered it) leaves listed models unread.
        reportProgress({ polled: read.size, deferred: hourSpent ? Math.max(0, (await entities.count(MODEL_PREFIX)) - read.size) : 0 });
      } else {
        reportProgress(progressOf(memory.known(), ([, m]) => isHotModel(m, now), ([id]) => read.has(id)));
      }
      ctx.log.debug({ tenant: tenant.id, collector: 'refreshes', mode: tenant.mode, read: read.size, statesRead: memory.statesRead, dueReads: due.due?.reads ?? 0, hot: due.due?.hot ?? 0 }, 'refreshes: run read');

      const roots = await openRootCauses(reader, tenant.org_id);
      // The gateways each model reads through, as far as an open gateway incident matters: what this
      // collector read, and what the lineage holds (the scanner's, when this principal cannot read them).
      const behind = await itemsBehindGateways(reader, tenant.id, roots.gateways);
      const gatewaysOf = (id: string) => [...new Set([...(memory.models.get(id)?.meta?.gatewayIds ?? []), ...(behind.get(id) ?? [])])];
      const signals: SignalInput[] = [];
      for (const o of observations) {
        const prev = memory.models.get(o.modelId);
        if (!prev) continue;
        const { next, signals: out } = applyResults(o.modelId, prev, o, roots, gatewaysOf(o.modelId), now);
        memory.update(o.modelId, next);
        signals.push(...out);
      }
      for (const [id, prev] of memory.forgotten) signals.push(...goneSignals(id, prev, now));

      // Evidence for the gateway collector: a failure of the gateway family checks its gateways now.
      const evidence = refreshFailureEvidence(observations.map((o) => ({ ...o, gatewayIds: gatewaysOf(o.modelId) })), now);
      if (evidence.length > 0) write(hotMarksWrite(tenant.id, evidence, now));
      await commit(signals, [...memory.changes(), ...due.changes], lineageOf(memory));
    },
    releaseOnly: [{ prefix: MODEL_PREFIX, flag: 'failing' }],
    releaseAll(state, now) {
      return rememberedModels(state).flatMap(([id, m]) => goneSignals(id, m, now));
    },
  };
}

export const refreshesCollector: Collector = makeRefreshesCollector();

/** The new results of one model become signals, oldest first; the model's cursor moves past them. */
function applyResults(id: string, prev: ModelState, o: Observation, roots: OpenRootCauses, gatewayIds: string[], now: Date): { next: ModelState; signals: SignalInput[] } {
  const { results, next: cursor } = newResults(o.history, prev.polled ? { last: prev.last, running: prev.running } : undefined);
  const base = {
    sourceType: 'Dataset',
    sourceId: id,
    sourceName: prev.name,
    notificationKind: REFRESH_FAILED_KIND,
    severity: 'error' as const,
    workspaceName: o.workspaceName,
    capacityName: o.capacityName,
    occurredAt: now,
  };
  const signals: SignalInput[] = [];
  let failing = prev.failing;
  for (const r of results) {
    if (r.status === 'Failed') {
      const err = explainRefreshError(r.serviceExceptionJson);
      signals.push({
        ...base,
        kind: 'failure',
        title: T.refreshFailedTitle(prev.name, err.code),
        message: refreshFailureMessage(prev.name, o.workspaceName, err),
        causes: causesOf(roots, { gatewayIds, capacityId: prev.capacityId }),
      });
      failing = true;
    } else if (r.status === 'Completed' && failing) {
      signals.push({ ...base, kind: 'recovery', ...T.refreshSucceeded(prev.name) });
      failing = false;
    }
  }
  const newest = o.history[0]?.startTime ?? null;
  const lastSeenAt = newest && (!prev.lastSeenAt || newest > prev.lastSeenAt) ? newest : prev.lastSeenAt;
  return { next: { ...prev, ...cursor, polled: true, failing, lastSeenAt }, signals };
}

/** A model no longer watched: its incident, if it had one, recovers. */
function goneSignals(id: string, prev: ModelState, now: Date): SignalInput[] {
  if (!prev.failing) return [];
  return [
    {
      sourceType: 'Dataset', sourceId: id, sourceName: prev.name, notificationKind: REFRESH_FAILED_KIND, severity: 'error', occurredAt: now,
      kind: 'recovery', ...T.semanticModelGone(prev.name),
    },
  ];
}

/** The lineage this run read, committed with its signals (placements, data sources, what is gone). */
function lineageOf(memory: RefreshMemory): LineageChanges {
  const placements = [...memory.placed].map((id) => {
    const m = memory.models.get(id)!;
    return { itemId: id, itemType: 'SemanticModel', itemName: m.name, workspaceId: m.workspaceId, capacityId: m.capacityId };
  });
  // A refused read leaves the lineage as it was (the scanner's, when it described the model).
  const datasources = [...memory.metaRead].flatMap((id) => {
    const meta = memory.models.get(id)?.meta;
    return meta && !meta.refused ? [{ itemId: id, gatewayIds: meta.gatewayIds, datasourceIds: meta.datasourceIds }] : [];
  });
  return { placements, datasources, forget: [...memory.forgotten.keys()] };
}
