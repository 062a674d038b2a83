/**
 * Retry policy (docs/delivery.md, "Retries"): at most schedule.length + 1 attempts (5 with the
 * default 1m,5m,30m,2h); retried: no answer, 408, 429, 5xx; abandoned: other 4xx, and 3xx
 * (redirects are never followed).
 */
export type Classification = 'succeeded' | 'retry' | 'abandon';

export function classifyStatus(statusCode: number): Classification {
  if (statusCode >= 200 && statusCode < 300) return 'succeeded';
  if (statusCode === 408 || statusCode === 429 || statusCode >= 500) return 'retry';
  return 'abandon';
}

export function maxAttempts(scheduleMs: readonly number[]): number {
  return scheduleMs.length + 1;
}

/**
 * Wait after attempt number `attempt` (1-based, counted within the current budget) failed with a
 * retryable outcome, or null when the budget is spent. A connector's Retry-After may lengthen
 * the wait, never shorten it.
 */
export function retryDelayMs(scheduleMs: readonly number[], attempt: number, retryAfterMs?: number): number | null {
  const wait = scheduleMs[attempt - 1];
  if (wait === undefined) return null;
  return retryAfterMs && retryAfterMs > wait ? Math.min(retryAfterMs, 24 * 3_600_000) : wait;
}
