/** The hourly purge of capacity load history (30-second figures 14 days, hourly roll-ups 400 days). */
import { type BackgroundJob, startPeriodicJob } from '../background-job.js';
import type { AppContext } from '../context.js';
import { purgeUtilizationHistory } from './sources/utilization/capacity-history.js';

const EVERY_MS = 3_600_000;
const FIRST_RUN_AFTER_MS = 5_000;

export function startUtilizationRetentionJob(ctx: AppContext, everyMs = EVERY_MS): BackgroundJob {
  const log = ctx.log.child({ component: 'utilization-retention' });
  return startPeriodicJob({
    everyMs,
    firstAfterMs: FIRST_RUN_AFTER_MS,
    pass: async () => {
      const purged = await purgeUtilizationHistory(ctx.db, ctx.clock.now());
      if (purged.windows > 0 || purged.hours > 0) log.info(purged, 'purged capacity utilization history');
    },
    onError: (err) => log.warn({ err: (err as Error).message }, 'capacity utilization purge failed'),
  });
}
