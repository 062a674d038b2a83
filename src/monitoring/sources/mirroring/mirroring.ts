/**
 * mirroring — Fabric mirrored databases and their tables (docs/monitoring.md, "mirroring").
 *
 * Per database: `getMirroringStatus`; a database whose mirroring is Stopped or Paused, or that
 * reports an error, opens `Mirroring` / `MirroringStopped` (error). Per table
 * (`getTablesMirroringStatus`, paged): a `Failed` table opens `MirroringTableFailed` (error),
 * one incident per table (sourceId `{database id}/{schema}.{table}`, lower case); a replication
 * lag (`lastSyncLatencyInSeconds`) over the tenant's `mirroringLag.infoSeconds` opens
 * `MirroringLag` (info), over `errorSeconds` `MirroringLagSevere` (error). The lifecycle keeps
 * one severity per incident, so a change of level is a change of kind: the incident of the
 * level left recovers in the same run the other opens. Everything recovers when healthy again,
 * or when the database or table disappears.
 *
 * Causes: a database on a capacity that is not active names the capacity; while a database is
 * down its tables' failures and lags name the database (their lag grows because it stopped).
 * Every Fabric call of a run is planned in its budget (run-budget.ts): the workspaces list, in
 * member mode the workspaces' database lists (new workspaces first, the others re-listed in turns
 * with what the polls leave), and the polls — databases with an open problem every run, the
 * others in turns (rotation.ts). In admin mode the listing (fabric-admin workspaces and items,
 * capped per tenant) is paid from a paced budget on a share of Vigia's allowance there.
 */
import type { SignalCause, SignalInput } from '../../../alerts/signals.js';
import { HOURLY_CAPS } from '../../platform/budget.js';
import type { Collector, } from '../../engine/collector.js';
import type { LineageChanges } from '../../lineage/lineage.js';
import type { MirroringLag } from '../../connection/mirroring-lag.js';
import type { StateChange } from '../../engine/output.js';
import { isResourceRefusal, type PlatformClient } from '../../platform/platform-client.js';
import { causesOf, openRootCauses, type OpenRootCauses } from '../../lineage/root-causes.js';
import { ROTATION_KEY, pickForRun, progressOf, type RotationState } from '../../engine/rotation.js';
import { CallBudget, listingIsDue, PacedBudget, type PaceState, runBudget } from '../../platform/run-budget.js';
import { mirroringLagOf } from '../../connection/tenant-row.js';
import { listMirroredDatabasesAsAdmin, listWorkspaceDatabases, readMirroringStatus, readTables, type DatabaseStatus, type MirroredDatabaseFact, type TableFact } from './mirroring-reads.js';
import { databaseIsDown, lagLevel, tableIsFailed, type LagLevel } from './mirroring-verdicts.js';
import { readWorkspaces, type WorkspaceFact } from '../../platform/reads.js';
import { inPool } from '../../platform/pool.js';
import * as T from '../../messages/titles.js';
import type { Said } from '../../messages/titles.js';

export const MIRRORING_SOURCE = 'Mirroring';
export const MIRRORING_STOPPED = 'MirroringStopped';
export const MIRRORING_TABLE_FAILED = 'MirroringTableFailed';
export const MIRRORING_LAG = 'MirroringLag';
export const MIRRORING_LAG_SEVERE = 'MirroringLagSevere';

/** Share of the Fabric hourly cap this collector may spend; a database costs two calls (status, one tables page). */
const FABRIC_SHARE = 0.2;
const CALLS_PER_DATABASE = 2;
/** Member mode: at most this share of a run's budget lists workspaces' databases. */
const LIST_SHARE = 0.25;
const DB_PREFIX = 'db:';
const WS_PREFIX = 'ws:';
const LISTING_KEY = 'listing';
/** Admin mode: the listing's paced budget on the fabric-admin endpoints (run-budget.ts PacedBudget). */
const ADMIN_PACE_KEY = 'admin:pace';
/**
 * Share of Vigia's allowance on the fabric-admin workspaces and items endpoints (its share of
 * 200/h each per tenant) for this listing; the inventory and the jobs listing use them too.
 */
const ADMIN_LISTING_SHARE = 0.25;

interface TableMemo {
  name: string;
  failed: boolean;
  lag: LagLevel;
}

interface DatabaseMemo {
  name: string;
  workspaceName: string | null;
  down: boolean;
  tables: Record<string, TableMemo>;
}

const hasProblem = (m: DatabaseMemo | undefined) => !!m && (m.down || Object.values(m.tables).some((t) => t.failed || t.lag !== 'none'));

/** The signals of one polled database, given its previous memo; returns the new memo. */
function judgeDatabase(
  db: MirroredDatabaseFact,
  status: DatabaseStatus,
  tables: TableFact[],
  prev: DatabaseMemo | undefined,
  thresholds: MirroringLag,
  open: OpenRootCauses,
  now: Date,
  out: { database: SignalInput[]; tables: SignalInput[] },
): DatabaseMemo {
  const down = databaseIsDown(status, prev?.down ?? false);
  const capacityCauses = causesOf(open, { capacityId: db.capacityId });
  const dbBase = {
    sourceType: MIRRORING_SOURCE, sourceId: db.id, sourceName: db.name, notificationKind: MIRRORING_STOPPED, severity: 'error' as const,
    workspaceName: db.workspaceName, occurredAt: now,
  };
  if (down && !prev?.down) {
    out.database.push({ ...dbBase, kind: 'failure', causes: capacityCauses, ...T.mirroringStopped(db.name, status.status, status.errorCode ?? null, status.errorMessage ?? null) });
  } else if (!down && prev?.down) {
    out.database.push({ ...dbBase, kind: 'recovery', ...T.mirroringRunning(db.name, status.status) });
  }

  // While the database is down, what happens to its tables follows from it.
  const tableCauses: SignalCause[] = [...capacityCauses, ...(down ? [{ sourceType: MIRRORING_SOURCE, sourceId: db.id }] : [])];
  const memo: DatabaseMemo = { name: db.name, workspaceName: db.workspaceName, down, tables: {} };
  for (const t of tables) {
    const before = prev?.tables[t.key];
    const current: TableMemo = { name: t.name, failed: tableIsFailed(t.status), lag: lagLevel(t.latencySeconds, thresholds, before?.lag ?? 'none') };
    memo.tables[t.key] = current;
    const base = { sourceType: MIRRORING_SOURCE, sourceId: `${db.id}/${t.key}`, sourceName: `${db.name} / ${t.name}`, workspaceName: db.workspaceName, occurredAt: now };
    const label = `${db.name} / ${t.name}`;
    if (current.failed && !before?.failed) {
      const code = t.errorCode ?? 'UnknownError';
      out.tables.push({ ...base, notificationKind: MIRRORING_TABLE_FAILED, severity: 'error', kind: 'failure', causes: tableCauses,
        ...T.mirroredTableFailed(label, code, t.errorMessage ?? null) });
    } else if (!current.failed && before?.failed) {
      out.tables.push({ ...base, notificationKind: MIRRORING_TABLE_FAILED, severity: 'error', kind: 'recovery', ...T.mirroredTableRunning(label, t.status) });
    }
    const was = before?.lag ?? 'none';
    if (was !== current.lag) {
      if (was !== 'none') out.tables.push(lagSignal(base, was, 'recovery', T.mirroredTableLagOver(label, t.latencySeconds, was === 'error' ? thresholds.errorSeconds : thresholds.infoSeconds), []));
      if (current.lag !== 'none') {
        const limit = current.lag === 'error' ? thresholds.errorSeconds : thresholds.infoSeconds;
        out.tables.push(lagSignal(base, current.lag, 'failure', T.mirroredTableLags(label, t.latencySeconds, limit), tableCauses));
      }
    }
  }
  for (const [key, memoT] of Object.entries(prev?.tables ?? {})) {
    if (!(key in memo.tables)) out.tables.push(...tableGone(db.id, db.name, key, memoT, now));
  }
  return memo;
}

function lagSignal(base: Omit<SignalInput, 'kind' | 'title' | 'message' | 'notificationKind'>, level: LagLevel, kind: 'failure' | 'recovery', said: Said, causes: SignalCause[]): SignalInput {
  return { ...base, notificationKind: level === 'error' ? MIRRORING_LAG_SEVERE : MIRRORING_LAG, severity: level === 'error' ? 'error' : 'info', kind, ...said, ...(kind === 'failure' ? { causes } : {}) };
}

/** A table no longer listed (or its database gone): its incidents recover. */
function tableGone(dbId: string, dbName: string, key: string, m: TableMemo, now: Date): SignalInput[] {
  const label = `${dbName} / ${m.name}`;
  const base = { sourceType: MIRRORING_SOURCE, sourceId: `${dbId}/${key}`, sourceName: label, occurredAt: now, kind: 'recovery' as const, ...T.mirroredTableGone(label) };
  const out: SignalInput[] = [];
  if (m.failed) out.push({ ...base, notificationKind: MIRRORING_TABLE_FAILED, severity: 'error' });
  if (m.lag !== 'none') out.push({ ...base, notificationKind: m.lag === 'error' ? MIRRORING_LAG_SEVERE : MIRRORING_LAG, severity: m.lag === 'error' ? 'error' : 'info' });
  return out;
}

/** A database no longer watched: its incident and its tables' recover. */
function databaseGone(dbId: string, m: DatabaseMemo, now: Date): SignalInput[] {
  const out: SignalInput[] = [];
  if (m.down) {
    out.push({
      sourceType: MIRRORING_SOURCE, sourceId: dbId, sourceName: m.name, notificationKind: MIRRORING_STOPPED, severity: 'error', workspaceName: m.workspaceName,
      occurredAt: now, kind: 'recovery', ...T.mirroredDatabaseGone(m.name),
    });
  }
  for (const [key, t] of Object.entries(m.tables)) out.push(...tableGone(dbId, m.name, key, t, now));
  return out;
}

/** Long database and table names (256 + 128 + 128 characters) must not fail the run: names and titles are cut to the signal's limits. */
function fitted(s: SignalInput): SignalInput {
  const cut = (v: string, n: number) => (v.length <= n ? v : `${v.slice(0, n - 1)}…`);
  return { ...s, sourceName: cut(s.sourceName, 500), title: typeof s.title === 'string' ? cut(s.title, 500) : { en: cut(s.title.en, 500), 'pt-BR': cut(s.title['pt-BR'], 500) } };
}

/** The watched workspaces as last listed and, in admin mode, the tenant's mirrored databases. */
interface MirroringListing {
  listedAt: string;
  workspaces: WorkspaceFact[];
  databases?: MirroredDatabaseFact[];
}

/** Member mode: the mirrored databases of a workspace as last listed (re-listed in turns, see watchedDatabases). */
interface WorkspaceListing {
  listedAt: string;
  /** [database id (lower case), name] */
  databases: [string, string][];
}

/**
 * Member mode: the databases of the watched workspaces, each workspace's list read within the
 * run's budget — never-listed workspaces first (up to LIST_SHARE of the budget), then, after the
 * databases were polled, those listed longest ago with what is left (`relist`). A small tenant is
 * re-listed every run; a large one in turns, so a run never lists every workspace.
 */
async function watchedDatabases(
  client: PlatformClient,
  workspaces: WorkspaceFact[],
  state: Map<string, unknown>,
  budget: CallBudget,
  now: Date,
  changes: StateChange[],
): Promise<{ databases: MirroredDatabaseFact[]; relist: () => Promise<void> }> {
  const listings = new Map<string, WorkspaceListing>();
  for (const w of workspaces) {
    const known = state.get(WS_PREFIX + w.id) as WorkspaceListing | undefined;
    if (known) listings.set(w.id, known);
  }
  const watched = new Set(workspaces.map((w) => WS_PREFIX + w.id));
  for (const key of state.keys()) if (key.startsWith(WS_PREFIX) && !watched.has(key)) changes.push({ key, value: null });
  const share = Math.max(1, Math.floor(budget.total * LIST_SHARE));
  const list = async (due: WorkspaceFact[]) => {
    await inPool(due, async (w) => {
      let databases: [string, string][];
      try {
        databases = await listWorkspaceDatabases(client, w.id);
      } catch (err) {
        // The principal left the workspace between the two lists: nothing of it is watched.
        if (!isResourceRefusal(err)) throw err;
        databases = [];
      }
      const listing = { listedAt: now.toISOString(), databases };
      listings.set(w.id, listing);
      changes.push({ key: WS_PREFIX + w.id, value: listing });
    });
  };
  const fresh = workspaces.filter((w) => !listings.has(w.id)).slice(0, share);
  await charged(client, budget, fresh.length, () => list(fresh));
  const databases = workspaces.flatMap((w) =>
    (listings.get(w.id)?.databases ?? []).map(([id, name]) => ({ id, name, workspaceId: w.id, workspaceName: w.name, capacityId: w.capacityId })),
  );
  const relist = async () => {
    const room = Math.min(budget.left, share - fresh.length);
    const oldest = workspaces
      .filter((w) => listings.has(w.id) && !fresh.includes(w))
      .sort((a, b) => listings.get(a.id)!.listedAt.localeCompare(listings.get(b.id)!.listedAt) || a.id.localeCompare(b.id))
      .slice(0, Math.max(0, room));
    await charged(client, budget, oldest.length, () => list(oldest));
  };
  return { databases, relist };
}

/** Admin mode's listing reads both fabric-admin endpoints: the tighter allowance of the two. */
async function adminAllowance(client: PlatformClient): Promise<number> {
  return Math.min(await client.allowedPerHour('fabric-admin:workspaces'), await client.allowedPerHour('fabric-admin:items'));
}

/** Takes `planned` calls from the run's budget, makes them, and charges what they took beyond (further pages). */
async function charged(client: PlatformClient, budget: CallBudget, planned: number, calls: () => Promise<void>): Promise<void> {
  if (planned <= 0) return;
  budget.charge(planned);
  const before = client.callsMade;
  try {
    await calls();
  } finally {
    budget.charge(client.callsMade - before - planned);
  }
}

export const mirroringCollector: Collector = {
  name: 'mirroring',
  async run(run) {
    const { ctx, tenant, client, state, reader, commit } = run;
    const now = ctx.clock.now();
    const thresholds = mirroringLagOf(tenant);
    const changes: StateChange[] = [];
    // Every Fabric call of the run comes out of this budget: the listings and the polls.
    const budget = new CallBudget(runBudget(HOURLY_CAPS.fabric, FABRIC_SHARE, run.intervalSeconds));
    const member = tenant.mode !== 'admin';
    // The workspace list (and in admin mode the tenant's database list, fabric-admin) is kept
    // between runs and read again after LISTING_REFRESH_MS; member mode pays it from this budget.
    const cached = state.get(LISTING_KEY) as MirroringListing | undefined;
    // Admin mode lists through fabric-admin endpoints the platform caps per tenant: the listing is
    // paid from a paced budget on a share of Vigia's allowance there (a long listing waits longer).
    const admin = member ? null : new PacedBudget((await adminAllowance(client)) * ADMIN_LISTING_SHARE, run.intervalSeconds, state.get(ADMIN_PACE_KEY) as PaceState | undefined, now);
    let listing: MirroringListing;
    if (!cached || (!member && !cached.databases) || (listingIsDue(cached.listedAt, now) && (member || admin!.left > 0))) {
      let workspaces: WorkspaceFact[] = [];
      let databases: MirroredDatabaseFact[] | undefined;
      await charged(client, admin ?? budget, 1, async () => {
        workspaces = await readWorkspaces(client, tenant);
        if (!member) databases = await listMirroredDatabasesAsAdmin(client, workspaces);
      });
      listing = { listedAt: now.toISOString(), workspaces, ...(member ? {} : { databases }) };
      changes.push({ key: LISTING_KEY, value: listing });
      if (admin) changes.push({ key: ADMIN_PACE_KEY, value: admin.pace() });
    } else {
      listing = cached;
    }
    const { databases, relist } = member
      ? await watchedDatabases(client, listing.workspaces, state, budget, now, changes)
      : { databases: listing.databases ?? [], relist: async () => {} };
    const listed = new Set(databases.map((d) => d.id));
    const gone = [...state.keys()].filter((k) => k.startsWith(DB_PREFIX) && !listed.has(k.slice(DB_PREFIX.length)));

    const lineage: LineageChanges = {
      placements: databases.map((d) => ({ itemId: d.id, itemType: 'MirroredDatabase', itemName: d.name, workspaceId: d.workspaceId, capacityId: d.capacityId })),
      forget: gone.map((k) => k.slice(DB_PREFIX.length)),
    };
    const open = await openRootCauses(reader, tenant.org_id);

    const isHot = (d: MirroredDatabaseFact) => hasProblem(state.get(DB_PREFIX + d.id) as DatabaseMemo | undefined);
    const pick = pickForRun(databases, {
      key: (d) => d.id,
      isHot,
      budget: Math.floor(budget.left / CALLS_PER_DATABASE),
      state: state.get(ROTATION_KEY) as RotationState | undefined,
      now,
    });

    const out = { database: [] as SignalInput[], tables: [] as SignalInput[] };
    const read = new Set<string>();
    await charged(client, budget, pick.poll.length * CALLS_PER_DATABASE, () =>
      inPool(pick.poll, async (db) => {
        let status: DatabaseStatus;
        let tables: TableFact[];
        try {
          status = await readMirroringStatus(client, db);
          tables = await readTables(client, db);
        } catch (err) {
          if (!isResourceRefusal(err)) throw err;
          read.add(db.id); // removed since the list, or access taken away: keep what is known
          return;
        }
        read.add(db.id);
        const key = DB_PREFIX + db.id;
        const prev = state.get(key) as DatabaseMemo | undefined;
        const memo = judgeDatabase(db, status, tables, prev, thresholds, open, now, out);
        if (JSON.stringify(memo) !== JSON.stringify(prev)) changes.push({ key, value: memo });
      }),
    );
    await relist();
    for (const key of gone) {
      out.database.push(...databaseGone(key.slice(DB_PREFIX.length), state.get(key) as DatabaseMemo, now));
      changes.push({ key, value: null });
    }
    changes.push({ key: ROTATION_KEY, value: pick.next });
    run.reportProgress(progressOf(databases, isHot, (d) => read.has(d.id)));
    // Databases first: a table's failure then finds its database's incident as its cause.
    await commit([...out.database, ...out.tables].map(fitted), changes, lineage);
  },
  releaseAll(state, now) {
    return [...state].filter(([k]) => k.startsWith(DB_PREFIX)).flatMap(([k, v]) => databaseGone(k.slice(DB_PREFIX.length), v as DatabaseMemo, now)).map(fitted);
  },
};
