/**
 * Which resources a collector polls in one run when polling all of them would break the hourly
 * caps (a tenant of 20,000 semantic models, 5,000 pipelines). Hot resources — those with a
 * schedule, or that ran recently — are polled every run; the others take turns: each run polls
 * the next slice of them from a cursor that survives restarts (the collector keeps the returned
 * `next` in its state under ROTATION_KEY), so every resource is polled once per full rotation.
 * How long the last full rotation took is kept with it and shown in `/metrics` and the console.
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
  /** When the current full rotation began (ISO): the run that completed the previous one, or the first run. */
  passStartedAt: string | null;
  /**
   * Seconds between the last two completed rotations — how long a resource that takes turns
   * waits between two polls. Null until a rotation completed after a previous one.
   */
  lastFullRotationSeconds: number | null;
  /**
   * Index into the hot resources where the next run starts, when there are more of them than a
   * run's budget (they take turns too); 0 otherwise.
   */
  hotCursor?: number;
  /** Resources in the last run: polled every run, and taking turns. */
  hot: number;
  cold: number;
}

export interface RotationPick<T> {
  /** Polled this run: every hot resource (as far as the budget reaches), then a slice of the cold ones. */
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
 * When the hot resources alone exceed a run's budget, this share of it still goes to the others,
 * so a tenant with thousands of scheduled items never starves the rest.
 */
export const COLD_FLOOR_SHARE = 0.1;

export function pickForRun<T>(items: T[], opts: RotationOptions<T>): RotationPick<T> {
  const byKey = (a: T, b: T) => (opts.key(a) < opts.key(b) ? -1 : opts.key(a) > opts.key(b) ? 1 : 0);
  const hot = items.filter((i) => opts.isHot(i)).sort(byKey);
  const cold = items.filter((i) => !opts.isHot(i)).sort(byKey);
  const budget = Math.max(0, Math.floor(opts.budget));
  const prev = opts.state;
  const nowIso = opts.now.toISOString();

  // More hot resources than the budget: they take turns under their own cursor, and a floor of
  // the budget keeps the others' rotation going.
  const overflow = hot.length > budget;
  const coldFloor = overflow && cold.length > 0 && budget > 1 ? Math.max(1, Math.floor(budget * COLD_FLOOR_SHARE)) : 0;
  const hotRoom = Math.min(hot.length, budget - coldFloor);
  const hotStart = overflow && hot.length > 0 ? Math.min(prev?.hotCursor ?? 0, hot.length) % hot.length : 0;
  const hotPolled: T[] = [];
  for (let k = 0; k < hotRoom; k++) hotPolled.push(hot[(hotStart + k) % hot.length]!);
  const room = Math.min(budget - hotPolled.length, cold.length);
  const start = cold.length === 0 ? 0 : Math.min(prev?.cursor ?? 0, cold.length) % cold.length;
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
  return {
    poll: [...hotPolled, ...slice],
    skippedHot: hot.length - hotPolled.length,
    completedRotation,
    next: {
      cursor: completedRotation ? 0 : end,
      hotCursor: overflow ? (hotStart + hotRoom) % hot.length : 0,
      passStartedAt: completedRotation || passStartedAt === null ? nowIso : passStartedAt,
      lastFullRotationSeconds,
      hot: hot.length,
      cold: cold.length,
    },
  };
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
