/**
 * An enterprise-size tenant generated lazily (issue 27 item 6): 50,000 workspaces and their
 * 200,000 semantic models are not built up front. `state.workspaces` is an array whose elements
 * are derived from their index by a deterministic function when they are read, and forgotten
 * afterwards; ids carry their index, so a lookup by id is O(1) (`workspaceById`, `itemById`).
 *
 * Writes materialize: a change goes to a workspace looked up for writing (`workspaceById` /
 * `itemById` with `forWrite`, as the control operations do), which keeps it as plain data from
 * then on, so the change is seen by every later read. A change made to an object obtained by
 * reading (a listing) is not kept: the next read derives the object again. Scheduled refreshes
 * (`scheduledRefreshes`) do not run on a lazy tenant's models unless they were materialized.
 * The small parts of the tenant (capacities, gateways, connections, costs) stay eager: they come
 * from `generateTenant` with no workspaces.
 */
import { generateTenant } from './generate.js';
import { LAZY, lazyArray } from './lazy-array.js';
import { hash32, hex, LazyIds } from './lazy-ids.js';
import { refreshException } from './refresh-errors.js';
import type { SimGateway, SimItem, SimRefreshSchedule, SimSizes, SimState, SimWorkspace } from './types.js';

/** The enterprise tenant of issue 27: 50,000 workspaces, 200,000 models (half scheduled), 20,000 pipelines, 2,000 gateways × 3 members, 200 capacities. */
export const ENTERPRISE_SIZES: Required<SimSizes> = {
  capacities: 200,
  workspaces: 50_000,
  gateways: 2_000,
  membersPerGateway: 3,
  costDays: 90,
  cloudConnections: 0,
  mirroredTables: 3,
  runnableItems: 0,
  modelsPerWorkspace: 4,
  pipelinesPerWorkspace: 0.4,
};

/** A workspace in this many holds a mirrored database. */
const MIRRORED_EVERY = 100;
/** Share of models bound to a gateway data source, and of refreshes that failed, in 1/1000. */
const GATEWAY_BOUND_PER_MILLE = 250;
const FAILED_PER_MILLE = 10;
const REFRESH_ERRORS = ['ModelRefreshFailed_CredentialsNotSpecified', 'DM_GWPipeline_Client_GatewayUnreachable', 'Timeout', 'ModelRefresh_ShortMessage_ProcessingError'];
const WEEKDAYS = ['Monday', 'Tuesday', 'Wednesday', 'Thursday', 'Friday'];
const ALL_DAYS = ['Sunday', 'Monday', 'Tuesday', 'Wednesday', 'Thursday', 'Friday', 'Saturday'];

/** The lazy array behind `state.workspaces`, when the tenant is lazy. */
export function lazyOf(workspaces: SimWorkspace[]): LazyWorkspaces | undefined {
  return (workspaces as unknown as { [LAZY]?: LazyWorkspaces })[LAZY];
}

/**
 * A workspace by id: O(1) on a lazy tenant, a search otherwise. `forWrite`: the caller changes it,
 * so a lazy workspace is materialized (kept) first.
 */
export function workspaceById(state: SimState, id: string | undefined | null, opts: { forWrite?: boolean } = {}): SimWorkspace | undefined {
  const lazy = lazyOf(state.workspaces);
  if (lazy) return lazy.byId(id, opts.forWrite === true);
  return plainWorkspaceById(state.workspaces, String(id).toLowerCase());
}

/**
 * Index positions of a plain workspace array by lower-case id. Tests change the array in place
 * (push, splice), so an answer is checked against the array and the index rebuilt when it is
 * stale or misses: a lookup stays O(1) between changes instead of a search per request (a
 * 20,000-workspace tenant answered thousands of member-mode calls with a full search each).
 */
const plainIndexes = new WeakMap<SimWorkspace[], Map<string, number>>();

function plainWorkspaceById(workspaces: SimWorkspace[], key: string): SimWorkspace | undefined {
  const at = (index: Map<string, number>) => {
    const i = index.get(key);
    const w = i === undefined ? undefined : workspaces[i];
    return w && w.id.toLowerCase() === key ? w : undefined;
  };
  const known = plainIndexes.get(workspaces);
  const hit = known ? at(known) : undefined;
  if (hit) return hit;
  const index = new Map(workspaces.map((w, i) => [w.id.toLowerCase(), i]));
  plainIndexes.set(workspaces, index);
  return at(index);
}

/** An item (of any workspace) by id: O(1) on a lazy tenant, a search otherwise; `forWrite` as for workspaceById. */
export function itemById(state: SimState, id: string | undefined | null, opts: { forWrite?: boolean } = {}): SimItem | undefined {
  const key = String(id).toLowerCase();
  const lazy = lazyOf(state.workspaces);
  if (lazy) {
    const parsed = lazy.ids.parse(key);
    if (parsed?.kind !== 'item') return lazy.extraItem(key);
    return lazy.at(parsed.index, opts.forWrite === true)?.items.find((i) => i.id.toLowerCase() === key);
  }
  for (const w of state.workspaces) {
    const i = w.items.find((x) => x.id.toLowerCase() === key);
    if (i) return i;
  }
  return undefined;
}

export interface LazyTenantSpec {
  seed: number;
  sizes: Required<SimSizes>;
  now: number;
  capacityIds: string[];
  gateways: SimGateway[];
}

/** The workspaces of a lazy tenant: generated per index on read, kept once written. */
export class LazyWorkspaces {
  readonly ids: LazyIds;
  /** Workspaces changed since generation (or added): kept as plain data. */
  readonly pinned = new Map<number, SimWorkspace>();
  length: number;
  private readonly today: number;
  private readonly models: number;
  private readonly pipelineRate: number;
  /** ISO start and end times of the generated runs, the same for every model (pipeline) of the tenant. */
  private readonly refreshTimes: Array<[string, string]>;
  private readonly jobTimes: Array<[string, string]>;

  constructor(private readonly spec: LazyTenantSpec) {
    this.ids = new LazyIds(hash32(spec.seed ^ 0x1a27e5) | 0x10000000);
    this.length = spec.sizes.workspaces;
    this.today = Math.floor(spec.now / 86_400_000) * 86_400_000;
    this.models = Math.max(0, Math.floor(spec.sizes.modelsPerWorkspace));
    this.pipelineRate = Math.max(0, spec.sizes.pipelinesPerWorkspace);
    const times = (hour: number, ms: number) =>
      [0, 1, 2].map((r): [string, string] => {
        const start = this.today - (r + 1) * 86_400_000 + hour * 3_600_000;
        return [new Date(start).toISOString(), new Date(start + ms).toISOString()];
      });
    this.refreshTimes = times(6, 300_000);
    this.jobTimes = times(2, 120_000);
  }

  /**
   * The workspace at `index` (the kept one if it was changed), or undefined past the end.
   * `materialize`: keep it from now on (the caller is about to change it).
   */
  at(index: number, materialize = false): SimWorkspace | undefined {
    if (!Number.isInteger(index) || index < 0 || index >= this.length) return undefined;
    const kept = this.pinned.get(index);
    if (kept) return kept;
    const w = this.generate(index);
    if (materialize) this.pinned.set(index, w);
    return w;
  }

  byId(id: string | undefined | null, materialize = false): SimWorkspace | undefined {
    const parsed = this.ids.parse(id);
    if (parsed?.kind === 'workspace') return this.at(parsed.index, materialize);
    // Workspaces a test appended keep whatever id it gave them.
    const key = String(id).toLowerCase();
    for (const w of this.pinned.values()) if (w.id.toLowerCase() === key) return w;
    return undefined;
  }

  /** An item appended to a materialized workspace under an id of its own. */
  extraItem(key: string): SimItem | undefined {
    for (const w of this.pinned.values()) {
      const i = w.items.find((x) => x.id.toLowerCase() === key);
      if (i) return i;
    }
    return undefined;
  }

  /** How many items of `type` (any type: undefined) workspace `w` holds, without generating them unless it was changed. */
  countIn(w: number, type?: string): number {
    const kept = this.pinned.get(w);
    if (kept) return type ? kept.items.filter((i) => i.type === type).length : kept.items.length;
    const models = this.models;
    const pipelines = Math.floor((w + 1) * this.pipelineRate) - Math.floor(w * this.pipelineRate);
    const mirrored = w % MIRRORED_EVERY === MIRRORED_EVERY - 1 ? 1 : 0;
    if (type === undefined) return models + pipelines + mirrored;
    return type === 'SemanticModel' ? models : type === 'DataPipeline' ? pipelines : type === 'MirroredDatabase' ? mirrored : 0;
  }

  /** Indexes of the workspaces on a capacity (any capacity: '*'), computed once per capacity. */
  private readonly byCapacity = new Map<string, Int32Array>();
  workspacesOn(capacityId: string): Int32Array {
    const key = capacityId.toLowerCase();
    let list = this.byCapacity.get(key);
    if (!list) {
      const out: number[] = [];
      for (let w = 0; w < this.length; w++) {
        const c = this.pinned.get(w)?.capacityId ?? (this.pinned.has(w) ? null : this.capacityOf(w));
        if (c !== null && (key === '*' || c.toLowerCase() === key)) out.push(w);
      }
      list = Int32Array.from(out);
      // Changed workspaces may move: only an unchanged tenant's lists are kept.
      if (this.pinned.size === 0) this.byCapacity.set(key, list);
    }
    return list;
  }

  private capacityOf(w: number): string | null {
    const caps = this.spec.capacityIds;
    return caps.length > 0 && hash32(w ^ this.ids.tag) % 10 !== 0 ? caps[w % caps.length]! : null;
  }

  /**
   * The items of the workspaces `among` (default all), of `type` (default any), in workspace
   * order, as an array whose rows are generated when read: a page of an admin listing generates
   * that page, not the tenant.
   */
  itemRows(among?: ArrayLike<number>, type?: string): Array<{ w: SimWorkspace; i: SimItem }> {
    const list = among ?? { length: this.length };
    const at = (k: number) => (among ? among[k]! : k);
    // Prefix counts: row r is in the workspace whose range holds it.
    const ends = new Float64Array(list.length);
    let total = 0;
    for (let k = 0; k < list.length; k++) {
      total += this.countIn(at(k), type);
      ends[k] = total;
    }
    let last: { k: number; w: SimWorkspace; items: SimItem[] } | null = null;
    return lazyArray(total, (r) => {
      let lo = 0;
      let hi = list.length - 1;
      while (lo < hi) {
        const mid = (lo + hi) >> 1;
        if (ends[mid]! > r) hi = mid;
        else lo = mid + 1;
      }
      if (last?.k !== lo) {
        const w = this.at(at(lo))!;
        last = { k: lo, w, items: type ? w.items.filter((i) => i.type === type) : w.items };
      }
      const first = lo === 0 ? 0 : ends[lo - 1]!;
      return { w: last.w, i: last.items[r - first]! };
    });
  }

  /** How many of each kind of item the tenant has (without generating them). */
  counts(): { models: number; scheduledModels: number; pipelines: number; mirrored: number } {
    const n = this.spec.sizes.workspaces;
    const models = n * this.models;
    return { models, scheduledModels: Math.ceil(models / 2), pipelines: Math.floor(n * this.pipelineRate), mirrored: Math.ceil(n / MIRRORED_EVERY) };
  }

  /** The workspace at `index` as generated, its items built on first read. */
  generate(w: number): SimWorkspace {
    return new LazyWorkspace(this.ids.workspace(w), `Workspace ${String(w + 1).padStart(5, '0')}`, this.capacityOf(w), (id) => this.items(w, id));
  }

  private items(w: number, workspaceId: string): SimItem[] {
    const out: SimItem[] = [];
    let slot = 0;
    for (let m = 0; m < this.models; m++) out.push(this.model(w, workspaceId, slot++, w * this.models + m));
    const pipelines = Math.floor((w + 1) * this.pipelineRate) - Math.floor(w * this.pipelineRate);
    for (let p = 0; p < pipelines; p++) out.push(this.pipeline(w, workspaceId, slot++, Math.floor(w * this.pipelineRate) + p));
    if (w % MIRRORED_EVERY === MIRRORED_EVERY - 1) out.push(this.mirrored(w, workspaceId, slot++));
    return out;
  }

  private model(w: number, workspaceId: string, slot: number, k: number): SimItem {
    const h = hash32((k * 2654435761) ^ this.ids.tag);
    const scheduled = k % 2 === 0;
    const schedule: SimRefreshSchedule = {
      days: [...(k % 3 === 2 ? ALL_DAYS : WEEKDAYS)],
      times: k % 4 < 2 ? ['06:00'] : ['06:00', '18:00'],
      enabled: scheduled,
      localTimeZoneId: k % 8 === 7 ? 'UTC' : 'E. South America Standard Time',
    };
    const item: SimItem = {
      id: this.ids.item(w, slot),
      type: 'SemanticModel',
      displayName: `Model ${k + 1}`,
      workspaceId,
      refreshes: [0, 1, 2].map((r) => {
        const [startTime, endTime] = this.refreshTimes[r]!;
        const failed = hash32(h ^ r) % 1000 < FAILED_PER_MILLE;
        return {
          requestId: `${hex(hash32(h + r), 8)}-${hex(k >>> 16, 4)}-4${hex(k, 3)}-a${hex(r, 3)}-${hex(this.ids.tag, 4)}${hex(hash32(h ^ 0xfeed ^ r), 8)}`,
          refreshType: scheduled ? ('Scheduled' as const) : ('ViaApi' as const),
          startTime,
          endTime,
          status: failed ? ('Failed' as const) : ('Completed' as const),
          ...(failed ? { serviceExceptionJson: refreshException(REFRESH_ERRORS[(k + r) % REFRESH_ERRORS.length]!) } : {}),
        };
      }),
      jobs: [],
      refreshSchedule: schedule,
      scheduleRunUntil: this.spec.now,
    };
    const gateways = this.spec.gateways;
    if (gateways.length > 0 && h % 1000 < GATEWAY_BOUND_PER_MILLE) {
      const ds = gateways[hash32(h) % gateways.length]!.datasources[0];
      if (ds) item.gatewayDatasourceId = ds.id;
    }
    return item;
  }

  private pipeline(w: number, workspaceId: string, slot: number, n: number): SimItem {
    return {
      id: this.ids.item(w, slot),
      type: 'DataPipeline',
      displayName: `Pipeline ${n + 1}`,
      workspaceId,
      refreshes: [],
      jobs: [0, 1, 2].map((j) => {
        const [startTimeUtc, endTimeUtc] = this.jobTimes[j]!;
        return {
          id: `${hex(hash32(n ^ this.ids.tag ^ (j << 24)), 8)}-${hex(n >>> 16, 4)}-4${hex(n, 3)}-b${hex(j, 3)}-${hex(this.ids.tag, 4)}${hex(hash32(n + j), 8)}`,
          jobType: 'Pipeline',
          invokeType: 'Scheduled' as const,
          status: 'Completed' as const,
          startTimeUtc,
          endTimeUtc,
        };
      }),
    };
  }

  private mirrored(w: number, workspaceId: string, slot: number): SimItem {
    return {
      id: this.ids.item(w, slot),
      type: 'MirroredDatabase',
      displayName: `MirroredDatabase ${w + 1}`,
      workspaceId,
      refreshes: [],
      jobs: [],
      mirroring: {
        status: 'Running',
        tables: Array.from({ length: this.spec.sizes.mirroredTables }, (_, t) => ({
          sourceSchemaName: 'dbo',
          sourceTableName: `table_${t + 1}`,
          status: 'Replicating' as const,
          processedRows: hash32(w ^ t) % 1_000_000,
          processedBytes: hash32(w ^ t ^ 0xb) % 100_000_000,
          lastSyncDateTime: new Date(this.today - 600_000).toISOString(),
          lastSyncLatencyInSeconds: 15 + 5 * (t % 6),
        })),
      },
    };
  }
}

/** A generated workspace: plain fields, its items derived on first read (then kept with it). */
class LazyWorkspace implements SimWorkspace {
  member = true;
  private list: SimItem[] | undefined;
  constructor(
    readonly id: string,
    public name: string,
    public capacityId: string | null,
    private readonly make: (id: string) => SimItem[],
  ) {}

  get items(): SimItem[] {
    if (!this.list) this.list = this.make(this.id);
    return this.list;
  }

  set items(v: SimItem[]) {
    this.list = v;
  }

  toJSON(): SimWorkspace {
    return { id: this.id, name: this.name, capacityId: this.capacityId, member: this.member, items: this.items };
  }
}

/** `state.workspaces` of a lazy tenant: generated on read, changed ones kept, appends kept. */
export function lazyWorkspaceArray(lazy: LazyWorkspaces): SimWorkspace[] {
  return lazyArray(lazy, (i) => lazy.at(i)!, {
    lazy,
    write: (i, v) => {
      lazy.pinned.set(i, v);
      if (i >= lazy.length) lazy.length = i + 1;
    },
    truncate: (n) => {
      for (const k of lazy.pinned.keys()) if (k >= n) lazy.pinned.delete(k);
      lazy.length = n;
    },
  });
}

/** A lazy tenant: the eager small parts of `generateTenant` and the lazy workspaces. */
export function generateLazyTenant(opts: { seed: number; sizes: Required<SimSizes>; tenantId: string; now: number }): SimState {
  const state = generateTenant({ ...opts, sizes: { ...opts.sizes, workspaces: 0 } });
  const lazy = new LazyWorkspaces({ seed: opts.seed, sizes: opts.sizes, now: opts.now, capacityIds: state.capacities.map((c) => c.id), gateways: state.gateways });
  state.workspaces = lazyWorkspaceArray(lazy);
  return state;
}
