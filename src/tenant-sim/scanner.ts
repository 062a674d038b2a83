/**
 * Power BI's metadata scanning (admin "scanner" API) as the service plays it:
 * `GET /admin/workspaces/modified?modifiedSince=…` lists the workspaces changed since an instant
 * (all of them without it); `POST /admin/workspaces/getInfo` asks for a scan of 1 to 100
 * workspaces and answers 202 with the scan's id; `GET …/scanStatus/{id}` moves NotStarted →
 * Running → Succeeded (or Failed) as it is polled; `GET …/scanResult/{id}` answers the described
 * workspaces once the scan succeeded, for 24 hours. The service leaves out of a result the
 * workspaces it cannot describe; the control API can make it do so, fail a scan, or mark a
 * workspace modified. At most 16 scans run at once per tenant (more answer 429).
 */
import { randomUUID } from 'node:crypto';
import { SimControlError } from './control.js';
import { workspaceById } from './lazy-tenant.js';
import { type Handler, ok, powerBiError, type Reply, type RequestContext } from './reply.js';
import type { ScannerBook, SimItem, SimScan, SimState, SimWorkspace } from './types.js';

/** The service keeps a scan's result this long after the scan was created. */
export const SCAN_RESULT_TTL_MS = 24 * 3_600_000;
/** Scans of one tenant the service runs at once. */
export const SCANS_IN_PROGRESS_LIMIT = 16;
export const WORKSPACES_PER_SCAN = 100;
/** `modifiedSince` may look back at most this far. */
export const MODIFIED_SINCE_MAX_MS = 30 * 24 * 3_600_000;
/** … and at least 30 minutes back (the scanner API's documented range). */
export const MODIFIED_SINCE_MIN_MS = 30 * 60_000;

export function newScannerBook(now: number): ScannerBook {
  return { scans: new Map(), omitted: new Set(), failNext: 0, modifiedAt: new Map(), startedAt: now };
}


function statusOf(scan: SimScan): 'NotStarted' | 'Running' | 'Succeeded' | 'Failed' {
  if (scan.polls === 0) return 'NotStarted';
  if (scan.polls === 1) return 'Running';
  return scan.fails ? 'Failed' : 'Succeeded';
}

function scanRequest(scan: SimScan) {
  const status = statusOf(scan);
  return {
    id: scan.id,
    createdDateTime: new Date(scan.createdAt).toISOString(),
    status,
    ...(status === 'Failed' ? { error: { code: 'ScanFailed', message: 'The scan failed.' } } : {}),
  };
}

function liveScan(ctx: RequestContext): SimScan | Reply {
  const scan = ctx.scanner.scans.get(String(ctx.pathParams.scanId).toLowerCase());
  if (!scan || ctx.now - scan.createdAt > SCAN_RESULT_TTL_MS) return powerBiError(404, 'ScanNotFound', `Scan ${ctx.pathParams.scanId} was not found or has expired.`);
  return scan;
}

function dataset(item: SimItem, state: SimState, lineage: boolean) {
  const datasource = item.gatewayDatasourceId ? state.gateways.flatMap((g) => g.datasources).find((d) => d.id === item.gatewayDatasourceId) : undefined;
  const schedule = item.refreshSchedule;
  return {
    id: item.id,
    name: item.displayName,
    configuredBy: 'owner@contoso.example',
    CreatedDate: '2025-01-15T10:00:00Z',
    targetStorageMode: 'Abf',
    // Not in the swagger's WorkspaceInfoDataset, but the service's scan results carry it.
    ...(schedule ? { refreshSchedule: { days: schedule.days, times: schedule.times, enabled: schedule.enabled, localTimeZoneId: schedule.localTimeZoneId, notifyOption: 'MailOnFailure' } } : {}),
    ...(lineage ? { datasourceUsages: datasource ? [{ datasourceInstanceId: datasource.id }] : [], upstreamDataflows: [] } : {}),
  };
}

function describedWorkspace(w: SimWorkspace, state: SimState, lineage: boolean) {
  return {
    id: w.id,
    name: w.name,
    type: 'Workspace',
    state: 'Active',
    isOnDedicatedCapacity: w.capacityId !== null,
    ...(w.capacityId ? { capacityId: w.capacityId } : {}),
    reports: [],
    dashboards: [],
    dataflows: [],
    datasets: w.items.filter((i) => i.type === 'SemanticModel').map((i) => dataset(i, state, lineage)),
  };
}

export const SCANNER_HANDLERS: Record<string, Handler> = {
  WorkspaceInfo_GetModifiedWorkspaces: (ctx) => {
    const since = ctx.query.get('modifiedSince');
    let sinceMs = Number.NEGATIVE_INFINITY;
    if (since !== null) {
      sinceMs = Date.parse(since);
      if (Number.isNaN(sinceMs)) return powerBiError(400, 'InvalidRequest', 'modifiedSince is not a date-time.');
      if (ctx.now - sinceMs > MODIFIED_SINCE_MAX_MS) return powerBiError(400, 'InvalidRequest', 'modifiedSince must be within the last 30 days.');
      // The documented range starts 30 minutes back, "to allow workspace changes to take effect".
      if (ctx.now - sinceMs < MODIFIED_SINCE_MIN_MS) return powerBiError(400, 'InvalidRequest', 'modifiedSince must be at least 30 minutes before the current time.');
    }
    const changed = ctx.state.workspaces.filter((w) => (ctx.scanner.modifiedAt.get(w.id.toLowerCase()) ?? ctx.scanner.startedAt) > sinceMs);
    return ok(changed.map((w) => ({ id: w.id })));
  },
  WorkspaceInfo_PostWorkspaceInfo: (ctx) => {
    const ids = (ctx.json as { workspaces?: unknown } | undefined)?.workspaces;
    if (!Array.isArray(ids) || ids.length === 0 || ids.length > WORKSPACES_PER_SCAN) {
      return powerBiError(400, 'InvalidRequest', `requiredWorkspaces.workspaces must list 1 to ${WORKSPACES_PER_SCAN} workspace ids.`);
    }
    const running = [...ctx.scanner.scans.values()].filter((s) => statusOf(s) === 'NotStarted' || statusOf(s) === 'Running').length;
    if (running >= SCANS_IN_PROGRESS_LIMIT) {
      return { ...powerBiError(429, 'TooManyRequests', `At most ${SCANS_IN_PROGRESS_LIMIT} scans run at once.`), headers: { 'Retry-After': '30' } };
    }
    const fails = ctx.scanner.failNext > 0;
    if (fails) ctx.scanner.failNext--;
    const scan: SimScan = {
      id: randomUUID(),
      createdAt: ctx.now,
      workspaceIds: ids.map((x) => String(x).toLowerCase()),
      polls: 0,
      lineage: ctx.query.get('lineage') === 'true',
      datasourceDetails: ctx.query.get('datasourceDetails') === 'true',
      fails,
    };
    ctx.scanner.scans.set(scan.id, scan);
    return { status: 202, body: scanRequest(scan) };
  },
  WorkspaceInfo_GetScanStatus: (ctx) => {
    const scan = liveScan(ctx);
    if ('status' in scan) return scan;
    scan.polls++;
    return ok(scanRequest(scan));
  },
  WorkspaceInfo_GetScanResult: (ctx) => {
    const scan = liveScan(ctx);
    if ('status' in scan) return scan;
    if (statusOf(scan) !== 'Succeeded') return powerBiError(400, 'ScanNotReady', `Scan ${scan.id} has not succeeded (${statusOf(scan)}).`);
    const wanted = new Set(scan.workspaceIds.filter((id) => !ctx.scanner.omitted.has(id)));
    const workspaces = [...wanted].flatMap((id) => workspaceById(ctx.state, id) ?? []);
    const usedSources = new Set(workspaces.flatMap((w) => w.items.flatMap((i) => (i.gatewayDatasourceId ? [i.gatewayDatasourceId] : []))));
    const datasourceInstances = scan.datasourceDetails
      ? ctx.state.gateways
          .flatMap((g) => g.datasources)
          .filter((d) => usedSources.has(d.id))
          .map((d) => ({ datasourceType: d.datasourceType, connectionDetails: JSON.parse(d.connectionDetails), datasourceId: d.id, gatewayId: d.gatewayId }))
      : undefined;
    return ok({
      workspaces: workspaces.map((w) => describedWorkspace(w, ctx.state, scan.lineage)),
      ...(datasourceInstances ? { datasourceInstances } : {}),
    });
  },
};

/** The scanner's faults and changes, beside the simulator's other controls. */
export interface ScannerControl {
  /** The service leaves the workspace out of scan results (or describes it again). */
  scanOmits(a: { workspaceId: string; omitted?: boolean }): void;
  /** The next `count` scans end Failed. */
  failScans(a: { count: number }): void;
  /**
   * The workspace changed now, or `minutesAgo` back (a change that took effect late: listings
   * since before that time name it).
   */
  workspaceModified(a: { workspaceId: string; minutesAgo?: number }): void;
}

export const SCANNER_CONTROL_OPERATIONS = ['scanOmits', 'failScans', 'workspaceModified'] as const;

export function scannerControl(book: ScannerBook, now: () => number): ScannerControl {
  const id = (v: unknown) => {
    if (typeof v !== 'string' || v === '') throw new SimControlError('workspaceId is required');
    return v.toLowerCase();
  };
  return {
    scanOmits: (a) => {
      if (a.omitted === false) book.omitted.delete(id(a.workspaceId));
      else book.omitted.add(id(a.workspaceId));
    },
    failScans: (a) => {
      if (!Number.isInteger(a.count) || a.count < 0) throw new SimControlError('count must be a whole number ≥ 0');
      book.failNext = a.count;
    },
    workspaceModified: (a) => {
      const back = a.minutesAgo ?? 0;
      if (!Number.isFinite(back) || back < 0) throw new SimControlError('minutesAgo must be a number ≥ 0');
      book.modifiedAt.set(id(a.workspaceId), now() - back * 60_000);
    },
  };
}

/** Forgets every scan and fault (the simulator's reset). */
export function resetScannerBook(book: ScannerBook, now: number): void {
  Object.assign(book, newScannerBook(now));
}
