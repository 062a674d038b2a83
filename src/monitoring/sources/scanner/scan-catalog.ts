/**
 * What the scanner collector (collectors/scanner.ts) knows of an admin-mode tenant, as it keeps it
 * in its collector state, and the reads of it: the other collectors take their catalog (workspaces,
 * semantic models with their refresh schedules, data sources) from here instead of listing each
 * workspace, and read each workspace the scan could not describe the old way, in turns. The
 * scanner is the one writer; everything here only reads.
 */
import type { Reader } from '../../engine/reader.js';
import { pagesByKey, readState } from '../../engine/output.js';
import type { RefreshSchedule } from '../../platform/refresh-schedule.js';

export const SCANNER = 'scanner';
/** The scan's cursor (ScanCursor). */
export const CURSOR_KEY = 'cursor';
/** Per known workspace: `ws:<id>` → ScannedWorkspace. */
export const WORKSPACE_PREFIX = 'ws:';

export interface ScannedDataset {
  id: string;
  name: string;
  /** The enabled refresh schedule the scan reported; null when none (or disabled). */
  schedule: RefreshSchedule | null;
  datasourceIds: string[];
  gatewayIds: string[];
}

export interface ScannedWorkspace {
  /** False: the workspace is known (listed as modified) but no scan described it yet, or the last one left it out. */
  described: boolean;
  /** The last scan that was asked for it left it out (the platform does not describe every workspace). */
  omitted?: boolean;
  name: string | null;
  capacityId: string | null;
  /** When the scan that described it was created (ISO); null before. */
  scannedAt: string | null;
  datasets: ScannedDataset[];
}

export interface PendingScan {
  id: string;
  /** When the scan was asked for (ISO): its result is kept 24 hours after. */
  createdAt: string;
  workspaceIds: string[];
}

export interface ScanCursor {
  /** `modifiedSince` of the next incremental listing: the start of the last listing, a little earlier. */
  since: string | null;
  /** When the modified-workspaces listing was last read (ISO). */
  listedAt: string | null;
  /** When the current full scan listed every workspace (ISO); null when none is under way. */
  fullStartedAt: string | null;
  /** When the last full scan finished (every listed workspace scanned), ISO. */
  lastFullAt: string | null;
  /** When the last incremental listing (changes only) was read, ISO. */
  lastIncrementalAt: string | null;
  /** Workspaces to scan, in order. */
  queue: string[];
  /** Scans asked for and not yet read. */
  pending: PendingScan[];
  /** Failed scans per workspace since it was last described (scanner.ts, requeueFailed). */
  attempts?: Record<string, number>;
  /** Workspaces whose scan failed MAX_SLICE_ATTEMPTS times: set aside until the next full scan. */
  failed?: string[];
  /** Counts kept for the tenant view and /metrics. */
  known: number;
  described: number;
}

export function emptyCursor(): ScanCursor {
  return { since: null, listedAt: null, fullStartedAt: null, lastFullAt: null, lastIncrementalAt: null, queue: [], pending: [], known: 0, described: 0 };
}

/** A known workspace without its models. */
export interface KnownWorkspace {
  described: boolean;
  name: string | null;
  capacityId: string | null;
}

/**
 * The scan's catalog of a tenant: every known workspace (without its models) and the described
 * ones with their models — all of them, or only those the scanner changed since a given time.
 */
export interface ScanCatalog {
  /** When the catalog last changed (the scanner's last committed change), for consumers that apply it only when it changed. */
  version: string;
  workspaces: Map<string, KnownWorkspace>;
  /** Described workspaces with their models (those changed since the read's `since`, or all). */
  described: Map<string, ScannedWorkspace>;
}

/** Rows a catalog read takes at a time (a described workspace carries its models). */
const CATALOG_PAGE = 2_000;
/**
 * A change read "since" a version looks back this much before it. Versions and the rows' times
 * are the database's clock (engine/output.ts writes `updated_at` with it, never an instance's), but
 * a commit is stamped when its transaction starts: one that started before the version was read
 * and committed after it carries an earlier time.
 */
export const CATALOG_SINCE_OVERLAP_MS = 2 * 60_000;

/** The time a catalog version names (its newest change), for a read of what changed since. */
export function versionTime(version: string | undefined): Date | null {
  const at = version ? Date.parse(version.split('/')[0]!) : NaN;
  return Number.isFinite(at) ? new Date(at) : null;
}

/**
 * The tenant's scan catalog at `version` (scanCatalogVersion, read by the caller first: a change
 * committed during the read then shows as a newer version next time), or null when the scanner
 * describes no workspace any more. With `changedSince`, only
 * the described workspaces the scanner wrote since then carry their models: a consumer that
 * applied an earlier version reads what changed, not 200,000 models again.
 */
export async function readScanCatalog(q: Reader, tenantRef: string, version: string, changedSince: Date | null = null): Promise<ScanCatalog | null> {
  const known = await readScannedWorkspaces(q, tenantRef);
  // The scanner no longer describes any workspace (it changed since the version was read).
  if (known.length === 0) return null;
  const workspaces = new Map<string, KnownWorkspace>();
  for (const w of known) workspaces.set(w.id, { described: w.described, name: w.name, capacityId: w.capacityId });
  const since = changedSince ? new Date(changedSince.getTime() - CATALOG_SINCE_OVERLAP_MS) : null;
  const described = new Map<string, ScannedWorkspace>();
  const pages = pagesByKey(async (after) => {
    const { rows } = await q.query<{ key: string; value: ScannedWorkspace }>(
      `SELECT key, value FROM collector_state
        WHERE tenant_ref = $1 AND collector = $2 AND starts_with(key, $3) AND key > $4
          AND (value->>'described')::boolean AND ($5::timestamptz IS NULL OR updated_at >= $5::timestamptz)
        ORDER BY key LIMIT ${CATALOG_PAGE}`,
      [tenantRef, SCANNER, WORKSPACE_PREFIX, after, since],
    );
    return rows;
  }, CATALOG_PAGE);
  for await (const rows of pages) for (const r of rows) described.set(r.key.slice(WORKSPACE_PREFIX.length), r.value);
  return { version, workspaces, described };
}

/** Known workspaces a read of them takes at a time (an enterprise tenant has 50,000 and more). */
export const SCANNED_WORKSPACES_PAGE = 1_000;

/**
 * The known workspaces without their models (inventory's needs), in id order; empty before the
 * scanner described any. Read in pages keyed by workspace (`page` rows a statement), so no
 * statement reads a whole large tenant.
 */
export async function readScannedWorkspaces(q: Reader, tenantRef: string, page = SCANNED_WORKSPACES_PAGE): Promise<{ id: string; described: boolean; name: string | null; capacityId: string | null }[]> {
  const out: { id: string; described: boolean; name: string | null; capacityId: string | null }[] = [];
  const pages = pagesByKey(async (after) => {
    const { rows } = await q.query<{ key: string; described: boolean | null; name: string | null; capacity_id: string | null }>(
      `SELECT key, (value->>'described')::boolean AS described, value->>'name' AS name, value->>'capacityId' AS capacity_id
         FROM collector_state WHERE tenant_ref = $1 AND collector = $2 AND starts_with(key, $3) AND key > $4
        ORDER BY key LIMIT $5`,
      [tenantRef, SCANNER, WORKSPACE_PREFIX, after, page],
    );
    return rows;
  }, page);
  for await (const rows of pages) {
    for (const r of rows) out.push({ id: r.key.slice(WORKSPACE_PREFIX.length), described: r.described === true, name: r.name, capacityId: r.capacity_id });
  }
  return out.some((w) => w.described) ? out : [];
}

/**
 * A cheap mark of the catalog (its newest change, on the database's clock, and its size), to tell
 * whether it changed since a consumer last applied it; null when the scanner described nothing yet.
 */
export async function scanCatalogVersion(q: Reader, tenantRef: string): Promise<string | null> {
  const { rows } = await q.query<{ newest: Date | null; n: number; described: number }>(
    `SELECT max(updated_at) AS newest, count(*)::int AS n, count(*) FILTER (WHERE (value->>'described')::boolean)::int AS described
       FROM collector_state WHERE tenant_ref = $1 AND collector = $2 AND key LIKE $3`,
    [tenantRef, SCANNER, `${WORKSPACE_PREFIX}%`],
  );
  const r = rows[0];
  if (!r?.newest || Number(r.described) === 0) return null;
  return `${new Date(r.newest).toISOString()}/${r.n}`;
}

/**
 * How long after a connection is made its consumers wait for the first scan instead of reading
 * workspace by workspace (a first full scan of 50,000 workspaces takes about 2 hours); past it,
 * a scanner that described nothing (the API refused, the setting off) no longer holds them back.
 */
export const FIRST_SCAN_WAIT_MS = 3 * 3_600_000;

/**
 * Whether an admin-mode consumer should wait for the scanner's first scan rather than list the
 * tenant workspace by workspace: the scanner runs for the tenant, and the connection is younger
 * than FIRST_SCAN_WAIT_MS.
 */
export async function awaitsFirstScan(q: Reader, tenant: { id: string; mode: string; created_at: Date }, now: Date): Promise<boolean> {
  if (tenant.mode !== 'admin' || now.getTime() - new Date(tenant.created_at).getTime() >= FIRST_SCAN_WAIT_MS) return false;
  const { rows } = await q.query<{ enabled: boolean }>('SELECT enabled FROM collector_schedules WHERE tenant_ref = $1 AND collector = $2', [tenant.id, SCANNER]);
  return rows[0]?.enabled === true;
}

/**
 * Whether a new admin connection's first full scan is still to complete (within the wait above):
 * until then the collectors that take the tenant's catalog from it have not seen it whole.
 */
export async function firstScanPending(q: Reader, tenant: { id: string; mode: string; created_at: Date }, now: Date): Promise<boolean> {
  if (!(await awaitsFirstScan(q, tenant, now))) return false;
  return !(await readScanProgress(q, [tenant.id])).get(tenant.id)?.lastFullScanAt;
}

/** The scan's progress, as the tenant view and /metrics show it. */
export interface ScanProgress {
  /** Workspaces the modified listings named (the tenant's, narrowed to the connection's list). */
  known: number;
  /** Of them, those a scan described. */
  described: number;
  /** Workspaces waiting for a scan, and scans asked for and not yet read. */
  queued: number;
  pendingScans: number;
  lastIncrementalScanAt: string | null;
  lastFullScanAt: string | null;
  /** When the full scan under way started; null when none is. */
  fullScanStartedAt: string | null;
  /** Workspaces set aside after their scan failed again and again (retried by the next full scan). */
  failedWorkspaces: string[];
}

export function progressOf(c: Partial<ScanCursor>): ScanProgress {
  const n = (v: unknown) => (typeof v === 'number' && Number.isFinite(v) ? v : 0);
  const t = (v: unknown) => (typeof v === 'string' ? v : null);
  return {
    known: n(c.known),
    described: n(c.described),
    queued: Array.isArray(c.queue) ? c.queue.length : 0,
    pendingScans: Array.isArray(c.pending) ? c.pending.length : 0,
    lastIncrementalScanAt: t(c.lastIncrementalAt),
    lastFullScanAt: t(c.lastFullAt),
    fullScanStartedAt: t(c.fullStartedAt),
    failedWorkspaces: Array.isArray(c.failed) ? c.failed.filter((x): x is string => typeof x === 'string') : [],
  };
}

/** The scan progress of the given tenants (those the scanner ran for), by tenant id. */
export async function readScanProgress(q: Reader, tenantRefs: string[]): Promise<Map<string, ScanProgress>> {
  if (tenantRefs.length === 0) return new Map();
  const { rows } = await q.query<{ tenant_ref: string; value: Partial<ScanCursor> }>(
    'SELECT tenant_ref, value FROM collector_state WHERE collector = $1 AND key = $2 AND tenant_ref = ANY($3::text[])',
    [SCANNER, CURSOR_KEY, tenantRefs],
  );
  return new Map(rows.map((r) => [r.tenant_ref, progressOf(r.value)]));
}

/** Every tenant's scan progress with its organization (for /metrics). */
export async function readAllScanProgress(q: Reader): Promise<(ScanProgress & { orgId: string; tenantRef: string })[]> {
  const { rows } = await q.query<{ org_id: string; tenant_ref: string; value: Partial<ScanCursor> }>(
    `SELECT t.org_id, s.tenant_ref, s.value FROM collector_state s JOIN tenants t ON t.id = s.tenant_ref
      WHERE s.collector = $1 AND s.key = $2`,
    [SCANNER, CURSOR_KEY],
  );
  return rows.map((r) => ({ orgId: r.org_id, tenantRef: r.tenant_ref, ...progressOf(r.value) }));
}

/** The scanner's whole state (for tests and tools that need more than the catalog). */
export async function readScannerState(q: Reader, tenantRef: string): Promise<Map<string, unknown>> {
  return readState<unknown>(q, tenantRef, SCANNER);
}
