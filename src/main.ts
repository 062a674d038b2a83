import { Command } from 'commander';
import { loadConfig, ConfigError } from './config.js';
import { DataDirLockedError } from './db/data-dir-lock.js';
import { VERSION } from './version.js';

const program = new Command();
program.name('vigia').description('Alert webhook delivery and read-only public API').version(VERSION).showHelpAfterError();

program
  .command('serve')
  .description('serve the public API, the admin API and run the delivery worker')
  .option('--no-worker', 'serve HTTP only, run no delivery or alert worker')
  .option('--worker-only', 'run the workers only, serve no HTTP')
  .action(async (opts: { worker: boolean; workerOnly?: boolean }) => {
    const { startService } = await import('./service.js');
    const config = loadConfig();
    const service = await startService(config, {
      http: !opts.workerOnly,
      worker: opts.worker,
    });
    // Handlers first: whoever reads the lines below may signal at once.
    const shutdown = (signal: string) => {
      service.ctx.log.info({ signal }, 'shutting down');
      service.stop().then(
        () => process.exit(0),
        (err) => {
          service.ctx.log.error({ err }, 'shutdown failed');
          process.exit(1);
        },
      );
    };
    process.once('SIGTERM', () => shutdown('SIGTERM'));
    process.once('SIGINT', () => shutdown('SIGINT'));
    if (!service.address) {
      // Without HTTP nothing else would ever show that the process started and what it does.
      service.ctx.log.info(
        { engine: config.databaseUrl ? 'pg' : 'pglite', worker: opts.worker },
        opts.worker
          ? 'vigia worker running (--worker-only): delivering webhooks and connector events and running the alert jobs; no HTTP served; stop with SIGTERM'
          : 'vigia started with neither HTTP nor workers: nothing to do',
      );
    }
    if (process.stdout.isTTY && service.address) {
      const { renderBanner } = await import('./banner.js');
      process.stdout.write(
        renderBanner({
          config,
          address: service.address,
          engine: config.databaseUrl ? 'pg' : 'pglite',
          adminTokenGenerated: service.adminTokenGenerated,
          adminTokenFile: service.adminTokenFile,
          version: VERSION,
        }),
      );
    }
  });

program
  .command('migrate')
  .description('apply database migrations and exit')
  .action(async () => {
    const { openDatabase, migrate } = await import('./db/index.js');
    const db = await openDatabase(loadConfig());
    const applied = await migrate(db);
    await db.close();
    process.stdout.write(applied.length ? `applied: ${applied.join(', ')}\n` : 'database is up to date\n');
  });

program
  .command('demo')
  .description('create a demo organization with inventory, an API key and a stream of signals, then watch a simulated tenant live: a gateway goes offline, the incident opens and is delivered (no Microsoft account needed)')
  .option('--url <url>', 'seed a running server at this address through its admin API')
  .option('--token <token>', 'admin token for --url (default: VIGIA_ADMIN_TOKEN, or the one saved in VIGIA_DATA_DIR)')
  .option('--no-live', 'only seed the demo organization; skip the live story on the tenant simulator')
  .action(async (opts: { url?: string; token?: string; live: boolean }) => {
    const { runDemo } = await import('./demo.js');
    await runDemo(loadConfig(), opts);
  });

program
  .command('listen')
  .description('run a local HTTPS receiver that verifies signatures, prints each delivery and can forward it to your app')
  .option('--secret <whsec>', 'signing secret of the destination (required unless --cert-only)')
  .option('--port <port>', 'port', '9443')
  .option('--host <host>', 'address', '127.0.0.1')
  .option('--forward-to <url>', 'hand each verified delivery (raw body, headers) to this local app and answer with its reply')
  .option('--cert <file>', 'TLS certificate (PEM); by default a self-signed one is made once and kept in --cert-dir')
  .option('--key <file>', 'TLS private key (PEM)')
  .option('--cert-dir <dir>', 'where the self-signed certificate is kept (default: $VIGIA_DATA_DIR/listen, else ./data/listen)')
  .option('--cert-only', 'make (or find) the certificate, print its path and exit')
  .action(async (opts) => {
    const { runListener } = await import('./receiver/listen.js');
    await runListener(opts);
  });

program
  .command('tenant-sim')
  .description('run a simulated Power BI / Fabric tenant (Entra tokens, Power BI, Fabric, ARM, Cost Management) on local HTTPS')
  .option('--port <port>', 'port', '9444')
  .option('--host <host>', 'address', '127.0.0.1')
  .option('--capacities <n>', 'capacities (default 3)')
  .option('--workspaces <n>', 'workspaces (default 20)')
  .option('--gateways <n>', 'gateways (default 4)')
  .option('--members <n>', 'members per gateway (default 2)')
  .option('--cost-days <n>', 'days of daily costs (default 90)')
  .option('--chaos <seconds>', 'change state by itself every so many seconds')
  .option('--seed <n>', 'same seed, same tenant (default 1)')
  .option('--strict', 'check every request against the vendor contracts (violations answered 400)')
  .option('--tenant-id <id>', 'tenant id to answer as')
  .option('--client-id <id>', 'application (client) id to accept')
  .option('--client-secret <secret>', 'client secret to accept (default: a new random one, printed)')
  .option('--app-certificate <file>', "the application's certificate (PEM) whose signed client assertions are accepted")
  .option('--cert <file>', 'TLS certificate (PEM); by default a self-signed one is made once and kept in --cert-dir')
  .option('--key <file>', 'TLS private key (PEM)')
  .option('--cert-dir <dir>', 'where the self-signed certificate is kept (default: $VIGIA_DATA_DIR/tenant-sim, else ./data/tenant-sim)')
  .action(async (opts) => {
    const { runTenantSim } = await import('./tenant-sim/cli.js');
    await runTenantSim(opts);
  });

program.parseAsync(process.argv).catch((err: unknown) => {
  if (err instanceof DataDirLockedError) {
    process.stderr.write(`vigia: ${err.message}\n`);
    process.exit(3);
  }
  if (err instanceof Error && err.name === 'DemoError') {
    process.stderr.write(`vigia demo: ${err.message}\n`);
    process.exit(1);
  }
  if (err instanceof ConfigError) {
    process.stderr.write(`configuration error: ${err.message}\n`);
    process.exit(2);
  }
  process.stderr.write(`${err instanceof Error ? err.stack ?? err.message : String(err)}\n`);
  process.exit(1);
});
