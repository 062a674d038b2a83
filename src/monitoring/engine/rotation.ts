/**
 * Which resources a collector polls in one run when polling all of them would break the hourly
 * caps (a tenant of 20,000 semantic models, 5,000 pipelines). Hot resources — those with a
 * schedule, or that ran recently — are polled every run; the others take turns: each run polls
 * the next slice of them from a cursor that survives restarts (the collector keeps the returned
 * `next` in its state under ROTATION_KEY), so every resource is polled once per full rotation.
 * How long the last full rotation took is kept with it and shown in `/metrics` and the console.
 *
 * Fair turns: a share of every run's budget (COLD_FLOOR_SHARE, carried as credit when it is under
 * one poll) goes to the resources taking turns, and hot resources that do not all fit take turns
 * round-robin by key, so under any budget every resource is polled within a bounded number of runs.
 * The state also says whether the collector's first complete pass is done (firstPassDone): the
 * engine keeps a new tenant's first pass open until it is (first-pass.ts).
 */
import type { RunProgress } from './collector-behind.js';

/** The collector-state key a collector stores its RotationState under. */
export const ROTATION_KEY = 'rotation';
/**
 * The key of a second rotation some collectors keep beside it: freshness's pass over the
 * workspaces for its catalog (taken in slices). The tenant view shows it as the rotation's `catalog`.
 */
export const CATALOG_ROTATION_KEY = 'catalogRotation';

export interface RotationState {
  /** Index into the cold resources, sorted by key, where the next run starts. */
  cursor: number;
  /** The key of the last cold resource polled in the rotation under way (the next run starts after it); null at its start. */
  coldAfter?: string | null;
  /** When the current full rotation began (ISO): the run that completed the previous one, or the first run. */
  passStartedAt: string | null;
  /**
   * Seconds between the last two completed rotations — how long a resource that takes turns
   * waits between two polls. Null until a rotation completed after a previous one.
   */
  lastFullRotationSeconds: number | null;
  /** Old states only (an index into the hot resources); hotAfter replaced it. */
  hotCursor?: number;
  /**
   * When the hot resources did not all fit in the last run: the key of the last one it polled
   * (the next run starts after it, round-robin by key, however the hot set changed). Null otherwise.
   */
  hotAfter?: string | null;
  /**
   * The cold resources' guaranteed share (COLD_FLOOR_SHARE of each run's budget) not yet spent:
   * a budget too small for a whole poll of them a run adds up until it is one.
   */
  coldCredit?: number;
  /**
   * The collector's first complete pass: every resource polled at least once since the state
   * began (the cold rotation completed and the hot resources went round once). False while it
   * goes on — the engine keeps the tenant's first pass open (first-pass.ts); absent in states
   * written before it was kept (taken as done).
   */
  firstPassDone?: boolean;
  /** While the first pass goes on: the cold rotation completed / the hot resources went round once. */
  firstColdDone?: boolean;
  firstHotDone?: boolean;
  /**
   * The shortest interval at which the collector's share of its budget pays for what is due
   * every run (written by collectors that know it: gateway). A shorter interval asked for runs
   * at this one: the tenant view's effectiveIntervalSeconds.
   */
  minIntervalSeconds?: number | null;
  /** Resources in the last run: polled every run, and taking turns. */
  hot: number;
  cold: number;
}

export interface RotationPick<T> {
  /** Polled this run: hot resources (round-robin as far as the budget reaches), then a slice of the cold ones. */
  poll: T[];
  /** Hot resources left for a later run because there are more of them than the budget (they take turns). */
  skippedHot: number;
  next: RotationState;
  /** The slice reached the end of the cold resources: a full rotation completed in this run. */
  completedRotation: boolean;
}

export interface RotationOptions<T> {
  key(item: T): string;
  isHot(item: T): boolean;
  /** Polls this run may spend (one per resource). */
  budget: number;
  state: RotationState | undefined;
  now: Date;
}

/**
 * This share of every run's budget goes to the resources taking turns, whatever the hot ones
 * need (carried as credit when it is under one poll), so a tenant with thousands of scheduled
 * items — or a short interval whose budget the hot ones fill — never starves the rest.
 */
export const COLD_FLOOR_SHARE = 0.1;

/** Where the cold slice starts: after the last key polled (so a cold set that changed skips none), or at the old index. */
function coldStart<T>(cold: T[], key: (item: T) => string, prev: RotationState | undefined): number {
  if (cold.length === 0) return 0;
  const after = prev?.coldAfter;
  if (after == null) return Math.min(prev?.cursor ?? 0, cold.length) % cold.length;
  const i = cold.findIndex((c) => key(c) > after);
  return Math.max(0, i);
}

/** Hot resources polled this run: round-robin by key from after `hotAfter`, `room` of them. */
function hotTurns<T>(hot: T[], key: (item: T) => string, room: number, after: string | null | undefined): { polled: T[]; wrapped: boolean } {
  if (room >= hot.length) return { polled: hot, wrapped: true };
  let start = 0;
  if (after != null) {
    const i = hot.findIndex((h) => key(h) > after);
    start = Math.max(0, i);
  }
  const polled: T[] = [];
  for (let k = 0; k < room; k++) polled.push(hot[(start + k) % hot.length]!);
  return { polled, wrapped: start + room >= hot.length };
}

export function pickForRun<T>(items: T[], opts: RotationOptions<T>): RotationPick<T> {
  const byKey = (a: T, b: T) => (opts.key(a) < opts.key(b) ? -1 : opts.key(a) > opts.key(b) ? 1 : 0);
  const hot = items.filter((i) => opts.isHot(i)).sort(byKey);
  const cold = items.filter((i) => !opts.isHot(i)).sort(byKey);
  const budget = Math.max(0, Math.floor(opts.budget));
  const prev = opts.state;
  const nowIso = opts.now.toISOString();

  // The cold resources' guaranteed share first (credit carried), then the hot ones in turns, then the rest to the cold.
  const credit = cold.length > 0 ? Math.max(0, prev?.coldCredit ?? 0) + budget * COLD_FLOOR_SHARE : 0;
  // At least one turn of theirs in a run of two polls or more.
  const coldFloor = Math.min(cold.length, budget, Math.max(Math.floor(credit), budget >= 2 ? 1 : 0));
  const turns = hotTurns(hot, opts.key, Math.min(hot.length, budget - coldFloor), prev?.hotAfter);
  const room = Math.min(budget - turns.polled.length, cold.length);
  const start = coldStart(cold, opts.key, prev);
  const slice: T[] = [];
  for (let k = 0; k < room; k++) slice.push(cold[(start + k) % cold.length]!);
  const end = start + room;
  // Everything cold fits in one run, or the slice reached the end of the list: a rotation completed.
  const completedRotation = cold.length === 0 || end >= cold.length;
  const passStartedAt = prev?.passStartedAt ?? null;
  let lastFullRotationSeconds = prev?.lastFullRotationSeconds ?? null;
  if (completedRotation && passStartedAt !== null) {
    lastFullRotationSeconds = Math.max(0, Math.round((opts.now.getTime() - Date.parse(passStartedAt)) / 1000));
  }
  const all = turns.polled.length === hot.length;
  return {
    poll: [...turns.polled, ...slice],
    skippedHot: hot.length - turns.polled.length,
    completedRotation,
    next: {
      cursor: completedRotation ? 0 : end,
      coldAfter: completedRotation ? null : room === 0 ? (prev?.coldAfter ?? null) : opts.key(slice.at(-1)!),
      hotAfter: all ? null : turns.polled.length === 0 ? (prev?.hotAfter ?? null) : opts.key(turns.polled.at(-1)!),
      coldCredit: cold.length > 0 ? Math.round(Math.max(0, credit - room) * 1000) / 1000 : 0,
      ...firstPassOf(prev, completedRotation, turns.wrapped),
      passStartedAt: completedRotation || passStartedAt === null ? nowIso : passStartedAt,
      lastFullRotationSeconds,
      hot: hot.length,
      cold: cold.length,
    },
  };
}

/** The first complete pass: done once the cold rotation completed and the hot resources went round, since the state began. */
function firstPassOf(prev: RotationState | undefined, coldDone: boolean, hotDone: boolean): Pick<RotationState, 'firstPassDone' | 'firstColdDone' | 'firstHotDone'> {
  // A state written before the first pass was kept belongs to a collector that ran already: done.
  if (prev && prev.firstPassDone !== false) return { firstPassDone: true };
  const cold = (prev?.firstColdDone ?? false) || coldDone;
  const hot = (prev?.firstHotDone ?? false) || hotDone;
  return cold && hot ? { firstPassDone: true } : { firstPassDone: false, firstColdDone: cold, firstHotDone: hot };
}

/** Whether a committed rotation state says its collector's first complete pass goes on. */
export function firstPassGoesOnIn(value: unknown): boolean {
  return typeof value === 'object' && value !== null && (value as RotationState).firstPassDone === false;
}

/**
 * What a rotating run read, and the due resources it left for a later run: hot resources it did
 * not read and — when the resources taking turns got no turn at all in the run — all of those.
 * A run that reads its slice of the cold resources defers nothing of theirs: taking turns is the plan.
 */
export function progressOf<T>(items: Iterable<T>, isHot: (item: T) => boolean, wasRead: (item: T) => boolean): RunProgress {
  let polled = 0;
  let hotUnread = 0;
  let cold = 0;
  let coldRead = 0;
  for (const item of items) {
    const read = wasRead(item);
    if (read) polled++;
    if (isHot(item)) {
      if (!read) hotUnread++;
    } else {
      cold++;
      if (read) coldRead++;
    }
  }
  return { polled, deferred: hotUnread + (coldRead === 0 ? cold : 0) };
}
