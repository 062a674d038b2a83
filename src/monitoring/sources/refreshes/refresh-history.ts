/**
 * Which refresh results of a semantic model are new since the last run. The platform keeps only
 * about 60 refreshes per model (newest first), so the newest result already counted is
 * remembered (requestId + startTime): the entries above it are new; when it has left the
 * history, every entry at or after its start time is. A refresh still running (`Unknown`) is not
 * a result yet: its requestId is remembered and it is counted once it finishes, even if a later
 * refresh finished first. On first sight of a model only its newest finished result counts
 * (sixty old failures are not replayed).
 */

export type RefreshStatus = 'Completed' | 'Failed' | 'Unknown' | 'Disabled' | 'Cancelled' | (string & {});

export interface RefreshEntry {
  requestId: string;
  startTime: string;
  endTime?: string;
  status: RefreshStatus;
  serviceExceptionJson?: string;
}

export interface RefreshCursor {
  /** The newest finished refresh already counted; null when none was seen yet. */
  last: { requestId: string; startTime: string } | null;
  /** requestIds seen running, to be counted when they finish. */
  running: string[];
}

export interface NewResults {
  /** Finished refreshes to apply, oldest first. */
  results: RefreshEntry[];
  next: RefreshCursor;
}

/** Running refreshes remembered per model at most (a model rarely runs more than one at a time). */
const MAX_RUNNING = 10;

/**
 * Final states. `Unknown` means running; enhanced refreshes may also show `NotStarted` or
 * `InProgress` — anything not final waits, so its result is never skipped.
 */
const FINAL = new Set(['Completed', 'Failed', 'Disabled', 'Cancelled']);
const finished = (r: RefreshEntry) => FINAL.has(r.status);

/**
 * `history` is newest first, as the platform returns it (the whole kept history in member mode,
 * only `lastRefresh` in admin mode). `cursor` undefined = first sight.
 */
export function newResults(history: RefreshEntry[], cursor: RefreshCursor | undefined): NewResults {
  if (!cursor) {
    const newest = history.find(finished);
    const newestAt = newest ? history.indexOf(newest) : history.length;
    return {
      results: newest ? [newest] : [],
      next: { last: newest ? pick(newest) : null, running: history.slice(0, newestAt).filter((r) => !finished(r)).map((r) => r.requestId).slice(0, MAX_RUNNING) },
    };
  }
  const at = cursor.last ? history.findIndex((r) => r.requestId === cursor.last!.requestId) : -1;
  let above: RefreshEntry[];
  if (!cursor.last) above = history;
  else if (at >= 0) above = history.slice(0, at);
  // The remembered one left the kept history: everything kept started at or after it.
  else above = history.filter((r) => r.startTime >= cursor.last!.startTime);

  const wasRunning = new Set(cursor.running);
  const counted = new Set<string>();
  const results: RefreshEntry[] = [];
  // Oldest first: the history is newest first, so walk it backwards.
  for (let i = history.length - 1; i >= 0; i--) {
    const r = history[i]!;
    if (!finished(r) || counted.has(r.requestId)) continue;
    if (above.includes(r) || wasRunning.has(r.requestId)) {
      counted.add(r.requestId);
      results.push(r);
    }
  }
  const newestAbove = above.find(finished);
  const stillRunning = new Set<string>();
  for (const r of above) if (!finished(r)) stillRunning.add(r.requestId);
  for (const r of history) if (!finished(r) && wasRunning.has(r.requestId)) stillRunning.add(r.requestId);
  return {
    results,
    next: { last: newestAbove ? pick(newestAbove) : cursor.last, running: [...stillRunning].slice(0, MAX_RUNNING) },
  };
}

function pick(r: RefreshEntry): { requestId: string; startTime: string } {
  return { requestId: r.requestId, startTime: r.startTime };
}
