/**
 * Which job instances of an item are new results since the last poll. The platform keeps about
 * 100 recent runs per item and lists them without a "since" filter, so the collector remembers a
 * cursor per item: the start time of the newest instance it considered (and the ids at that
 * time), plus the instances it saw unfinished. A run that finishes later is counted when it
 * finishes, once; a restart reads the same cursor and neither counts twice nor misses.
 */

export interface JobInstance {
  id: string;
  jobType?: string;
  status?: string;
  startTimeUtc?: string | null;
  endTimeUtc?: string | null;
  failureReason?: { errorCode?: string; message?: string } | null;
}

export interface JobCursor {
  /** Start time (ISO) of the newest instance considered; '' when the item had no instance. */
  start: string;
  /** Ids of the instances that started exactly at `start` (already considered). */
  ids: string[];
  /** Instances considered while still NotStarted/InProgress: counted when they finish. */
  pending: string[];
}

/** Results; NotStarted and InProgress are not results yet. Cancelled and Deduped are results that neither fail nor recover. */
const FINISHED = new Set(['Completed', 'Failed', 'Cancelled', 'Deduped']);
const MAX_PENDING = 100;

export function isFinished(i: JobInstance): boolean {
  return FINISHED.has(i.status ?? '');
}

function startMs(i: JobInstance): number | null {
  const t = i.startTimeUtc ? Date.parse(i.startTimeUtc) : Number.NaN;
  return Number.isFinite(t) ? t : null;
}

/** Chronological order of results: by end (else start) time; on a tie the platform's newest-first listing decides. */
function byFinish(list: JobInstance[]): JobInstance[] {
  const at = (i: JobInstance) => {
    const t = Date.parse(i.endTimeUtc ?? i.startTimeUtc ?? '');
    return Number.isFinite(t) ? t : 0;
  };
  return list
    .map((i, index) => ({ i, index }))
    .sort((a, b) => at(a.i) - at(b.i) || (startMs(a.i) ?? 0) - (startMs(b.i) ?? 0) || b.index - a.index)
    .map((x) => x.i);
}

function newestStart(list: JobInstance[], since: { ms: number; ids: string[] } | null): { ms: number; ids: string[] } | null {
  let best = since ? { ms: since.ms, ids: [...since.ids] } : null;
  for (const i of list) {
    const ms = startMs(i);
    if (ms === null) continue;
    if (!best || ms > best.ms) best = { ms, ids: [i.id] };
    else if (ms === best.ms && !best.ids.includes(i.id)) best.ids.push(i.id);
  }
  return best;
}

/**
 * The results to count now (oldest first) and the next cursor. Without a cursor (first sight)
 * only the newest finished result counts: the history before is not news.
 */
export function newResults(instances: JobInstance[], cursor: JobCursor | undefined): { results: JobInstance[]; cursor: JobCursor } {
  if (!cursor) {
    const finished = byFinish(instances.filter(isFinished));
    const top = newestStart(instances, null);
    return {
      results: finished.length ? [finished[finished.length - 1]!] : [],
      cursor: { start: top ? new Date(top.ms).toISOString() : '', ids: top?.ids ?? [], pending: instances.filter((i) => !isFinished(i)).map((i) => i.id).slice(0, MAX_PENDING) },
    };
  }
  const sinceMs = cursor.start ? Date.parse(cursor.start) : Number.NEGATIVE_INFINITY;
  const pending = new Set(cursor.pending);
  const isNew = (i: JobInstance) => {
    const ms = startMs(i);
    if (ms === null) return !pending.has(i.id);
    return ms > sinceMs || (ms === sinceMs && !cursor.ids.includes(i.id));
  };
  const fresh = instances.filter(isNew);
  const candidates = instances.filter((i) => isNew(i) || pending.has(i.id));
  const top = newestStart(fresh, cursor.start ? { ms: sinceMs, ids: cursor.ids } : null);
  return {
    results: byFinish(candidates.filter(isFinished)),
    cursor: {
      start: top ? new Date(top.ms).toISOString() : '',
      ids: top?.ids ?? [],
      pending: candidates.filter((i) => !isFinished(i)).map((i) => i.id).slice(0, MAX_PENDING),
    },
  };
}

/** Start time of the newest instance listed (ISO), for "ran recently". */
export function lastStart(instances: JobInstance[]): string | null {
  const top = newestStart(instances, null);
  return top ? new Date(top.ms).toISOString() : null;
}
