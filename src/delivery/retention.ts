/**
 * Delivery history is kept 30 days: a periodic job (started by the service next to the alert
 * jobs, not by the dispatcher) purges older finished rows through the outbox.
 */
import type { AppContext } from '../context.js';
import { purgeHistory } from '../outbox/index.js';

export interface BackgroundJob {
  stop(): Promise<void>;
}

export const RETENTION_EVERY_MS = 3_600_000;
/** The first purge runs shortly after start, not an hour later. */
const FIRST_RUN_AFTER_MS = 5_000;

/** One purge pass; returns how many deliveries were deleted. */
export async function runRetentionPass(ctx: Pick<AppContext, 'db' | 'clock'>): Promise<number> {
  return purgeHistory(ctx.db, ctx.clock.now());
}

export function startRetentionJob(ctx: AppContext, everyMs = RETENTION_EVERY_MS): BackgroundJob {
  const log = ctx.log.child({ component: 'retention' });
  let inFlight: Promise<void> = Promise.resolve();
  let running = false;
  const tick = () => {
    if (running) return; // a slow purge is not stacked up behind
    running = true;
    inFlight = runRetentionPass(ctx)
      .then((purged) => {
        if (purged > 0) log.info({ purged }, 'purged delivery history older than 30 days');
      })
      .catch((err) => log.warn({ err: (err as Error).message }, 'history purge failed'))
      .finally(() => {
        running = false;
      });
  };
  const first = setTimeout(tick, FIRST_RUN_AFTER_MS);
  const timer = setInterval(tick, everyMs);
  first.unref();
  timer.unref();
  return {
    async stop() {
      clearTimeout(first);
      clearInterval(timer);
      await inFlight;
    },
  };
}
