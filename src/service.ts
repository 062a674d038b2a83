import type { FastifyInstance } from 'fastify';
import { systemClock, type Clock } from './clock.js';
import { loadConfig, type Config } from './config.js';
import type { AppContext } from './context.js';
import { migrate, openDatabase } from './db/index.js';
import { createReadRouter } from './db/read-replica.js';
import { createLogger, type Logger } from './logger.js';
import { resolveMasterKey } from './secrets/master-key.js';
import { Sealer } from './secrets/sealing.js';
import { ensureAdminToken, keepAdminTokenFile } from './admin-api/admin-token.js';
import { buildApp, buildMetricsApp } from './app.js';
import { startAlertJobs } from './alerts/jobs.js';
import { startDispatcher } from './delivery/dispatcher.js';
import { startRetentionJob } from './delivery/retention.js';
import { startDigestJob } from './delivery/email/digest.js';
import { startUtilizationRetentionJob } from './monitoring/utilization-retention.js';
import { CollectorScheduler } from './monitoring/scheduler.js';
import { registerMonitoringMetrics } from './monitoring/metrics.js';
import { warnMissingStartSettings, type StartFinding } from './start-settings.js';

export interface ServiceOptions {
  http?: boolean;
  worker?: boolean;
  clock?: Clock;
  logger?: Logger;
  /**
   * Called once with a freshly generated admin token and the file it was saved to (embedded
   * engine only; null with PostgreSQL). Default: print both to stdout.
   */
  onAdminToken?: (token: string, file: string | null) => void;
  /** Where NODE_EXTRA_CA_CERTS is read for the start warnings (start-settings.ts). Default: process.env. */
  env?: NodeJS.ProcessEnv;
}

export interface RunningService {
  ctx: AppContext;
  app?: FastifyInstance;
  /** Address the HTTP server listens on, e.g. http://127.0.0.1:8080. */
  address?: string;
  /** Address of the separate /metrics listener, when VIGIA_METRICS_PORT is set. */
  metricsAddress?: string;
  /** Where a newly generated admin token was saved (embedded engine, first start only). */
  adminTokenFile?: string | null;
  /** True when this start generated the admin token. */
  adminTokenGenerated: boolean;
  /** The start's look for settings stored connections and destinations need (each one also a warning line). */
  startSettings: Promise<StartFinding[]>;
  stop(): Promise<void>;
}

export async function openContext(config: Config, opts: { clock?: Clock; logger?: Logger } = {}): Promise<AppContext> {
  const log = opts.logger ?? createLogger(config.logLevel);
  const sealer = new Sealer(resolveMasterKey(config));
  const db = await openDatabase(config, log);
  await migrate(db);
  return { config, db, clock: opts.clock ?? systemClock, log, sealer };
}

/**
 * Starts the service: migrations, admin token, HTTP (public + admin API) and/or the workers.
 * stop() is the graceful shutdown: stop taking requests and work, finish what is in flight.
 */
export async function startService(config: Config = loadConfig(), opts: ServiceOptions = {}): Promise<RunningService> {
  const ctx = await openContext(config, opts);
  const token = await ensureAdminToken(ctx.db, config.adminToken);
  let adminTokenFile: string | null = null;
  if (ctx.db.dataDirLock) {
    const kept = await keepAdminTokenFile(ctx.db, config.dataDir, token ?? config.adminToken);
    if (token) adminTokenFile = kept.file;
    if (kept.removedStale) ctx.log.warn('removed VIGIA_DATA_DIR/admin-token: it held a token that is no longer in force');
  }
  if (token) {
    const print = (t: string, file: string | null) =>
      process.stdout.write(`\nAdmin token (shown once, store it now): ${t}\n${file ? `  (also saved to ${file}, readable by you only)\n` : ''}\n`);
    (opts.onAdminToken ?? print)(token, adminTokenFile);
  }
  if (config.destinationAllowlist.length > 0) {
    ctx.log.warn({ allowlist: config.destinationAllowlist }, 'VIGIA_DESTINATION_ALLOWLIST is set: these hosts bypass the private-address rule (development and tests only)');
  }

  // In the background: it may resolve host names, and it never stops the start.
  const startSettings = warnMissingStartSettings(ctx, opts.env);

  if (config.databaseReadUrl && opts.http !== false) {
    ctx.readDb = createReadRouter({
      primary: ctx.db,
      replicaUrl: config.databaseReadUrl,
      maxLagSeconds: config.readMaxLagSeconds,
      checkIntervalMs: 1000,
      logger: ctx.log,
    });
  }

  const workers = opts.worker === false ? [] : [await startAlertJobs(ctx), startRetentionJob(ctx), startUtilizationRetentionJob(ctx), startDigestJob(ctx), await startDispatcher(ctx), new CollectorScheduler(ctx).start()];
  registerMonitoringMetrics(ctx);
  let app: FastifyInstance | undefined;
  let address: string | undefined;
  let metricsApp: FastifyInstance | undefined;
  let metricsAddress: string | undefined;
  // Its own listener also serves a worker-only process, whose counters are the sending ones.
  if (config.metricsPort !== undefined) {
    metricsApp = await buildMetricsApp(ctx);
    metricsAddress = await metricsApp.listen({ port: config.metricsPort, host: config.host });
    ctx.log.info({ address: metricsAddress }, 'vigia metrics listening (GET /metrics)');
  }
  if (opts.http !== false) {
    app = await buildApp(ctx);
    address = await app.listen({ port: config.port, host: config.host });
    // Local commands (vigia demo) find the server through the data directory's lock file.
    ctx.db.dataDirLock?.publish({ url: address });
    ctx.log.info({ address }, 'vigia listening');
  }

  let stopping: Promise<void> | undefined;
  return {
    ctx,
    app,
    address,
    metricsAddress,
    adminTokenFile,
    adminTokenGenerated: token !== null,
    startSettings,
    stop() {
      stopping ??= (async () => {
        // A keep-alive connection whose request was in flight when close() began becomes idle
        // only afterwards, and would hold close() until the socket times out (~60 s): close such
        // connections as soon as they are idle.
        const sweep = app ? setInterval(() => app!.server.closeIdleConnections(), 100) : undefined;
        try {
          await Promise.all([app?.close(), metricsApp?.close()]);
        } finally {
          clearInterval(sweep);
        }
        await Promise.all(workers.map((w) => w.stop()));
        await startSettings;
        await ctx.readDb?.close();
        await ctx.db.close();
      })();
      return stopping;
    },
  };
}
