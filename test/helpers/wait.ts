/**
 * The one way a test waits: for a condition, within a bound. Never a fixed sleep — a sleep is
 * either too short on a loaded machine (flaky) or too long everywhere (slow). The error names
 * what was awaited, and `detail` can add what was seen instead (a log tail, a row).
 */
export interface WaitOptions {
  /** What is awaited, for the error ("the delivery to succeed"). */
  what: string;
  /** Upper bound; the wait fails after it. Default 30 s. */
  timeoutMs?: number;
  /** Pause between checks (real time). Default 20 ms. */
  intervalMs?: number;
  /** Called on timeout to describe the last state seen. */
  detail?: () => string;
}

/** Resolves with the first truthy value `cond` returns; throws once `timeoutMs` has passed. */
export async function waitFor<T>(cond: () => T | undefined | null | false | Promise<T | undefined | null | false>, opts: WaitOptions): Promise<T> {
  const timeoutMs = opts.timeoutMs ?? 30_000;
  const deadline = Date.now() + timeoutMs;
  for (;;) {
    const value = await cond();
    if (value) return value;
    if (Date.now() > deadline) {
      const seen = opts.detail ? `; ${opts.detail()}` : '';
      throw new Error(`timed out after ${timeoutMs} ms waiting for ${opts.what}${seen}`);
    }
    await new Promise((r) => setTimeout(r, opts.intervalMs ?? 20));
  }
}
