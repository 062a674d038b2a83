/**
 * Tenant connections as the admin API manages them: create, list, read, change, delete. The
 * credentials are sealed before they are stored and never returned; each connection has one
 * schedule row per collector, created and changed here (the engine only leases and advances it).
 */
import { errorTexts, type ErrorParams } from './messages/errors.js';
import type { Texts } from '../orgs/language.js';
import type { AppContext } from '../context.js';
import type { Queryable } from '../db/index.js';
import { conflictError, notFoundError } from '../errors.js';
import { checkCredentialAddresses } from '../delivery/credential-rule.js';
import { newId } from '../ids.js';
import { requireOrg } from '../orgs/orgs.js';
import { COLLECTOR_DEFAULTS, COLLECTOR_NAMES, type CollectorName } from './connection/collector-names.js';
import { IMPLEMENTED_COLLECTORS } from './connection/implemented.js';
import type { TenantEndpoints } from './connection/endpoints.js';
import { checkMirroringLag, type MirroringLag } from './connection/mirroring-lag.js';
import { applyUtilization, checkUtilization, DEFAULT_UTILIZATION, utilizationOf, type UtilizationSettings } from './connection/utilization-settings.js';
import { effectiveIntervalOf, readRotations, rotationKeyOf, type RotationView } from './engine/rotation-status.js';
import type { BudgetUse } from './platform/budget.js';
import { budgetViewOf, readBudgetUseOf, type ApiBudgetView } from './platform/budget-view.js';
import { readScanProgress, type ScanProgress } from './sources/scanner/scan-catalog.js';
import {
  checkCapShare,
  checkChangeLookback,
  checkChangeRetention,
  checkCollectors,
  checkCostScopes,
  checkCredentials,
  checkEndpoints,
  checkGuid,
  checkWorkspaces,
  type CollectorSetting,
  type TenantChange,
  type TenantInput,
  type TenantMode,
} from './connection/tenant-input.js';
import { auditTarget } from '../access/audit-context.js';
import { endpointsOf, loadTenant, mirroringLagOf, TENANT_COLUMNS, type TenantRow } from './connection/tenant-row.js';


export interface ScheduleRow {
  tenant_ref: string;
  collector: CollectorName;
  enabled: boolean;
  interval_seconds: number;
  next_run_at: Date;
  /** A lease is held (by the database's clock, as leases are kept). */
  running: boolean;
  last_run_at: Date | null;
  last_success_at: Date | null;
  last_duration_ms: number | null;
  last_calls: number | null;
  last_throttled_calls: number | null;
  last_error: string | null;
  last_error_code: string | null;
  last_error_params: ErrorParams | null;
  last_polled: number | null;
  last_deferred: number | null;
  last_rejected: number | null;
  last_rejected_note: string | null;
}

export interface CollectorView {
  name: CollectorName;
  enabled: boolean;
  intervalSeconds: number;
  defaultIntervalSeconds: number;
  lastRunAt: string | null;
  lastSuccessAt: string | null;
  nextRunAt: string | null;
  lastDurationMs: number | null;
  lastCalls: number | null;
  lastThrottledCalls: number | null;
  lastError: string | null;
  /** The last failure as a code of the error catalog (messages/errors.ts) and its facts; null when none (or recorded before migration 414). */
  lastErrorCode: string | null;
  lastErrorParams: ErrorParams | null;
  /** The last failure in both languages, from the catalog (or `lastError` as stored, in both, for a failure recorded without a code). */
  lastErrorText: Texts | null;
  /** Resources the last run read, for collectors that read resources one by one (null for the others, and before a run). */
  lastPolled: number | null;
  /** Resources that were due and that the last run left for a later run (CollectorBehind when it lasts). */
  lastDeferred: number | null;
  /** Rows the platform served that the last run skipped as unbelievable (a figure out of range, a malformed event); null when it does not check rows. */
  lastRejected: number | null;
  /** Why (the first few rows' reasons); null when none was skipped. */
  lastRejectedNote: string | null;
  running: boolean;
  /** For a collector that rotates through a large tenant: its last full rotation and hot/cold counts. */
  rotation: RotationView | null;
  /** The interval it runs at: intervalSeconds, or longer when its budget cannot honour it (engine/rotation-status.ts). */
  effectiveIntervalSeconds: number;
  /** Why effectiveIntervalSeconds is longer; null when it is not. */
  effectiveIntervalNote: string | null;
}

export interface TenantView {
  id: string;
  name: string;
  tenantId: string;
  clientId: string;
  credentialType: 'secret' | 'certificate';
  credentialsSet: true;
  mode: TenantMode;
  workspaces: string[] | null;
  costScopes: string[];
  endpoints: TenantEndpoints;
  mirroringLag: MirroringLag;
  utilization: UtilizationSettings;
  pageFindingsAtConnection: boolean;
  /** Vigia's share of each documented per-tenant cap, in percent. */
  capSharePercent: number;
  /** Days of changes from the activity log kept (1–400). */
  changeRetentionDays: number;
  /** How far back before an incident the join of changes looks, in minutes (default 1440). */
  changeLookbackMinutes: number;
  createdAt: string;
  updatedAt: string;
  collectors: CollectorView[];
  /** Calls of the last hour against each cap Vigia keeps (families, and endpoints capped per tenant that were called). */
  apiBudget: ApiBudgetView[];
  /** Admin mode's metadata scanning (the scanner collector): workspaces described of those known; null before its first run. */
  scan: ScanProgress | null;
}

const SCHEDULE_COLUMNS =
  'tenant_ref, collector, enabled, interval_seconds, next_run_at, coalesce(locked_until > now(), false) AS running, last_run_at, last_success_at, last_duration_ms, last_calls, last_throttled_calls, last_error, last_error_code, last_error_params, last_polled, last_deferred, last_rejected, last_rejected_note';

/** The last failure's code, facts and text in both languages. */
function lastErrorOf(s: ScheduleRow | undefined): Pick<CollectorView, 'lastErrorCode' | 'lastErrorParams' | 'lastErrorText'> {
  if (!s?.last_error) return { lastErrorCode: null, lastErrorParams: null, lastErrorText: null };
  if (!s.last_error_code) return { lastErrorCode: null, lastErrorParams: null, lastErrorText: { en: s.last_error, 'pt-BR': s.last_error } };
  const params = s.last_error_params ?? {};
  return { lastErrorCode: s.last_error_code, lastErrorParams: params, lastErrorText: errorTexts({ code: s.last_error_code, params }) };
}

const iso = (d: Date | null) => (d ? new Date(d).toISOString() : null);

function toView(row: TenantRow, schedules: ScheduleRow[], rotations: Map<string, RotationView>, budget: BudgetUse[], scans: Map<string, ScanProgress>): TenantView {
  const byName = new Map(schedules.map((s) => [s.collector, s]));
  return {
    id: row.id,
    name: row.name,
    tenantId: row.tenant_id,
    clientId: row.client_id,
    credentialType: row.credential_type,
    credentialsSet: true,
    mode: row.mode,
    workspaces: row.workspaces,
    costScopes: row.cost_scopes,
    endpoints: endpointsOf(row),
    mirroringLag: mirroringLagOf(row),
    utilization: utilizationOf(row.utilization),
    pageFindingsAtConnection: row.page_findings_at_connection,
    capSharePercent: row.cap_share_percent,
    changeRetentionDays: row.change_retention_days,
    changeLookbackMinutes: row.change_lookback_minutes,
    createdAt: iso(row.created_at)!,
    updatedAt: iso(row.updated_at)!,
    collectors: COLLECTOR_NAMES.map((name) => {
      const s = byName.get(name);
      const scheduled = s?.enabled && IMPLEMENTED_COLLECTORS.has(name);
      const rotation = rotations.get(rotationKeyOf(row.id, name)) ?? null;
      const effective = effectiveIntervalOf(name, s?.interval_seconds ?? COLLECTOR_DEFAULTS[name], rotation);
      return {
        name,
        enabled: s?.enabled ?? false,
        intervalSeconds: s?.interval_seconds ?? COLLECTOR_DEFAULTS[name],
        defaultIntervalSeconds: COLLECTOR_DEFAULTS[name],
        lastRunAt: iso(s?.last_run_at ?? null),
        lastSuccessAt: iso(s?.last_success_at ?? null),
        nextRunAt: scheduled ? iso(s!.next_run_at) : null,
        lastDurationMs: s?.last_duration_ms ?? null,
        lastCalls: s?.last_calls ?? null,
        lastThrottledCalls: s?.last_throttled_calls ?? null,
        lastError: s?.last_error ?? null,
        ...lastErrorOf(s),
        lastPolled: s?.last_polled ?? null,
        lastDeferred: s?.last_deferred ?? null,
        lastRejected: s?.last_rejected ?? null,
        lastRejectedNote: s?.last_rejected_note ?? null,
        running: s?.running ?? false,
        rotation,
        effectiveIntervalSeconds: effective.seconds,
        effectiveIntervalNote: effective.note,
      };
    }),
    apiBudget: budgetViewOf(budget, row.cap_share_percent),
    scan: scans.get(row.id) ?? null,
  };
}

async function views(ctx: AppContext, rows: TenantRow[]): Promise<TenantView[]> {
  if (rows.length === 0) return [];
  const { rows: schedules } = await ctx.db.query<ScheduleRow>(
    `SELECT ${SCHEDULE_COLUMNS} FROM collector_schedules WHERE tenant_ref = ANY($1::text[])`,
    [rows.map((r) => r.id)],
  );
  const rotations = await readRotations(ctx.db, rows.map((r) => r.id));
  const budgets = await readBudgetUseOf(ctx.db, rows.map((r) => r.tenant_id), ctx.clock.now());
  const scans = await readScanProgress(ctx.db, rows.map((r) => r.id));
  return rows.map((r) => toView(r, schedules.filter((s) => s.tenant_ref === r.id), rotations, budgets.get(r.tenant_id) ?? [], scans));
}

/** A schedule row per collector, each due now (a new connection collects at once). */
async function createSchedules(q: Queryable, tenantRef: string, orgId: string, settings: Record<string, CollectorSetting>, now: Date): Promise<void> {
  await q.query(
    `INSERT INTO collector_schedules (tenant_ref, collector, org_id, enabled, interval_seconds, next_run_at)
     SELECT $1, n, $2, e, i, $6 FROM unnest($3::text[], $4::boolean[], $5::int[]) AS u(n, e, i)`,
    [
      tenantRef,
      orgId,
      COLLECTOR_NAMES,
      COLLECTOR_NAMES.map((n) => settings[n]?.enabled ?? IMPLEMENTED_COLLECTORS.has(n)),
      COLLECTOR_NAMES.map((n) => settings[n]?.intervalSeconds ?? COLLECTOR_DEFAULTS[n]),
      now,
    ],
  );
}

/** Changes the given collectors; a shorter interval brings the next run forward, never later. */
async function changeSchedules(q: Queryable, tenantRef: string, settings: Record<string, CollectorSetting>, now: Date): Promise<void> {
  const names = Object.keys(settings);
  if (names.length === 0) return;
  await q.query(
    `UPDATE collector_schedules s SET enabled = COALESCE(u.e, s.enabled), interval_seconds = COALESCE(u.i, s.interval_seconds),
       next_run_at = LEAST(s.next_run_at, $5::timestamptz + make_interval(secs => COALESCE(u.i, s.interval_seconds)))
     FROM unnest($2::text[], $3::boolean[], $4::int[]) AS u(n, e, i)
     WHERE s.tenant_ref = $1 AND s.collector = u.n`,
    [tenantRef, names, names.map((n) => settings[n]!.enabled ?? null), names.map((n) => settings[n]!.intervalSeconds ?? null), now],
  );
}

/** A connection's addresses as the credential rule reads them (src/delivery/credential-origins.ts, `tenant`). */
function addressesOf(endpoints: Partial<TenantEndpoints>, utilization: UtilizationSettings): Record<string, unknown> {
  return { endpoints: endpointsOf({ endpoints }), utilization: { eventhouse: utilization.eventhouse } };
}

/** The endpoint overrides after a change: given fields replace, null ones (or `endpoints: null`) go back to the public cloud. */
function mergeEndpoints(current: Partial<TenantEndpoints>, change: TenantChange['endpoints'], set: Partial<TenantEndpoints>): Partial<TenantEndpoints> {
  if (change === undefined) return current;
  const kept = Object.fromEntries(Object.entries(current).filter(([k]) => change !== null && !(k in change)));
  return { ...kept, ...set };
}

export async function createTenant(ctx: AppContext, orgId: string, input: TenantInput): Promise<TenantView> {
  await requireOrg(ctx.db, orgId);
  const tenantId = checkGuid(input.tenantId, 'tenantId');
  const clientId = checkGuid(input.clientId, 'clientId');
  const credentials = checkCredentials(input.credentials);
  const workspaces = checkWorkspaces(input.workspaces);
  const costScopes = checkCostScopes(input.costScopes);
  const collectors = checkCollectors(input.collectors);
  const endpoints = checkEndpoints(input.endpoints);
  const lag = checkMirroringLag(input.mirroringLag);
  const utilization = applyUtilization(DEFAULT_UTILIZATION, checkUtilization(input.utilization));
  await checkCredentialAddresses(ctx, {
    subject: 'tenant',
    orgId,
    before: addressesOf({}, DEFAULT_UTILIZATION),
    after: addressesOf(endpoints, utilization),
    credentialsGiven: true,
    storedCredentials: [],
  });
  const capShare = checkCapShare(input.capSharePercent);
  const retention = checkChangeRetention(input.changeRetentionDays);
  const lookback = checkChangeLookback(input.changeLookbackMinutes);
  const now = ctx.clock.now();
  const id = newId('tnt', now);
  auditTarget(id);
  const row = await ctx.db.tx(async (q) => {
    const { rows } = await q.query<TenantRow>(
      `INSERT INTO tenants (id, org_id, name, tenant_id, client_id, credential_type, credentials_sealed, mode, workspaces, cost_scopes, endpoints,
         mirroring_lag_info_seconds, mirroring_lag_error_seconds, utilization, page_findings_at_connection, cap_share_percent, change_retention_days, change_lookback_minutes, created_at, updated_at)
       VALUES ($1, $2, $3, $4, $5, $6, $7, $8, $9, $10, $11, $13, $14, $15::jsonb, $16, COALESCE($17::int, 50), COALESCE($18::int, 30), COALESCE($19::int, 1440), $12, $12) RETURNING ${TENANT_COLUMNS}`,
      [
        id, orgId, input.name, tenantId, clientId, credentials.type, ctx.sealer.sealJson(credentials.value), input.mode,
        workspaces ? JSON.stringify(workspaces) : null, JSON.stringify(costScopes), JSON.stringify(endpoints), now,
        lag.infoSeconds, lag.errorSeconds, JSON.stringify(utilization), input.pageFindingsAtConnection ?? false, capShare ?? null, retention ?? null, lookback ?? null,
      ],
    );
    await createSchedules(q, id, orgId, collectors, now);
    return rows[0]!;
  });
  return (await views(ctx, [row]))[0]!;
}

export async function listTenants(ctx: AppContext, orgId: string): Promise<TenantView[]> {
  await requireOrg(ctx.db, orgId);
  const { rows } = await ctx.db.query<TenantRow>(`SELECT ${TENANT_COLUMNS} FROM tenants WHERE org_id = $1 ORDER BY created_at, id`, [orgId]);
  return views(ctx, rows);
}

export async function getTenant(ctx: AppContext, orgId: string, id: string): Promise<TenantView> {
  return (await views(ctx, [await loadTenant(ctx.db, orgId, id)]))[0]!;
}

/**
 * Changes the given fields; `endpoints` fields merge (null puts a field back to the public
 * cloud). The addresses (endpoints, Eventhouse query URI) pass the credential rule on a read of
 * the row, before it is locked (it may resolve host names); the change is then applied to the
 * row locked in one transaction, so concurrent changes of other fields are all kept, and a
 * concurrent change of the addresses makes this one a 409. `addressFromPlatform`: the Eventhouse
 * query URI was named by the platform's own answer to the connection (utilization-setup.ts), so
 * it needs no credentials again (its hosts and DNS are still checked).
 */
export async function updateTenant(
  ctx: AppContext,
  orgId: string,
  id: string,
  b: TenantChange,
  opts: { addressFromPlatform?: boolean } = {},
): Promise<TenantView> {
  const read = await loadTenant(ctx.db, orgId, id); // an unknown tenant is 404 before its input is judged
  const tenantId = b.tenantId !== undefined ? checkGuid(b.tenantId, 'tenantId') : undefined;
  const clientId = b.clientId !== undefined ? checkGuid(b.clientId, 'clientId') : undefined;
  const credentials = b.credentials !== undefined ? checkCredentials(b.credentials) : null;
  const workspaces = b.workspaces !== undefined ? checkWorkspaces(b.workspaces) : undefined;
  const costScopes = b.costScopes !== undefined ? checkCostScopes(b.costScopes) : undefined;
  const collectors = checkCollectors(b.collectors);
  const capShare = checkCapShare(b.capSharePercent);
  const retention = checkChangeRetention(b.changeRetentionDays);
  const lookback = checkChangeLookback(b.changeLookbackMinutes);
  const endpointsSet = b.endpoints ? checkEndpoints(Object.fromEntries(Object.entries(b.endpoints).filter(([, v]) => v !== null))) : {};
  const utilizationChange = checkUtilization(b.utilization);
  const before = addressesOf(read.endpoints, utilizationOf(read.utilization));
  await checkCredentialAddresses(ctx, {
    subject: 'tenant',
    orgId,
    before,
    after: addressesOf(mergeEndpoints(read.endpoints, b.endpoints, endpointsSet), applyUtilization(utilizationOf(read.utilization), utilizationChange)),
    credentialsGiven: credentials !== null || (opts.addressFromPlatform === true && b.endpoints === undefined),
    storedCredentials: ['credentials'],
  });
  const movesAddresses = b.endpoints !== undefined || utilizationChange.eventhouse !== undefined;
  const now = ctx.clock.now();
  const row = await ctx.db.tx(async (q) => {
    const { rows: locked } = await q.query<TenantRow>(`SELECT ${TENANT_COLUMNS} FROM tenants WHERE org_id = $1 AND id = $2 FOR UPDATE`, [orgId, id]);
    const current = locked[0];
    if (!current) throw notFoundError('tenant');
    if (movesAddresses && JSON.stringify(addressesOf(current.endpoints, utilizationOf(current.utilization))) !== JSON.stringify(before)) {
      throw conflictError("the connection's addresses changed while this change was checked; try again");
    }
    const lag = checkMirroringLag(b.mirroringLag, mirroringLagOf(current));
    const utilization = applyUtilization(utilizationOf(current.utilization), utilizationChange);
    const endpoints = mergeEndpoints(current.endpoints, b.endpoints, endpointsSet);
    const nextWorkspaces = workspaces !== undefined ? workspaces : current.workspaces;
    const { rows } = await q.query<TenantRow>(
      `UPDATE tenants SET name = COALESCE($3, name), tenant_id = $4, client_id = $5,
         credential_type = COALESCE($6, credential_type), credentials_sealed = COALESCE($7, credentials_sealed),
         mode = COALESCE($8, mode), workspaces = $9::jsonb, cost_scopes = $10::jsonb, endpoints = $11::jsonb, updated_at = $12,
         mirroring_lag_info_seconds = $13, mirroring_lag_error_seconds = $14, utilization = $15::jsonb,
         page_findings_at_connection = COALESCE($16, page_findings_at_connection),
         cap_share_percent = COALESCE($17::int, cap_share_percent),
         change_retention_days = COALESCE($18::int, change_retention_days),
         change_lookback_minutes = COALESCE($19::int, change_lookback_minutes)
       WHERE org_id = $1 AND id = $2 RETURNING ${TENANT_COLUMNS}`,
      [
        orgId, id, b.name ?? null, tenantId ?? current.tenant_id, clientId ?? current.client_id, credentials?.type ?? null,
        credentials ? ctx.sealer.sealJson(credentials.value) : null, b.mode ?? null,
        nextWorkspaces ? JSON.stringify(nextWorkspaces) : null, JSON.stringify(costScopes ?? current.cost_scopes), JSON.stringify(endpoints), now,
        lag.infoSeconds, lag.errorSeconds, JSON.stringify(utilization), b.pageFindingsAtConnection ?? null, capShare ?? null, retention ?? null,
        lookback ?? null,
      ],
    );
    await changeSchedules(q, id, collectors, now);
    return rows[0]!;
  });
  return (await views(ctx, [row]))[0]!;
}
