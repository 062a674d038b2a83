/**
 * What the refreshes collector remembers between runs (collector_state, one key per model and
 * per workspace, plus the rotation and the admin paging cursor), and the per-run memory that
 * tracks what changed so only those keys are written back.
 */
import type { StateChange } from '../../engine/output.js';
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
    }
  }

  /** Records a model as listed by the platform; a new one starts unpolled. */
  place(id: string, name: string, workspaceId: string, capacityId: string | null): ModelState {
    const prev = this.models.get(id);
    if (prev && prev.name === name && prev.workspaceId === workspaceId && prev.capacityId === capacityId) return prev;
    const next: ModelState = prev
      ? { ...prev, name, workspaceId, capacityId }
      : { name, workspaceId, capacityId, polled: false, failing: false, last: null, running: [], lastSeenAt: null, meta: null };
    this.models.set(id, next);
    this.placed.add(id);
    return next;
  }

  update(id: string, next: ModelState): void {
    this.models.set(id, next);
  }

  forget(id: string): void {
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
