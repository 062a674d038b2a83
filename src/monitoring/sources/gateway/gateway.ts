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
 * (rotation.ts). A run asked early by evidence spends the budget of the time since the last run,
 * plus the checks of the freshly marked gateways, so early runs do not add up past the share.
 */
import type { SignalInput } from '../../../alerts/signals.js';
import { HOURLY_CAPS } from '../../platform/budget.js';
import type { Collector } from '../../engine/collector.js';
import { hotMarks } from '../refreshes/gateway-evidence.js';
import type { StateChange } from '../../engine/output.js';
import { isResourceRefusal, type PlatformClient } from '../../platform/platform-client.js';
import { inPool } from '../../platform/pool.js';
import { pickForRun, progressOf, ROTATION_KEY, type RotationState } from '../../engine/rotation.js';
import { CallBudget, listingIsDue, runBudget } from '../../platform/run-budget.js';
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

export const gatewayCollector: Collector = {
  name: 'gateway',
  async run({ ctx, tenant, client, state, reader, commit, intervalSeconds, reportProgress }) {
    const now = ctx.clock.now();
    const signals: SignalInput[] = [];
    const changes: StateChange[] = [];
    const transition: Transition = (prev, current, signal, down, up, flag) => {
      const was = prev?.[flag] ?? false;
      const is = current[flag] ?? false;
      if (is && !was) signals.push({ ...signal, kind: 'failure', ...down });
      else if (!is && was) signals.push({ ...signal, kind: 'recovery', ...up });
    };
    const gateways = new Map<string, RememberedGateway>();
    const members = new Map<string, RememberedGateway>();
    for (const [key, value] of state) {
      if (key.startsWith(GATEWAY_PREFIX)) gateways.set(key.slice(GATEWAY_PREFIX.length), { ...(value as RememberedGateway) });
      else if (key.startsWith(MEMBER_PREFIX)) members.set(key.slice(MEMBER_PREFIX.length), { ...(value as RememberedGateway) });
    }
    const before = new Map<string, string>();
    for (const [id, v] of gateways) before.set(GATEWAY_PREFIX + id, JSON.stringify(v));
    for (const [id, v] of members) before.set(MEMBER_PREFIX + id, JSON.stringify(v));
    const forgetMember = (mid: string) => {
      signals.push(...goneSignals(MEMBER_PREFIX + mid, members.get(mid)!, now));
      members.delete(mid);
    };

    // 1. The gateway list, kept in state and read again when due.
    const lastRan = Date.parse((state.get(RAN_KEY) as { at?: string } | undefined)?.at ?? '');
    const cached = state.get(LISTING_KEY) as GatewayListing | undefined;
    let listing = cached;
    let listingCalls = 0;
    if (!cached || listingIsDue(cached.listedAt, now)) {
      const counted = new CallBudget(Number.MAX_SAFE_INTEGER);
      listing = await charged(client, counted, () => readGatewayList(client, now));
      listingCalls = counted.total - counted.left;
      changes.push({ key: LISTING_KEY, value: listing });
      const listed = new Set(listing.gateways.map((g) => g.id));
      const known = new Map((cached?.gateways ?? []).map((g) => [g.id, g]));
      for (const g of listing.gateways) {
        const rec = gateways.get(g.id);
        const was = known.get(g.id);
        // New since the last list, or its version or member count moved: worth a look every run for a while.
        const changed = cached !== undefined && (!was || was.version !== g.version || was.memberCount !== g.memberCount);
        gateways.set(g.id, { ...(rec ?? { offline: false }), name: g.name, ...(changed ? { changedAt: now.toISOString() } : {}) });
      }
      for (const [id, rec] of [...gateways]) {
        if (listed.has(id)) continue;
        signals.push(...goneSignals(GATEWAY_PREFIX + id, rec, now));
        gateways.delete(id);
        for (const [mid, m] of [...members]) if (m.gatewayId === id) forgetMember(mid);
      }
    }
    const listedGateways = listing!.gateways;

    // 2. Which gateways are hot, and the run's budget.
    const marks = await hotMarks(reader, tenant.id, now);
    // One Power BI call a run: gateways it does not report Live are checked this run.
    const hints = listedGateways.length > 0 ? await readStatusHints(client) : null;
    const offlineMembersOf = new Set([...members.values()].filter((m) => m.offline && m.gatewayId).map((m) => m.gatewayId!));
    const isHot = (id: string): boolean => {
      const rec = gateways.get(id);
      if (rec?.offline || offlineMembersOf.has(id) || marks.has(id) || hints?.has(id)) return true;
      return !!rec?.changedAt && now.getTime() - Date.parse(rec.changedAt) < HOT_AFTER_CHANGE_MS;
    };
    const sinceLast = Number.isFinite(lastRan) && lastRan <= now.getTime() ? (now.getTime() - lastRan) / 1000 : intervalSeconds;
    // Marks made since the last run began are why this run may be early: their checks are added.
    const fresh = listedGateways.filter((g) => marks.has(g.id) && (!Number.isFinite(lastRan) || marks.get(g.id)!.getTime() >= lastRan));
    const freshCost = fresh.reduce((n, g) => n + 2 + (gateways.get(g.id)?.members?.length ?? g.memberCount ?? 0), 0);
    const budget = new CallBudget(runBudget(HOURLY_CAPS.fabric, GATEWAY_SHARE, Math.min(intervalSeconds, Math.max(1, sinceLast))) + freshCost);
    budget.charge(listingCalls);

    // 3. Member lists: a hot gateway's when its list is due (5 min), the others' when the list says they changed or they are old.
    const relistDue = listedGateways.filter((g) => {
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
      if (!isHot(g.id) && coldRelists-- <= 0) break;
      let list: ListedMember[];
      try {
        list = await charged(client, budget, () => readMembers(client, g));
      } catch (err) {
        if (!isResourceRefusal(err)) throw err;
        continue; // removed since the list: the next list forgets it
      }
      const rec = gateways.get(g.id)!;
      rec.members = list;
      rec.membersListedAt = now.toISOString();
      const ids = new Set(list.map((m) => m.id));
      for (const [mid, m] of [...members]) if (m.gatewayId === g.id && !ids.has(mid)) forgetMember(mid);
      for (const m of list) {
        const mprev = members.get(m.id);
        // A disabled member is not expected to answer: it is not an outage.
        if (!m.enabled && mprev?.offline) {
          const mnow: RememberedGateway = { name: mprev.name, offline: false, gatewayId: g.id };
          memberSignals(transition, mprev, mnow, m.id, null, false, g.id, now);
          members.set(m.id, mnow);
        }
      }
    }

    // 4. The status checks: hot gateways with all their members, the rest in turns.
    const targets: Target[] = listedGateways.flatMap((g) => [
      { key: g.id, gateway: g },
      ...(gateways.get(g.id)!.members ?? []).filter((m) => m.enabled).map((m) => ({ key: `${g.id}/${m.id}`, gateway: g, member: m })),
    ]);
    const targetIsHot = (t: Target) => isHot(t.gateway.id);
    const pick = pickForRun(targets, { key: (t) => t.key, isHot: targetIsHot, budget: budget.left, state: state.get(ROTATION_KEY) as RotationState | undefined, now });
    const read = new Set<string>();
    let taken = 0;
    // One call is taken before each check; long-running polls are charged after each phase
    // (the calls of concurrent checks cannot be told apart while they run).
    const check = async (t: Target): Promise<StatusAnswer | null | undefined> => {
      if (!budget.tryTake(1)) return undefined;
      taken++;
      const path = t.member
        ? `/gateways/${encodeURIComponent(t.gateway.apiId)}/members/${encodeURIComponent(t.member.apiId)}/checkStatus`
        : `/gateways/${encodeURIComponent(t.gateway.apiId)}/checkStatus`;
      try {
        const answer = await checkStatus(client, path);
        read.add(t.key);
        return answer;
      } catch (err) {
        if (!isResourceRefusal(err)) throw err;
        return undefined; // removed since the list: the next list forgets it
      }
    };
    const phase = async (list: Target[], fn: (t: Target) => Promise<void>) => {
      const made = client.callsMade;
      taken = 0;
      await inPool(list, fn);
      budget.charge(client.callsMade - made - taken);
    };
    // Gateways first: a member's check then knows whether its whole gateway is offline.
    await phase(pick.poll.filter((t) => !t.member), async (t) => {
      const status = await check(t);
      if (status === undefined) return;
      const g = t.gateway;
      const prev = gateways.get(g.id)!;
      const name = g.name;
      const offline = status?.status !== 'Online';
      const upgrade = status?.gatewayUpgradeState === 'UpgradeRequired';
      const current: RememberedGateway = { ...prev, name, offline, upgrade };
      if (prev.offline !== offline || (prev.upgrade ?? false) !== upgrade) current.changedAt = now.toISOString();
      const base = { sourceType: 'Gateway', sourceId: g.id, sourceName: name, occurredAt: now };
      transition(prev, current, { ...base, notificationKind: 'GatewayOffline', severity: 'error' },
        T.gatewayOffline(name, status?.errorDetails),
        T.gatewayOnline(name), 'offline');
      transition(prev, current, { ...base, notificationKind: 'GatewayUpgradeRequired', severity: 'info' },
        T.gatewayUpgradeRequired(name, status?.gatewayVersion),
        T.gatewayUpToDate(name), 'upgrade');
      gateways.set(g.id, current);
    });
    await phase(pick.poll.filter((t) => t.member), async (t) => {
      const mstatus = await check(t);
      if (mstatus === undefined) return;
      const g = gateways.get(t.gateway.id)!;
      const mid = t.member!.id;
      const mname = `${g.name} / ${t.member!.name}`;
      const mprev = members.get(mid);
      const mnow: RememberedGateway = { name: mname, offline: mstatus?.status !== 'Online', gatewayId: t.gateway.id };
      memberSignals(transition, mprev, mnow, mid, mstatus, g.offline, t.gateway.id, now);
      // A member's change keeps its gateway hot for a while too.
      if ((mprev?.offline ?? false) !== mnow.offline) g.changedAt = now.toISOString();
      members.set(mid, mnow);
    });

    for (const [id, v] of gateways) if (before.get(GATEWAY_PREFIX + id) !== JSON.stringify(v)) changes.push({ key: GATEWAY_PREFIX + id, value: v });
    for (const [id, v] of members) if (before.get(MEMBER_PREFIX + id) !== JSON.stringify(v)) changes.push({ key: MEMBER_PREFIX + id, value: v });
    for (const key of before.keys()) {
      const id = key.slice(key.indexOf(':') + 1);
      if (!(key.startsWith(GATEWAY_PREFIX) ? gateways.has(id) : members.has(id))) changes.push({ key, value: null });
    }
    changes.push({ key: ROTATION_KEY, value: pick.next }, { key: RAN_KEY, value: { at: now.toISOString() } });
    reportProgress(progressOf(targets, targetIsHot, (t) => read.has(t.key)));
    // Gateways first: a member's failure then finds its gateway's incident as its cause.
    signals.sort((a, b) => Number(a.notificationKind === 'GatewayMemberOffline') - Number(b.notificationKind === 'GatewayMemberOffline'));
    await commit(signals, changes);
  },
  releaseAll(state, now) {
    return [...state].filter(([key]) => key.startsWith(GATEWAY_PREFIX) || key.startsWith(MEMBER_PREFIX)).flatMap(([key, value]) => goneSignals(key, value as RememberedGateway, now));
  },
};

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
