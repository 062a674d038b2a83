/** A periodic job the service starts next to the dispatcher; stop() waits for the pass in flight. */
export interface BackgroundJob {
  stop(): Promise<void>;
}

export interface PeriodicJobOptions {
  everyMs: number;
  /** The first pass runs this long after start instead of a whole period later. */
  firstAfterMs?: number;
  /** One pass; a thrown error is handed to onError and the next period runs as usual. */
  pass: () => Promise<void>;
  onError: (err: unknown) => void;
}

/** Runs `pass` every period. Passes never overlap in one process: a slow pass makes the next tick skip. */
export function startPeriodicJob(opts: PeriodicJobOptions): BackgroundJob {
  let stopped = false;
  let running = false;
  let inFlight: Promise<void> = Promise.resolve();
  const tick = () => {
    if (stopped || running) return;
    running = true;
    inFlight = opts
      .pass()
      .catch(opts.onError)
      .finally(() => {
        running = false;
      });
  };
  const first = opts.firstAfterMs === undefined ? undefined : setTimeout(tick, opts.firstAfterMs);
  const timer = setInterval(tick, opts.everyMs);
  first?.unref();
  timer.unref();
  return {
    async stop() {
      stopped = true;
      clearTimeout(first);
      clearInterval(timer);
      await inFlight;
    },
  };
}
