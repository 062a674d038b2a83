/**
 * Delivery history is kept 30 days: a periodic job (started by the service next to the alert
 * jobs, not by the dispatcher) purges older finished rows through the outbox, then the events of
 * incidents resolved before then that no remaining delivery references.
 */
import { type BackgroundJob, startPeriodicJob } from '../background-job.js';
import type { AppContext } from '../context.js';
import { purgeAlertEvents, purgeHistory } from '../outbox/index.js';
import { purgeAccessRecords } from '../access/retention.js';

export const RETENTION_EVERY_MS = 3_600_000;
/** The first purge runs shortly after start, not an hour later. */
const FIRST_RUN_AFTER_MS = 5_000;

export interface RetentionPassResult {
  deliveries: number;
  events: number;
}

/** One purge pass. Deliveries go first: the events they referenced can then go in the same pass. */
export async function runRetentionPass(ctx: Pick<AppContext, 'db' | 'clock'>): Promise<RetentionPassResult> {
  const now = ctx.clock.now();
  const deliveries = await purgeHistory(ctx.db, now);
  const events = await purgeAlertEvents(ctx.db, now);
  return { deliveries, events };
}

export function startRetentionJob(ctx: AppContext, everyMs = RETENTION_EVERY_MS): BackgroundJob {
  const log = ctx.log.child({ component: 'retention' });
  return startPeriodicJob({
    everyMs,
    firstAfterMs: FIRST_RUN_AFTER_MS,
    pass: async () => {
      const purged = await runRetentionPass(ctx);
      if (purged.deliveries > 0 || purged.events > 0) log.info(purged, 'purged delivery history and alert events older than 30 days');
      // The same hourly pass keeps the audit log to 400 days and drops expired sessions.
      const access = await purgeAccessRecords(ctx.db, ctx.clock.now());
      if (access.audit > 0) log.info({ purged: access.audit }, 'purged audit entries older than 400 days');
    },
    onError: (err) => log.warn({ err: (err as Error).message }, 'history purge failed'),
  });
}
