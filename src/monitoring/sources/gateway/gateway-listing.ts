/**
 * What the gateway collector remembers of the platform's gateways between runs: the gateway
 * list (re-read when `listingIsDue`) and, per gateway, its members (re-read when the list shows
 * a different member count, when the gateway is hot, or after MEMBERS_RELIST_MS). On a tenant of
 * 2,000 gateways reading every member list every run would cost more than the collector's whole
 * budget, so the status checks, not the listings, get the calls.
 */
import { BudgetExhaustedError } from '../../platform/budget.js';
import { isResourceRefusal, type PlatformClient } from '../../platform/platform-client.js';
import type { CallBudget } from '../../platform/run-budget.js';

/** The collector-state key of the gateway list. */
export const LISTING_KEY = 'listing';
/** A gateway's member list is read again after this long even when nothing says it changed. */
export const MEMBERS_RELIST_MS = 24 * 3_600_000;

export interface ListedGateway {
  /** Lower case: the key of its state and the sourceId of its incidents. */
  id: string;
  /** As the platform spells it, for its URLs. */
  apiId: string;
  name: string;
  type: 'OnPremises' | 'OnPremisesPersonal';
  memberCount: number | null;
  version: string | null;
}

export interface GatewayListing {
  listedAt: string;
  gateways: ListedGateway[];
}

export interface ListedMember {
  id: string;
  apiId: string;
  name: string;
  enabled: boolean;
}

interface ApiGateway {
  id: string;
  displayName?: string;
  type?: string;
  numberOfMemberGateways?: number;
  version?: string;
}

/** Runs `calls`, taking what they cost from `budget` (pages and long-running polls included). */
export async function charged<T>(client: PlatformClient, budget: CallBudget, calls: () => Promise<T>): Promise<T> {
  const before = client.callsMade;
  try {
    return await calls();
  } finally {
    budget.charge(client.callsMade - before);
  }
}

/** The on-premises gateways (personal ones too; virtual network gateways have no status check). */
export async function readGatewayList(client: PlatformClient, now: Date): Promise<GatewayListing> {
  const gateways: ListedGateway[] = [];
  for await (const page of client.fabricPages<ApiGateway>({ family: 'fabric', audience: 'fabric', url: client.fabric('/gateways') })) {
    for (const g of page) {
      if (typeof g?.id !== 'string' || (g.type !== 'OnPremises' && g.type !== 'OnPremisesPersonal')) continue;
      const id = g.id.toLowerCase();
      gateways.push({
        id,
        apiId: g.id,
        name: g.displayName || id,
        type: g.type,
        memberCount: typeof g.numberOfMemberGateways === 'number' ? g.numberOfMemberGateways : null,
        version: typeof g.version === 'string' ? g.version : null,
      });
    }
  }
  return { listedAt: now.toISOString(), gateways };
}

export async function readMembers(client: PlatformClient, g: ListedGateway): Promise<ListedMember[]> {
  const out: ListedMember[] = [];
  const url = client.fabric(`/gateways/${encodeURIComponent(g.apiId)}/members`);
  for await (const page of client.fabricPages<{ id: string; displayName?: string; enabled?: boolean }>({ family: 'fabric', audience: 'fabric', url })) {
    for (const m of page) {
      if (typeof m?.id !== 'string') continue;
      const id = m.id.toLowerCase();
      out.push({ id, apiId: m.id, name: m.displayName || id, enabled: m.enabled !== false });
    }
  }
  return out;
}

/**
 * Gateways the Power BI gateway list (`GET /v1.0/myorg/gateways`, one call for every gateway the
 * principal administers) reports with a `gatewayStatus` other than `Live`. The field is
 * documented only as "the gateway connectivity status", without its values, so it is a hint that
 * makes a gateway hot, never a verdict: the Fabric status check decides. Null when the list
 * cannot be read (no Power BI access, or the hour's Power BI budget is spent).
 */
export async function readStatusHints(client: PlatformClient): Promise<Set<string> | null> {
  try {
    const answer = await client.json<{ value?: { id?: string; gatewayStatus?: string }[] }>({ family: 'powerbi', audience: 'powerbi', url: client.powerBi('/gateways') });
    const out = new Set<string>();
    for (const g of answer?.value ?? []) {
      if (typeof g?.id === 'string' && typeof g.gatewayStatus === 'string' && g.gatewayStatus !== 'Live') out.add(g.id.toLowerCase());
    }
    return out;
  } catch (err) {
    if (isResourceRefusal(err) || err instanceof BudgetExhaustedError) return null;
    throw err;
  }
}
