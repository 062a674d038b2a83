/**
 * gateway — Fabric on-premises gateways and their members. Each gateway and each member gets a
 * status check (POST …/checkStatus, possibly long-running): an offline gateway opens a
 * `Gateway` / `GatewayOffline` incident and an offline member a `GatewayMemberOffline` one
 * (error), both with the platform's error details; while the whole gateway is offline a
 * member's incident names the gateway as its cause, so only the gateway pages people (a cause
 * matches any open incident of the source, so it is given only when the gateway is offline). A gateway whose
 * upgrade is required opens `GatewayUpgradeRequired` (info). Everything recovers when the check
 * says so, or when the gateway or member disappears.
 */
import type { SignalInput } from '../../alerts/signals.js';
import type { Collector } from '../collector.js';
import type { StateChange } from '../output.js';
import type { PlatformClient } from '../platform-client.js';
import { inPool } from '../pool.js';
import * as T from '../titles.js';
import type { Said } from '../titles.js';

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
  gatewayId?: string;
}


async function checkStatus(client: PlatformClient, path: string): Promise<StatusAnswer | null> {
  return client.longRunning<StatusAnswer>({ family: 'fabric', audience: 'fabric', method: 'POST', url: client.fabric(path) });
}

export const gatewayCollector: Collector = {
  name: 'gateway',
  async run({ ctx, client, state, commit }) {
    const now = ctx.clock.now();
    const gateways: { id: string; displayName?: string; type?: string }[] = [];
    for await (const page of client.fabricPages<{ id: string; displayName?: string; type?: string }>({ family: 'fabric', audience: 'fabric', url: client.fabric('/gateways') })) {
      gateways.push(...page.filter((g) => g.type === 'OnPremises' || g.type === 'OnPremisesPersonal'));
    }
    const signals: SignalInput[] = [];
    const changes: StateChange[] = [];
    const seen = new Set<string>();
    const transition = (prev: RememberedGateway | undefined, current: RememberedGateway, signal: Omit<SignalInput, 'kind' | 'title' | 'message'>, down: Said, up: Said, flag: 'offline' | 'upgrade') => {
      const was = prev?.[flag] ?? false;
      const is = current[flag] ?? false;
      if (is && !was) signals.push({ ...signal, kind: 'failure', ...down });
      else if (!is && was) signals.push({ ...signal, kind: 'recovery', ...up });
    };

    await inPool(gateways, async (g) => {
      const id = g.id.toLowerCase();
      const name = g.displayName || id;
      const status = await checkStatus(client, `/gateways/${encodeURIComponent(g.id)}/checkStatus`);
      const offline = status?.status !== 'Online';
      const upgrade = status?.gatewayUpgradeState === 'UpgradeRequired';
      const key = `gateway:${id}`;
      seen.add(key);
      const prev = state.get(key) as RememberedGateway | undefined;
      const current: RememberedGateway = { name, offline, upgrade };
      const base = { sourceType: 'Gateway', sourceId: id, sourceName: name, occurredAt: now };
      transition(prev, current, { ...base, notificationKind: 'GatewayOffline', severity: 'error' },
        T.gatewayOffline(name, status?.errorDetails),
        T.gatewayOnline(name), 'offline');
      transition(prev, current, { ...base, notificationKind: 'GatewayUpgradeRequired', severity: 'info' },
        T.gatewayUpgradeRequired(name, status?.gatewayVersion),
        T.gatewayUpToDate(name), 'upgrade');
      if (!prev || prev.offline !== offline || prev.upgrade !== upgrade || prev.name !== name) changes.push({ key, value: current });

      if (g.type !== 'OnPremises') return;
      const members: { id: string; displayName?: string; enabled?: boolean }[] = [];
      for await (const page of client.fabricPages<(typeof members)[number]>({ family: 'fabric', audience: 'fabric', url: client.fabric(`/gateways/${encodeURIComponent(g.id)}/members`) })) {
        members.push(...page);
      }
      for (const m of members) {
        const mid = m.id.toLowerCase();
        const mname = `${name} / ${m.displayName || mid}`;
        const mstatus = m.enabled === false ? null : await checkStatus(client, `/gateways/${encodeURIComponent(g.id)}/members/${encodeURIComponent(m.id)}/checkStatus`);
        const mkey = `member:${mid}`;
        seen.add(mkey);
        const mprev = state.get(mkey) as RememberedGateway | undefined;
        // A disabled member is not expected to answer: it is not an outage.
        const mnow: RememberedGateway = { name: mname, offline: m.enabled !== false && mstatus?.status !== 'Online', gatewayId: id };
        transition(mprev, mnow,
          { sourceType: 'Gateway', sourceId: mid, sourceName: mname, occurredAt: now, notificationKind: 'GatewayMemberOffline', severity: 'error', causes: offline ? [{ sourceType: 'Gateway', sourceId: id }] : [] },
          T.gatewayMemberOffline(mname, mstatus?.errorDetails),
          T.gatewayMemberOnline(mname), 'offline');
        if (!mprev || mprev.offline !== mnow.offline || mprev.name !== mname) changes.push({ key: mkey, value: mnow });
      }
    });

    for (const [key, value] of state) {
      if (seen.has(key)) continue;
      signals.push(...goneSignals(key, value as RememberedGateway, now));
      changes.push({ key, value: null });
    }
    // Gateways first: a member's failure then finds its gateway's incident as its cause.
    signals.sort((a, b) => Number(a.notificationKind === 'GatewayMemberOffline') - Number(b.notificationKind === 'GatewayMemberOffline'));
    await commit(signals, changes);
  },
  releaseAll(state, now) {
    return [...state].flatMap(([key, value]) => goneSignals(key, value as RememberedGateway, now));
  },
};

export { gatewayNamed } from '../titles.js';

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
