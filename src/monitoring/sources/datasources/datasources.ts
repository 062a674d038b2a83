/**
 * datasources — Power BI gateway data sources and Fabric connections (datasource-checks.ts). A
 * data source whose check fails opens a `Connector` incident: `ConnectorAuthFailed` when the
 * platform's error code says the stored credentials no longer work, `ConnectorUnreachable`
 * otherwise (error), each with the platform's error code in its message. The incident recovers
 * when the check passes, and resolves when the data source disappears. A data source behind a
 * gateway with an open GatewayOffline incident names that gateway as its cause, so only the
 * gateway pages people (the lifecycle releases it if it outlives the gateway's incident). When
 * a check says only that the gateway did not answer and the gateway collector has not opened the
 * gateway's incident yet, the verdict waits one run, so the two collectors' order does not matter.
 *
 * Every check costs calls, so the checks rotate (rotation.ts): data sources failing now and
 * those an item with a recent failure reads through are checked every run; the rest take turns
 * within `SHARE` of the hourly cap — one paced CallBudget (run-budget.ts) that also pays for the
 * listing (the gateways, each gateway's data sources, the connections): a listing longer than a
 * run's share is paid back by the next runs' checks, and a tenant whose listing is long is
 * re-listed less often (at most half the share goes to listings), so the hour stays inside it.
 */
import type { SignalInput } from '../../../alerts/signals.js';
import { HOURLY_CAPS } from '../../platform/budget.js';
import type { Collector } from '../../engine/collector.js';
import type { Reader } from '../../engine/reader.js';
import { type GatewayEvidence, hotMarksWrite } from '../refreshes/gateway-evidence.js';
import type { StateChange } from '../../engine/output.js';
import { causesOf, openRootCauses, type OpenRootCauses } from '../../lineage/root-causes.js';
import { pickForRun, progressOf, ROTATION_KEY, type RotationPick, type RotationState } from '../../engine/rotation.js';
import { type CallBudget, LISTING_REFRESH_MS, PacedBudget, type PaceState } from '../../platform/run-budget.js';
import { inPool } from '../../platform/pool.js';
import * as T from '../../messages/titles.js';
import {
  CHECK_COST,
  type CheckFailure,
  type CheckResult,
  checkDatasource,
  type FailureKind,
  listDatasources,
  saysGatewayIsDown,
  type WatchedDatasource,
} from './datasource-checks.js';

/** Share of the Power BI (and Fabric) hourly cap the status checks may spend; the rest is for the other collectors. */
export const DATASOURCES_SHARE = 0.1;
/** A failure of an item this recent makes the data sources it reads through hot. */
const RECENT_FAILURE_MS = 24 * 3_600_000;
const KEY_PREFIX = 'ds:';
/** The data sources as last listed (re-listed after LISTING_REFRESH_MS). */
const LISTING_KEY = 'listing';
/** The run budget's carried credit (PacedBudget). */
const PACE_KEY = 'pace';

interface DatasourceListing {
  listedAt: string;
  datasources: WatchedDatasource[];
  /** Calls the listing took. */
  cost?: number;
}

/**
 * A listing is read again after LISTING_REFRESH_MS, or — when it is long (one call per gateway) —
 * after the time its calls take at half the collector's hourly share, so listings never take
 * more than half of it and the checks keep the rest.
 */
function listingDue(listing: DatasourceListing | undefined, perHour: number, now: Date): boolean {
  if (!listing) return true;
  const at = Date.parse(listing.listedAt);
  const wait = Math.max(LISTING_REFRESH_MS, ((listing.cost ?? 0) / (perHour / 2)) * 3_600_000);
  return !Number.isFinite(at) || now.getTime() < at || now.getTime() - at >= wait;
}
/** Source types of the workload failures a data source may be behind. */
const WORKLOAD_SOURCES = ['Dataset', 'FabricJob', 'DataFreshness'];

interface RememberedDatasource {
  name: string;
  gatewayId: string | null;
  failure: CheckFailure | null;
  /**
   * The last check said only that the gateway did not answer, and the gateway collector had not
   * (yet) opened the gateway's incident: the verdict waits one run for it, so that the data
   * source is correlated to the gateway instead of paging first.
   */
  waitsForGateway?: boolean;
}

/** Whether the tenant's gateway collector runs (it is who opens GatewayOffline). */
async function gatewaysWatched(q: Reader, tenantRef: string): Promise<boolean> {
  const { rows } = await q.query<{ enabled: boolean }>("SELECT enabled FROM collector_schedules WHERE tenant_ref = $1 AND collector = 'gateway'", [tenantRef]);
  return rows[0]?.enabled === true;
}

/** Data sources read by an item of this tenant with an open workload failure, or one seen in the last day. */
async function usedByRecentFailures(q: Reader, tenantRef: string, orgId: string, since: Date): Promise<Set<string>> {
  const { rows } = await q.query<{ id: string }>(
    `SELECT DISTINCT d.id FROM monitored_lineage l
       CROSS JOIN LATERAL unnest(l.datasource_ids) AS d(id)
      WHERE l.tenant_ref = $1 AND EXISTS (
        SELECT 1 FROM alerts a WHERE a.org_id = $2 AND a.source_type = ANY($3::text[]) AND lower(a.source_id) = l.item_id
           AND (a.status = 'open' OR a.last_occurrence_at > $4))`,
    [tenantRef, orgId, WORKLOAD_SOURCES, since],
  );
  return new Set(rows.map((r) => r.id));
}

/**
 * The rotation's pick that fits the budget in calls: a connection test costs more than a
 * gateway status, so the number of checks shrinks until their cost fits (pickForRun is pure).
 */
function pickWithinCalls(items: WatchedDatasource[], calls: CallBudget, isHot: (d: WatchedDatasource) => boolean, state: RotationState | undefined, now: Date): RotationPick<WatchedDatasource> {
  const budget = calls.left;
  let checks = budget;
  if (budget <= 0) return pickForRun(items, { key: (d) => d.id, isHot, budget: 0, state, now });
  for (;;) {
    const pick = pickForRun(items, { key: (d) => d.id, isHot, budget: checks, state, now });
    const cost = pick.poll.reduce((n, d) => n + CHECK_COST[d.check], 0);
    if (cost <= budget || checks <= 1) {
      calls.charge(cost);
      return pick;
    }
    checks = Math.max(1, checks - Math.ceil((cost - budget) / Math.max(...Object.values(CHECK_COST))));
  }
}

export const datasourcesCollector: Collector = {
  name: 'datasources',
  async run({ ctx, tenant, client, state, reader, write, commit, intervalSeconds, reportProgress }) {
    const now = ctx.clock.now();
    // The run's budget covers every call: the listing when it is due (gateways, one call per
    // gateway, connections), the checks with the rest. Between listings the cached one is used.
    const perHour = Math.min(HOURLY_CAPS.powerbi, HOURLY_CAPS.fabric) * DATASOURCES_SHARE;
    const budget = new PacedBudget(perHour, intervalSeconds, state.get(PACE_KEY) as PaceState | undefined, now);
    const cached = state.get(LISTING_KEY) as DatasourceListing | undefined;
    let datasources = cached?.datasources ?? [];
    // A due listing waits for a run with credit (a debt is paid back first), except the first one.
    const relisted = listingDue(cached, perHour, now) && (!cached || budget.left > 0);
    let listingCost = cached?.cost ?? 0;
    if (relisted) {
      const beforeListing = client.callsMade;
      datasources = await listDatasources(client);
      listingCost = client.callsMade - beforeListing;
      // Calls beyond the run's credit are paid back by the next runs (the budget carries them).
      budget.charge(listingCost);
    }
    const beforeChecks = client.callsMade;
    const [watchingGateways, recent, open] = await Promise.all([
      gatewaysWatched(reader, tenant.id),
      usedByRecentFailures(reader, tenant.id, tenant.org_id, new Date(now.getTime() - RECENT_FAILURE_MS)),
      openRootCauses(reader, tenant.org_id),
    ]);
    const remembered = (id: string) => state.get(KEY_PREFIX + id) as RememberedDatasource | undefined;
    const isHot = (d: WatchedDatasource) => (remembered(d.id)?.failure ?? null) !== null || remembered(d.id)?.waitsForGateway === true || recent.has(d.id);
    const pick = pickWithinCalls(datasources, budget, isHot, state.get(ROTATION_KEY) as RotationState | undefined, now);
    const planned = pick.poll.reduce((n, d) => n + CHECK_COST[d.check], 0);

    // Checks that end in an error saying nothing about the data source stop the run's checks;
    // what was checked is still committed, then the error is reported.
    const results = new Map<string, CheckResult>();
    // An error stops the checks; what was checked before it is still committed below.
    let stopped: unknown = null;
    await inPool(pick.poll, async (d) => {
      results.set(d.id, await checkDatasource(client, d));
    }).catch((err: unknown) => {
      stopped = err;
    });
    // A connection test that polled longer than planned is charged too.
    budget.charge(client.callsMade - beforeChecks - planned);

    const { signals, changes, listed } = judgeAll(datasources, results, state, { open, watchingGateways, now });
    reportProgress(progressOf(datasources, isHot, (d) => results.has(d.id)));
    if (relisted || listed.size !== datasources.length) {
      const listing: DatasourceListing = { listedAt: relisted ? now.toISOString() : cached!.listedAt, datasources: datasources.filter((d) => listed.has(d.id)), cost: listingCost };
      changes.push({ key: LISTING_KEY, value: listing });
    }
    changes.push({ key: PACE_KEY, value: budget.pace() });
    // A run stopped early has not taken its turn: the cursor stays where it was.
    if (stopped === null) changes.push({ key: ROTATION_KEY, value: pick.next });
    // Evidence for the gateway collector: a check saying the gateway does not answer checks that gateway now.
    const evidence = gatewayDownEvidence(pick.poll, results, now);
    if (evidence.length > 0) write(hotMarksWrite(tenant.id, evidence, now));
    await commit(signals, changes);
    if (stopped !== null) throw stopped;
  },
  releaseAll(state, now) {
    return [...state].flatMap(([key, value]) => (key.startsWith(KEY_PREFIX) ? goneSignals(key, value as RememberedDatasource, now) : []));
  },
};

/** The verdicts of a run: the signals of the checks (and of data sources gone) and the remembered state that changes. */
function judgeAll(
  datasources: WatchedDatasource[],
  results: Map<string, CheckResult>,
  state: Map<string, unknown>,
  seen: { open: OpenRootCauses; watchingGateways: boolean; now: Date },
): { signals: SignalInput[]; changes: StateChange[]; listed: Set<string> } {
  const { open, watchingGateways, now } = seen;
  const remembered = (id: string) => state.get(KEY_PREFIX + id) as RememberedDatasource | undefined;
  const signals: SignalInput[] = [];
  const changes: StateChange[] = [];
  const listed = new Set<string>();
  for (const d of datasources) {
    const prev = remembered(d.id);
    const result = results.get(d.id);
    if (result === 'gone') continue;
    listed.add(d.id);
    const was = prev?.failure ?? null;
    // Not checked this run: the last verdict stands.
    let failure = result === undefined ? was : result;
    let waitsForGateway = result === undefined ? prev?.waitsForGateway === true : false;
    if (failure && !was && result !== undefined && saysGatewayIsDown(failure) && d.gatewayId && !open.gateways.has(d.gatewayId) && watchingGateways && !prev?.waitsForGateway) {
      failure = null;
      waitsForGateway = true;
    }
    const base = { sourceType: 'Connector', sourceId: d.id, sourceName: d.name, severity: 'error' as const, occurredAt: now };
    if (was && was.kind !== failure?.kind) signals.push(recovery(base, was.kind, d.name));
    if (failure && failure.kind !== was?.kind) {
      signals.push({
        ...base,
        kind: 'failure',
        notificationKind: failure.kind,
        ...T.dataSourceDown(failure.kind, d.name, d.type, d.gatewayName ?? null, failure.code, failure.detail),
        causes: causesOf(open, { gatewayIds: d.gatewayId ? [d.gatewayId] : [] }),
      });
    }
    const current: RememberedDatasource = { name: d.name, gatewayId: d.gatewayId, failure, ...(waitsForGateway ? { waitsForGateway } : {}) };
    if (!prev || prev.name !== d.name || prev.gatewayId !== d.gatewayId || JSON.stringify(prev.failure) !== JSON.stringify(failure) || (prev.waitsForGateway === true) !== waitsForGateway) {
      changes.push({ key: KEY_PREFIX + d.id, value: current });
    }
  }
  for (const [key, value] of state) {
    if (!key.startsWith(KEY_PREFIX) || listed.has(key.slice(KEY_PREFIX.length))) continue;
    signals.push(...goneSignals(key, value as RememberedDatasource, now));
    changes.push({ key, value: null });
  }
  return { signals, changes, listed };
}

function gatewayDownEvidence(checked: WatchedDatasource[], results: Map<string, CheckResult>, now: Date): GatewayEvidence[] {
  return checked.flatMap((d) => {
    const r = results.get(d.id);
    return r && typeof r === 'object' && saysGatewayIsDown(r) && d.gatewayId ? [{ gatewayIds: [d.gatewayId], at: now, reason: `check of data source ${d.id}: ${r.code}` }] : [];
  });
}

function recovery(base: Omit<SignalInput, 'kind' | 'title' | 'message' | 'notificationKind'>, kind: FailureKind, name: string): SignalInput {
  return { ...base, kind: 'recovery', notificationKind: kind, ...T.dataSourceUp(kind, name) };
}

/** A data source no longer listed: its incident, if it had one, resolves. */
function goneSignals(key: string, prev: RememberedDatasource, now: Date): SignalInput[] {
  if (!prev.failure) return [];
  const sourceId = key.slice(KEY_PREFIX.length);
  return [
    {
      sourceType: 'Connector', sourceId, sourceName: prev.name, severity: 'error', occurredAt: now, kind: 'recovery', notificationKind: prev.failure.kind,
      ...T.dataSourceGone(prev.name),
    },
  ];
}
