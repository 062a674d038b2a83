/**
 * The data sources a tenant reads through, and one check of each. Two platform views are merged:
 * Power BI gateway data sources (`GET /gateways`, `GET /gateways/{gw}/datasources`) and Fabric
 * connections (`GET /v1/connections`, paged). A gateway connection in Fabric carries the id of
 * its gateway data source, so one id is one data source; it is checked through the gateway
 * (`GET …/datasources/{id}/status`, one Power BI call). A connection without a gateway data
 * source (cloud connections, gateways we do not administer) is checked with Fabric's
 * `POST /v1/connections/{id}/testConnection`, which may be long-running (202, polls, /result).
 */
import type { PlatformClient } from '../../platform/platform-client.js';
import { VendorHttpError } from '../../platform/platform-client.js';

export interface WatchedDatasource {
  /** Lower-case id (gateway data source id = connection id). */
  id: string;
  /** Id as the platform wrote it (used in its paths). */
  platformId: string;
  name: string;
  type: string;
  /** Lower-case id of the gateway it goes through, if any. */
  gatewayId: string | null;
  gatewayName: string | null;
  /** How it is checked: the gateway's status call (Power BI) or a Fabric connection test. */
  check: 'gatewayStatus' | 'connectionTest';
  /** Platform gateway id for the gateway status path. */
  platformGatewayId: string | null;
}

export type FailureKind = 'ConnectorUnreachable' | 'ConnectorAuthFailed';

export interface CheckFailure {
  kind: FailureKind;
  code: string;
  detail: string;
}

/** The check's verdict: null = the data source answered; 'gone' = the platform no longer knows it. */
export type CheckResult = CheckFailure | null | 'gone';

/** Calls one check costs against the budget: a gateway status is one call; a connection test may be POST, a poll and /result. */
export const CHECK_COST: Record<WatchedDatasource['check'], number> = { gatewayStatus: 1, connectionTest: 3 };

/** Fabric connectivity types whose connections can be tested (streaming VNet gateways cannot, as documented). */
const TESTABLE = new Set(['ShareableCloud', 'OnPremisesGateway', 'OnPremisesGatewayPersonal', 'VirtualNetworkGateway', 'PersonalCloud']);

/**
 * Error codes that mean the credentials stored for the data source no longer work (expired,
 * revoked, wrong); anything else that fails a check means the source cannot be reached.
 */
const CREDENTIAL_CODE = /credential|oauth|token|unauthori[sz]ed|logon|login|password|accessdenied|authentication/i;

/** Codes by which a check says the gateway, not the data source, did not answer. */
const GATEWAY_DOWN_CODE = /gateway(unreachable|notreachable|offline)/i;

export function saysGatewayIsDown(f: CheckFailure): boolean {
  return GATEWAY_DOWN_CODE.test(f.code);
}

export function failureOf(code: string | null | undefined, message: string | null | undefined): CheckFailure {
  const c = code?.trim() || 'Unknown';
  return { kind: CREDENTIAL_CODE.test(c) ? 'ConnectorAuthFailed' : 'ConnectorUnreachable', code: c, detail: clip(message ?? '', 300) };
}

function clip(s: string, n: number): string {
  const t = s.replace(/\s+/g, ' ').trim();
  return t.length <= n ? t : `${t.slice(0, n - 1)}…`;
}

interface PbiGateway {
  id: string;
  name?: string;
}
interface PbiDatasource {
  id: string;
  gatewayId?: string;
  datasourceName?: string;
  datasourceType?: string;
}
interface FabricConnection {
  id: string;
  displayName?: string;
  gatewayId?: string;
  connectivityType?: string;
  connectionDetails?: { type?: string; path?: string };
}

/** Every data source the principal can see, gateway data sources first (they win a shared id). */
export async function listDatasources(client: PlatformClient): Promise<WatchedDatasource[]> {
  const byId = new Map<string, WatchedDatasource>();
  const gateways = (await client.json<{ value?: PbiGateway[] }>({ family: 'powerbi', audience: 'powerbi', url: client.powerBi('/gateways') }))?.value ?? [];
  const gatewayNames = new Map(gateways.map((g) => [g.id.toLowerCase(), g.name || g.id]));
  for (const g of gateways) {
    const list = await client.json<{ value?: PbiDatasource[] }>({ family: 'powerbi', audience: 'powerbi', url: client.powerBi(`/gateways/${encodeURIComponent(g.id)}/datasources`) });
    for (const d of list?.value ?? []) {
      const id = d.id.toLowerCase();
      byId.set(id, {
        id,
        platformId: d.id,
        name: d.datasourceName || id,
        type: d.datasourceType ?? 'Unknown',
        gatewayId: g.id.toLowerCase(),
        gatewayName: g.name || g.id,
        check: 'gatewayStatus',
        platformGatewayId: g.id,
      });
    }
  }
  for await (const page of client.fabricPages<FabricConnection>({ family: 'fabric', audience: 'fabric', url: client.fabric('/connections') })) {
    for (const c of page) {
      const id = c.id.toLowerCase();
      const known = byId.get(id);
      if (known) {
        if (c.displayName && known.name === id) known.name = c.displayName;
        continue;
      }
      if (!TESTABLE.has(c.connectivityType ?? '')) continue;
      const gatewayId = c.gatewayId ? c.gatewayId.toLowerCase() : null;
      byId.set(id, {
        id,
        platformId: c.id,
        name: c.displayName || id,
        type: c.connectionDetails?.type ?? 'Unknown',
        gatewayId,
        gatewayName: gatewayId ? (gatewayNames.get(gatewayId) ?? gatewayId) : null,
        check: 'connectionTest',
        platformGatewayId: null,
      });
    }
  }
  return [...byId.values()];
}

/**
 * One check. Errors that say nothing about the data source — our own permissions (401/403),
 * throttling, spent budgets, transport failures — are thrown for the run to handle.
 */
export async function checkDatasource(client: PlatformClient, d: WatchedDatasource): Promise<CheckResult> {
  try {
    if (d.check === 'gatewayStatus') {
      await client.request({
        family: 'powerbi',
        audience: 'powerbi',
        url: client.powerBi(`/gateways/${encodeURIComponent(d.platformGatewayId!)}/datasources/${encodeURIComponent(d.platformId)}/status`),
      });
      return null;
    }
    const answer = await client.longRunning<{ status?: string; errors?: { errorCode?: string; message?: string }[] }>({
      family: 'fabric',
      audience: 'fabric',
      method: 'POST',
      url: client.fabric(`/connections/${encodeURIComponent(d.platformId)}/testConnection`),
    });
    if (answer?.status === 'Online') return null;
    const first = answer?.errors?.[0];
    return failureOf(first?.errorCode, first?.message ?? `the connection test answered ${answer?.status ?? 'no status'}`);
  } catch (err) {
    if (!(err instanceof VendorHttpError)) throw err;
    if (err.status === 404) return 'gone';
    // A 4xx other than our own access or throttling is the platform's verdict on the data source.
    if (err.status >= 400 && err.status < 500 && err.status !== 401 && err.status !== 403 && err.status !== 429) return failureOf(err.code, null);
    throw err;
  }
}
