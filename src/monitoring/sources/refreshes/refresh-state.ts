/**
 * What the refreshes collector remembers between runs (collector_state, one key per model and
 * per workspace, plus the rotation and the admin paging cursor), and the per-run memory that
 * tracks what changed so only those keys are written back.
 */
import type { EntityState, StateChange } from '../../engine/output.js';
import { ROTATION_KEY, type RotationState } from '../../engine/rotation.js';
import type { PaceState } from '../../platform/run-budget.js';
import type { RefreshCursor } from './refresh-history.js';

/** Data sources and schedule of a model: they change rarely, so they are re-read on a slow cadence. */
export interface ModelMeta {
  readAt: string;
  gatewayIds: string[];
  datasourceIds: string[];
  /** Member mode: the model has an enabled refresh schedule (admin mode does not read it). */
  scheduled: boolean;
  /**
   * The data sources could not be read with this principal (admin mode without membership): the
   * lists are empty for lack of an answer, not because the model has none, so they neither replace
   * the lineage the scanner recorded nor name the model's gateways.
   */
  refused?: boolean;
}

export interface ModelState extends RefreshCursor {
  name: string;
  workspaceId: string;
  capacityId: string | null;
  /** False until the first history was read: that first read counts only the newest result. */
  polled: boolean;
  /** A RefreshFailed incident is open for the model (as far as this collector signalled). */
  failing: boolean;
  /** Start of the newest refresh seen, running or finished (a model that refreshed in the last 24 h is polled every run). */
  lastSeenAt: string | null;
  meta: ModelMeta | null;
}

/**
 * Member mode: what a run judges every model by (where it lives, whether it is hot, whether its
 * data sources are due), read for all models as compact rows; the whole ModelState is read only
 * for the models the run polls, re-places or forgets.
 */
export type ModelBrief = Pick<ModelState, 'name' | 'workspaceId' | 'capacityId' | 'failing' | 'running' | 'lastSeenAt'> & {
  meta: Pick<ModelMeta, 'readAt' | 'scheduled'> | null;
};

/** The fields of a model's state a brief is read from (EntityState.fields). */
export const BRIEF_FIELDS = ['name', 'workspaceId', 'capacityId', 'failing', 'running', 'lastSeenAt', 'meta.readAt', 'meta.scheduled'] as const;

function briefOf(row: Record<string, unknown>): ModelBrief {
  const text = (v: unknown) => (typeof v === 'string' ? v : null);
  const readAt = text(row['meta.readAt']);
  return {
    name: text(row.name) ?? '',
    workspaceId: text(row.workspaceId) ?? '',
    capacityId: text(row.capacityId),
    failing: row.failing === true,
    running: Array.isArray(row.running) ? (row.running as string[]) : [],
    lastSeenAt: text(row.lastSeenAt),
    meta: readAt ? { readAt, scheduled: row['meta.scheduled'] === true } : null,
  };
}

export interface WorkspaceState {
  /** When the workspace's semantic models were last listed (member mode). */
  listedAt: string;
}

/**
 * Member mode: the principal's workspaces (unfiltered) and the capacities' names as last listed.
 * They rarely change, so a run re-lists them only after LISTING_REFRESH_MS (run-budget.ts)
 * and a short interval's small budget goes to the models.
 */
export interface MemberListing {
  listedAt: string;
  /** [id (lower case), name, capacity id (lower case) or null] */
  groups: [string, string, string | null][];
  /** [capacity id (lower case), display name] */
  capacities: [string, string][];
}

/** Per-model keys: read on demand (Collector.entityPrefixes), not with the run's state. */
export const MODEL_PREFIX = 'model:';
export const modelKey = (id: string) => MODEL_PREFIX + id;
const LISTING = 'listing';
const WORKSPACE = 'ws:';
const ADMIN_SKIP = 'admin:skip';
/** Kept by earlier versions (a time before which no page was read); deleted when seen. */
const ADMIN_NEXT = 'admin:next';
const ADMIN_PACE = 'admin:pace';

export class RefreshMemory {
  readonly models = new Map<string, ModelState>();
  readonly workspaces = new Map<string, WorkspaceState>();
  rotation: RotationState | undefined;
  listing: MemberListing | null;
  adminSkip: number;
  /** Admin mode: the refreshables pages' paced budget as the last run left it (run-budget.ts PacedBudget). */
  adminPace: PaceState | null;
  /** Member mode: every remembered model's brief, as read at the start of the run (loadBriefs). */
  private readonly briefs = new Map<string, ModelBrief>();
  /** Whole model states read from the database this run (member mode: those polled, re-placed or forgotten). */
  statesRead = 0;
  /** Models whose placement (name, workspace, capacity) is new or changed this run. */
  readonly placed = new Set<string>();
  /** Models whose data sources were read this run. */
  readonly metaRead = new Set<string>();
  /** Models forgotten this run, with what was remembered of them. */
  readonly forgotten = new Map<string, ModelState>();
  private readonly before = new Map<string, string>();
  private readonly rotationBefore: string;
  private readonly listingBefore: MemberListing | null;
  private readonly adminSkipBefore: number;
  private readonly adminPaceBefore: string;
  /** A state from before the paced budget kept its own key: deleted at the next write. */
  private readonly oldAdminNext: boolean;

  constructor(state: Map<string, unknown>) {
    for (const [key, value] of state) {
      if (key.startsWith(MODEL_PREFIX)) this.models.set(key.slice(MODEL_PREFIX.length), value as ModelState);
      else if (key.startsWith(WORKSPACE)) this.workspaces.set(key.slice(WORKSPACE.length), value as WorkspaceState);
      else continue;
      this.before.set(key, JSON.stringify(value));
    }
    this.rotation = state.get(ROTATION_KEY) as RotationState | undefined;
    this.rotationBefore = JSON.stringify(this.rotation ?? null);
    this.listing = (state.get(LISTING) as MemberListing | undefined) ?? null;
    this.listingBefore = this.listing;
    this.adminSkip = typeof state.get(ADMIN_SKIP) === 'number' ? (state.get(ADMIN_SKIP) as number) : 0;
    this.adminSkipBefore = this.adminSkip;
    this.adminPace = (state.get(ADMIN_PACE) as PaceState | undefined) ?? null;
    this.adminPaceBefore = JSON.stringify(this.adminPace);
    this.oldAdminNext = state.has(ADMIN_NEXT);
  }

  /**
   * Adds models' remembered state read on demand (admin mode: a page's models; member mode: all).
   * A model already in memory this run keeps what the run made of it.
   */
  load(entries: Map<string, unknown>): void {
    for (const [key, value] of entries) {
      if (!key.startsWith(MODEL_PREFIX)) continue;
      const id = key.slice(MODEL_PREFIX.length);
      if (this.models.has(id) || this.forgotten.has(id)) continue;
      this.models.set(id, value as ModelState);
      this.before.set(key, JSON.stringify(value));
      this.statesRead++;
    }
  }

  /** Member mode: the compact rows of every remembered model (EntityState.fields with BRIEF_FIELDS). */
  loadBriefs(rows: Map<string, Record<string, unknown>>): void {
    for (const [key, row] of rows) if (key.startsWith(MODEL_PREFIX)) this.briefs.set(key.slice(MODEL_PREFIX.length), briefOf(row));
  }

  /** Every model the run knows, whole when read (or new) and as a brief otherwise. */
  *known(): Generator<[string, ModelBrief]> {
    yield* this.models;
    for (const [id, b] of this.briefs) if (!this.models.has(id) && !this.forgotten.has(id)) yield [id, b];
  }

  /** What the run knows of one model (whole or brief). */
  brief(id: string): ModelBrief | undefined {
    return this.models.get(id) ?? (this.forgotten.has(id) ? undefined : this.briefs.get(id));
  }

  /** Reads the whole state of these models (those known only by their brief): before the run polls, re-places or forgets them. */
  async readWhole(entities: EntityState, ids: Iterable<string>): Promise<void> {
    const missing = [...new Set(ids)].filter((id) => !this.models.has(id) && !this.forgotten.has(id) && this.briefs.has(id));
    if (missing.length === 0) return;
    this.load(await entities.read(missing.map(modelKey)));
    // A row gone meanwhile (the tenant being removed): the model is not known any more.
    for (const id of missing) if (!this.models.has(id)) this.briefs.delete(id);
  }

  /** A change to a model known only by its brief would lose the rest of its state. */
  private assertWhole(id: string): void {
    if (!this.models.has(id) && !this.forgotten.has(id) && this.briefs.has(id)) throw new Error(`refreshes: model ${id} changed before its state was read`);
  }

  /** Records a model as listed by the platform; a new one starts unpolled. */
  place(id: string, name: string, workspaceId: string, capacityId: string | null): void {
    const known = this.brief(id);
    if (known && known.name === name && known.workspaceId === workspaceId && known.capacityId === capacityId) return;
    this.assertWhole(id);
    const prev = this.models.get(id);
    const next: ModelState = prev
      ? { ...prev, name, workspaceId, capacityId }
      : { name, workspaceId, capacityId, polled: false, failing: false, last: null, running: [], lastSeenAt: null, meta: null };
    this.models.set(id, next);
    this.placed.add(id);
  }

  update(id: string, next: ModelState): void {
    this.models.set(id, next);
  }

  forget(id: string): void {
    this.assertWhole(id);
    const prev = this.models.get(id);
    if (!prev) return;
    this.models.delete(id);
    this.placed.delete(id);
    this.metaRead.delete(id);
    this.forgotten.set(id, prev);
  }

  /** The keys to write back: changed and new entries, deletions of forgotten ones. */
  changes(): StateChange[] {
    const out: StateChange[] = [];
    const seen = new Set<string>();
    const put = (key: string, value: unknown) => {
      seen.add(key);
      if (this.before.get(key) !== JSON.stringify(value)) out.push({ key, value });
    };
    for (const [id, m] of this.models) put(MODEL_PREFIX + id, m);
    for (const [id, w] of this.workspaces) put(WORKSPACE + id, w);
    for (const key of this.before.keys()) if (!seen.has(key)) out.push({ key, value: null });
    if (JSON.stringify(this.rotation ?? null) !== this.rotationBefore && this.rotation) out.push({ key: ROTATION_KEY, value: this.rotation });
    if (this.listing !== this.listingBefore && this.listing) out.push({ key: LISTING, value: this.listing });
    if (this.adminSkip !== this.adminSkipBefore) out.push({ key: ADMIN_SKIP, value: this.adminSkip });
    if (this.adminPace && JSON.stringify(this.adminPace) !== this.adminPaceBefore) out.push({ key: ADMIN_PACE, value: this.adminPace });
    if (this.oldAdminNext) out.push({ key: ADMIN_NEXT, value: null });
    return out;
  }
}

/** Models remembered in a collector state (for releaseAll). */
export function rememberedModels(state: Map<string, unknown>): [string, ModelState][] {
  return [...state].filter(([key]) => key.startsWith(MODEL_PREFIX)).map(([key, value]) => [key.slice(MODEL_PREFIX.length), value as ModelState]);
}
