/**
 * gateway — Fabric on-premises gateways and their members. Each gateway and each member gets a
 * status check (POST …/checkStatus, possibly long-running): an offline gateway opens a
 * `Gateway` / `GatewayOffline` incident and an offline member a `GatewayMemberOffline` one
 * (error), both with the platform's error details; while the whole gateway is offline a
 * member's incident names the gateway as its cause, so only the gateway pages people (a cause
 * matches any open incident of the source, so it is given only when the gateway is offline). A gateway whose
 * upgrade is required opens `GatewayUpgradeRequired` (info). Everything recovers when the check
 * says so, or when the gateway or member disappears.
 *
 * Scale: every call of a run (listings, checks, long-running polls) comes out of GATEWAY_SHARE of
 * the Fabric hourly cap at the collector's interval. The gateway and member lists are kept in
 * state (gateway-listing.ts). Hot gateways — not fully online (the gateway or a member offline),
 * changed within HOT_AFTER_CHANGE_MS, marked hot by evidence (gateway-evidence.ts: a refresh
 * failed behind it), or not reported `Live` by the Power BI gateway list — are checked with all their members every run; the other checks take turns
 * (rotation.ts, with a guaranteed share of each run). The share's credit is carried between runs
 * (PacedBudget), so a short interval still affords whole checks; a run asked early by evidence
 * spends the credit accrued since the last run plus the checks of the freshly marked gateways,
 * paid back by later runs. Each run works out the shortest interval its share can honour for what
 * is due every run (minIntervalFor): the next run comes at the longer of that and the interval
 * asked for (its effective interval, shown in the tenant view).
 */
import type { SignalInput } from '../../../alerts/signals.js';
import { HOURLY_CAPS } from '../../platform/budget.js';
import type { Collector, CollectorRun } from '../../engine/collector.js';
import { hotMarks } from '../refreshes/gateway-evidence.js';
import type { StateChange } from '../../engine/output.js';
import { isResourceRefusal, type PlatformClient } from '../../platform/platform-client.js';
import { inPool } from '../../platform/pool.js';
import { pickForRun, progressOf, ROTATION_KEY, type RotationState } from '../../engine/rotation.js';
import { CallBudget, listingIsDue, PacedBudget, type PaceState } from '../../platform/run-budget.js';
import { charged, type GatewayListing, LISTING_KEY, MEMBERS_RELIST_MS, type ListedGateway, type ListedMember, readGatewayList, readMembers, readStatusHints } from './gateway-listing.js';
import * as T from '../../messages/titles.js';
import type { Said } from '../../messages/titles.js';

interface StatusAnswer {
  status?: string;
  gatewayVersion?: string;
  gatewayUpgradeState?: string;
  errorDetails?: { errorCode?: string; message?: string }[];
}

interface RememberedGateway {
  name: string;
  offline: boolean;
  upgrade?: boolean;
  /** Members: their gateway's id. */
  gatewayId?: string;
  /** Gateways: when their status, a member's status or their place in the list last changed (ISO). */
  changedAt?: string;
  /** Gateways: the member list as last read, and when. */
  members?: ListedMember[];
  membersListedAt?: string;
}


async function checkStatus(client: PlatformClient, path: string): Promise<StatusAnswer | null> {
  return client.longRunning<StatusAnswer>({ family: 'fabric', audience: 'fabric', method: 'POST', url: client.fabric(path) });
}

/** Share of the Fabric hourly cap this collector may spend (jobs 0.4, mirroring 0.2, freshness 0.1 and data sources 0.1 take most of the rest). */
export const GATEWAY_SHARE = 0.15;
/** A gateway whose status (or a member's) changed, or that appeared or changed in the list, this recently is checked every run. */
export const HOT_AFTER_CHANGE_MS = 15 * 60_000;
/** At most this part of a run's budget re-reads member lists of gateways that are not hot (the rest checks). */
const MEMBER_LISTING_SHARE = 0.3;
/** When the last run began (ISO): an early run (asked by evidence) spends only the budget of the time since. */
const RAN_KEY = 'ran';
/** The credit of the collector's share, carried from run to run (run-budget.ts, PacedBudget). */
const PACE_KEY = 'pace';
/** Fabric calls an hour this collector may spend. */
const GATEWAY_PER_HOUR = HOURLY_CAPS.fabric * GATEWAY_SHARE;
const GATEWAY_PREFIX = 'gateway:';
const MEMBER_PREFIX = 'member:';

type Flag = 'offline' | 'upgrade';
type Transition = (prev: RememberedGateway | undefined, current: RememberedGateway, signal: Omit<SignalInput, 'kind' | 'title' | 'message'>, down: Said, up: Said, flag: Flag) => void;

/** One status check of a run: a gateway's own, or one member's. */
interface Target {
  key: string;
  gateway: ListedGateway;
  member?: ListedMember;
}

/** One run of the collector: what it read and remembers, and what it will commit. */
interface GatewayRun {
  ctx: CollectorRun['ctx'];
  reader: CollectorRun['reader'];
  client: PlatformClient;
  now: Date;
  signals: SignalInput[];
  changes: StateChange[];
  gateways: Map<string, RememberedGateway>;
  members: Map<string, RememberedGateway>;
  /** The remembered state as the run found it (JSON), to write only what changed. */
  before: Map<string, string>;
  transition: Transition;
}

export const gatewayCollector: Collector = {
  name: 'gateway',
  async run({ ctx, tenant, client, state, reader, commit, intervalSeconds, reportProgress }) {
    const run = startRun(ctx, reader, client, state);
    const prevRotation = state.get(ROTATION_KEY) as RotationState | undefined;
    // 1. The gateway list, kept in state and read again when due.
    const { listed, listingCalls } = await refreshListing(run, state.get(LISTING_KEY) as GatewayListing | undefined);
    // 2. Which gateways are hot, and the run's budget: the share's credit since the last run
    // (carried, so a short interval still affords whole checks), plus the freshly marked gateways' checks.
    const lastRan = Date.parse((state.get(RAN_KEY) as { at?: string } | undefined)?.at ?? '');
    const { isHot, freshCost } = await hotness(run, tenant.id, listed, lastRan);
    const effective = Math.max(intervalSeconds, prevRotation?.minIntervalSeconds ?? 0);
    const budget = new PacedBudget(GATEWAY_PER_HOUR, effective, state.get(PACE_KEY) as PaceState | undefined, run.now, freshCost, 1);
    budget.charge(listingCalls);
    // 3. Member lists due.
    await relistMembers(run, listed, budget, isHot);
    // 4. The status checks: hot gateways with their members in turns, a share for the rest.
    const targets: Target[] = listed.flatMap((g) => [
      { key: g.id, gateway: g },
      ...(run.gateways.get(g.id)!.members ?? []).filter((m) => m.enabled).map((m) => ({ key: `${g.id}/${m.id}`, gateway: g, member: m })),
    ]);
    const targetIsHot = (t: Target) => isHot(t.gateway.id);
    const pick = pickForRun(targets, { key: (t) => t.key, isHot: targetIsHot, budget: budget.left, state: prevRotation, now: run.now });
    const read = await checkTargets(run, pick.poll, budget);
    // Due every run: the hot checks (with the members of hot gateways not listed yet, and their
    // listings), one turn of the others, and one call for the listings that come every few minutes.
    const unlisted = listed.filter((g) => isHot(g.id) && !run.gateways.get(g.id)!.members).reduce((n, g) => n + 1 + (g.memberCount ?? 0), 0);
    const minIntervalSeconds = minIntervalFor(pick.next.hot + unlisted + (pick.next.cold > 0 ? 1 : 0) + 1);
    stateChanges(run);
    run.changes.push({ key: ROTATION_KEY, value: { ...pick.next, minIntervalSeconds } }, { key: RAN_KEY, value: { at: run.now.toISOString() } }, { key: PACE_KEY, value: budget.pace() });
    // A check found this run (a gateway or member not known before it) is not yet one left behind.
    const known = targets.filter((t) => run.before.has(t.member ? MEMBER_PREFIX + t.member.id : GATEWAY_PREFIX + t.gateway.id) || read.has(t.key));
    const { deferred } = progressOf(known, targetIsHot, (t) => read.has(t.key));
    reportProgress({ polled: read.size, deferred, effectiveIntervalSeconds: Math.max(intervalSeconds, minIntervalSeconds) });
    // Gateways first: a member's failure then finds its gateway's incident as its cause.
    run.signals.sort((a, b) => Number(a.notificationKind === 'GatewayMemberOffline') - Number(b.notificationKind === 'GatewayMemberOffline'));
    await commit(run.signals, run.changes);
  },
  releaseAll(state, now) {
    return [...state].filter(([key]) => key.startsWith(GATEWAY_PREFIX) || key.startsWith(MEMBER_PREFIX)).flatMap(([key, value]) => goneSignals(key, value as RememberedGateway, now));
  },
};

/**
 * The shortest interval whose share of the budget pays for `calls` a run (what is due every
 * run: the hot checks, one turn of the others, the listings' share): a shorter interval asked for runs at this one (the
 * tenant view's effectiveIntervalSeconds), instead of runs that cannot read what is due.
 */
export function minIntervalFor(calls: number): number {
  return Math.ceil((Math.max(1, calls) * 3600) / GATEWAY_PER_HOUR);
}

function startRun(ctx: CollectorRun['ctx'], reader: CollectorRun['reader'], client: PlatformClient, state: Map<string, unknown>): GatewayRun {
  const signals: SignalInput[] = [];
  const run: GatewayRun = {
    ctx,
    reader,
    client,
    now: ctx.clock.now(),
    signals,
    changes: [],
    gateways: new Map(),
    members: new Map(),
    before: new Map(),
    transition: (prev, current, signal, down, up, flag) => {
      const was = prev?.[flag] ?? false;
      const is = current[flag] ?? false;
      if (is && !was) signals.push({ ...signal, kind: 'failure', ...down });
      else if (!is && was) signals.push({ ...signal, kind: 'recovery', ...up });
    },
  };
  for (const [key, value] of state) {
    if (key.startsWith(GATEWAY_PREFIX)) run.gateways.set(key.slice(GATEWAY_PREFIX.length), { ...(value as RememberedGateway) });
    else if (key.startsWith(MEMBER_PREFIX)) run.members.set(key.slice(MEMBER_PREFIX.length), { ...(value as RememberedGateway) });
  }
  for (const [id, v] of run.gateways) run.before.set(GATEWAY_PREFIX + id, JSON.stringify(v));
  for (const [id, v] of run.members) run.before.set(MEMBER_PREFIX + id, JSON.stringify(v));
  return run;
}

function forgetMember(run: GatewayRun, mid: string): void {
  run.signals.push(...goneSignals(MEMBER_PREFIX + mid, run.members.get(mid)!, run.now));
  run.members.delete(mid);
}

/** The gateway list from state, read again when due (new, changed and gone gateways noted). */
async function refreshListing(run: GatewayRun, cached: GatewayListing | undefined): Promise<{ listed: ListedGateway[]; listingCalls: number }> {
  if (cached && !listingIsDue(cached.listedAt, run.now)) return { listed: cached.gateways, listingCalls: 0 };
  const counted = new CallBudget(Number.MAX_SAFE_INTEGER);
  const listing = await charged(run.client, counted, () => readGatewayList(run.client, run.now));
  run.changes.push({ key: LISTING_KEY, value: listing });
  const listed = new Set(listing.gateways.map((g) => g.id));
  const known = new Map((cached?.gateways ?? []).map((g) => [g.id, g]));
  for (const g of listing.gateways) {
    const rec = run.gateways.get(g.id);
    const was = known.get(g.id);
    // New since the last list, or its version or member count moved: worth a look every run for a while.
    const changed = cached !== undefined && (!was || was.version !== g.version || was.memberCount !== g.memberCount);
    run.gateways.set(g.id, { ...(rec ?? { offline: false }), name: g.name, ...(changed ? { changedAt: run.now.toISOString() } : {}) });
  }
  for (const [id, rec] of [...run.gateways]) {
    if (listed.has(id)) continue;
    run.signals.push(...goneSignals(GATEWAY_PREFIX + id, rec, run.now));
    run.gateways.delete(id);
    for (const [mid, m] of [...run.members]) if (m.gatewayId === id) forgetMember(run, mid);
  }
  return { listed: listing.gateways, listingCalls: counted.total - counted.left };
}

/** Which gateways are hot this run, and what the checks of those marked since the last run began cost. */
async function hotness(run: GatewayRun, tenantRef: string, listed: ListedGateway[], lastRan: number): Promise<{ isHot: (id: string) => boolean; freshCost: number }> {
  const { now, gateways, members } = run;
  const marks = await hotMarks(run.reader, tenantRef, now);
  // One Power BI call a run: gateways it does not report Live are checked this run.
  const hints = listed.length > 0 ? await readStatusHints(run.client) : null;
  const offlineMembersOf = new Set([...members.values()].filter((m) => m.offline && m.gatewayId).map((m) => m.gatewayId!));
  const isHot = (id: string): boolean => {
    const rec = gateways.get(id);
    if (rec?.offline || offlineMembersOf.has(id) || marks.has(id) || hints?.has(id)) return true;
    return !!rec?.changedAt && now.getTime() - Date.parse(rec.changedAt) < HOT_AFTER_CHANGE_MS;
  };
  // Marks made since the last run began are why this run may be early: their checks are added.
  const fresh = listed.filter((g) => marks.has(g.id) && (!Number.isFinite(lastRan) || marks.get(g.id)!.getTime() >= lastRan));
  const freshCost = fresh.reduce((n, g) => n + 2 + (gateways.get(g.id)?.members?.length ?? g.memberCount ?? 0), 0);
  return { isHot, freshCost };
}

/** Member lists: a hot gateway's when its list is due (5 min), the others' when the list says they changed or they are old. */
async function relistMembers(run: GatewayRun, listed: ListedGateway[], budget: CallBudget, isHot: (id: string) => boolean): Promise<void> {
  const { now, gateways } = run;
  const relistDue = listed.filter((g) => {
    if (g.type !== 'OnPremises') return false;
    const rec = gateways.get(g.id)!;
    if (!rec.members || !rec.membersListedAt || rec.members.length !== (g.memberCount ?? rec.members.length)) return true;
    // A hot gateway's members as often as any listing (not every run: at a short interval the
    // re-list would take the calls its status checks need).
    if (isHot(g.id)) return listingIsDue(rec.membersListedAt, now);
    return now.getTime() - Date.parse(rec.membersListedAt) >= MEMBERS_RELIST_MS;
  });
  const order = (g: ListedGateway) => (isHot(g.id) ? '0' : gateways.get(g.id)!.membersListedAt ? `2${gateways.get(g.id)!.membersListedAt}` : '1');
  relistDue.sort((a, b) => order(a).localeCompare(order(b)) || a.id.localeCompare(b.id));
  let coldRelists = Math.max(1, Math.floor(budget.total * MEMBER_LISTING_SHARE));
  for (const g of relistDue) {
    if (budget.left <= 0) break;
    // The others' lists never take the last call: the run's checks (and their turns) come first.
    if (!isHot(g.id) && (coldRelists-- <= 0 || budget.left <= 1)) break;
    let list: ListedMember[];
    try {
      list = await charged(run.client, budget, () => readMembers(run.client, g));
    } catch (err) {
      if (!isResourceRefusal(err)) throw err;
      continue; // removed since the list: the next list forgets it
    }
    membersListed(run, g.id, list);
  }
}

function membersListed(run: GatewayRun, gatewayId: string, list: ListedMember[]): void {
  const rec = run.gateways.get(gatewayId)!;
  rec.members = list;
  rec.membersListedAt = run.now.toISOString();
  const ids = new Set(list.map((m) => m.id));
  for (const [mid, m] of [...run.members]) if (m.gatewayId === gatewayId && !ids.has(mid)) forgetMember(run, mid);
  for (const m of list) {
    const mprev = run.members.get(m.id);
    // A disabled member is not expected to answer: it is not an outage.
    if (!m.enabled && mprev?.offline) {
      const mnow: RememberedGateway = { name: mprev.name, offline: false, gatewayId };
      memberSignals(run.transition, mprev, mnow, m.id, null, false, gatewayId, run.now);
      run.members.set(m.id, mnow);
    }
  }
}

/**
 * The picked status checks, every one of them: the pick is what the credit affords, and a
 * long-running check's polls beyond it are charged to the credit (the next runs pay them back),
 * so a turn given is a turn taken. Gateways first: a member's check then knows whether its whole
 * gateway is offline. Returns the keys read.
 */
async function checkTargets(run: GatewayRun, poll: Target[], budget: CallBudget): Promise<Set<string>> {
  const read = new Set<string>();
  const check = async (t: Target): Promise<StatusAnswer | null | undefined> => {
    const path = t.member
      ? `/gateways/${encodeURIComponent(t.gateway.apiId)}/members/${encodeURIComponent(t.member.apiId)}/checkStatus`
      : `/gateways/${encodeURIComponent(t.gateway.apiId)}/checkStatus`;
    try {
      const answer = await checkStatus(run.client, path);
      read.add(t.key);
      return answer;
    } catch (err) {
      if (!isResourceRefusal(err)) throw err;
      return undefined; // removed since the list: the next list forgets it
    }
  };
  const phase = async (list: Target[], fn: (t: Target, status: StatusAnswer | null) => void) => {
    await charged(run.client, budget, () => inPool(list, async (t) => {
      const status = await check(t);
      if (status !== undefined) fn(t, status);
    }));
  };
  await phase(poll.filter((t) => !t.member), (t, status) => gatewayChecked(run, t.gateway, status));
  await phase(poll.filter((t) => t.member), (t, status) => memberChecked(run, t, status));
  return read;
}

function gatewayChecked(run: GatewayRun, g: ListedGateway, status: StatusAnswer | null): void {
  const prev = run.gateways.get(g.id)!;
  const name = g.name;
  const offline = status?.status !== 'Online';
  const upgrade = status?.gatewayUpgradeState === 'UpgradeRequired';
  const current: RememberedGateway = { ...prev, name, offline, upgrade };
  if (prev.offline !== offline || (prev.upgrade ?? false) !== upgrade) current.changedAt = run.now.toISOString();
  const base = { sourceType: 'Gateway', sourceId: g.id, sourceName: name, occurredAt: run.now };
  run.transition(prev, current, { ...base, notificationKind: 'GatewayOffline', severity: 'error' }, T.gatewayOffline(name, status?.errorDetails), T.gatewayOnline(name), 'offline');
  run.transition(prev, current, { ...base, notificationKind: 'GatewayUpgradeRequired', severity: 'info' }, T.gatewayUpgradeRequired(name, status?.gatewayVersion), T.gatewayUpToDate(name), 'upgrade');
  run.gateways.set(g.id, current);
}

function memberChecked(run: GatewayRun, t: Target, mstatus: StatusAnswer | null): void {
  const g = run.gateways.get(t.gateway.id)!;
  const mid = t.member!.id;
  const mprev = run.members.get(mid);
  const mnow: RememberedGateway = { name: `${g.name} / ${t.member!.name}`, offline: mstatus?.status !== 'Online', gatewayId: t.gateway.id };
  memberSignals(run.transition, mprev, mnow, mid, mstatus, g.offline, t.gateway.id, run.now);
  // A member's change keeps its gateway hot for a while too.
  if ((mprev?.offline ?? false) !== mnow.offline) g.changedAt = run.now.toISOString();
  run.members.set(mid, mnow);
}

/** The remembered gateways and members that changed, were added or are gone. */
function stateChanges(run: GatewayRun): void {
  for (const [id, v] of run.gateways) if (run.before.get(GATEWAY_PREFIX + id) !== JSON.stringify(v)) run.changes.push({ key: GATEWAY_PREFIX + id, value: v });
  for (const [id, v] of run.members) if (run.before.get(MEMBER_PREFIX + id) !== JSON.stringify(v)) run.changes.push({ key: MEMBER_PREFIX + id, value: v });
  for (const key of run.before.keys()) {
    const id = key.slice(key.indexOf(':') + 1);
    if (!(key.startsWith(GATEWAY_PREFIX) ? run.gateways.has(id) : run.members.has(id))) run.changes.push({ key, value: null });
  }
}

/** A member's failure or recovery; while its whole gateway is offline the gateway is named as its cause. */
function memberSignals(transition: Transition, mprev: RememberedGateway | undefined, mnow: RememberedGateway, mid: string, mstatus: StatusAnswer | null, gatewayOffline: boolean, id: string, now: Date): void {
  const mname = mnow.name;
  transition(mprev, mnow,
    { sourceType: 'Gateway', sourceId: mid, sourceName: mname, occurredAt: now, notificationKind: 'GatewayMemberOffline', severity: 'error', causes: gatewayOffline ? [{ sourceType: 'Gateway', sourceId: id }] : [] },
    T.gatewayMemberOffline(mname, mstatus?.errorDetails),
    T.gatewayMemberOnline(mname), 'offline');
}

export { gatewayNamed } from '../../messages/titles.js';

/** A gateway or member no longer watched: its incidents, if it had any, recover. */
function goneSignals(key: string, prev: RememberedGateway, now: Date): SignalInput[] {
  const member = key.startsWith('member:');
  const sourceId = key.slice(key.indexOf(':') + 1);
  const gone = T.gatewayGone(prev.name, member);
  const base = { sourceType: 'Gateway', sourceId, sourceName: prev.name, occurredAt: now, kind: 'recovery' as const, ...gone };
  const out: SignalInput[] = [];
  if (prev.offline) out.push({ ...base, notificationKind: member ? 'GatewayMemberOffline' : 'GatewayOffline' });
  if (prev.upgrade) out.push({ ...base, notificationKind: 'GatewayUpgradeRequired', severity: 'info' });
  return out;
}
