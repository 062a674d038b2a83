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
  .option('--cert <file>', 'TLS certificate (PEM); by default one signed by the local authority ($VIGIA_DATA_DIR/local-ca) is made once and kept in --cert-dir')
  .option('--key <file>', 'TLS private key (PEM)')
  .option('--cert-dir <dir>', 'where the made certificate is kept (default: $VIGIA_DATA_DIR/listen, else ./data/listen)')
  .option('--cert-only', 'make (or find) the certificate, print the path of the file to trust (the local authority) and exit')
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
  .option('--models-per-workspace <n>', 'semantic models per workspace (default 1)')
  .option('--pipelines-per-workspace <n>', 'extra data pipelines per workspace (default 0)')
  .option('--chaos <seconds>', 'change state by itself every so many seconds')
  .option('--seed <n>', 'same seed, same tenant (default 1)')
  .option('--strict', 'check every request against the vendor contracts (violations answered 400)')
  .option('--tenant-id <id>', 'tenant id to answer as')
  .option('--client-id <id>', 'application (client) id to accept')
  .option('--client-secret <secret>', 'client secret to accept (default: a new random one, printed)')
  .option('--app-certificate <file>', "the application's certificate (PEM) whose signed client assertions are accepted")
  .option('--cert <file>', 'TLS certificate (PEM); by default one signed by the local authority ($VIGIA_DATA_DIR/local-ca) is made once and kept in --cert-dir')
  .option('--key <file>', 'TLS private key (PEM)')
  .option('--cert-dir <dir>', 'where the made certificate is kept (default: $VIGIA_DATA_DIR/tenant-sim, else ./data/tenant-sim)')
  .action(async (opts) => {
    const { runTenantSim } = await import('./tenant-sim/cli.js');
    await runTenantSim(opts);
  });

/** `vigia tenants …`: tenant connections through a running server's admin API. */
const tenants = program
  .command('tenants')
  .description('tenant connections of an organization (list, show, add, check, run-now, utilization-setup, remove) through the admin API');
type TargetOpts = { org: string; url?: string; token?: string };
const withTarget = (cmd: Command) =>
  cmd
    .requiredOption('--org <orgId>', 'organization id')
    .option('--url <url>', 'the server (default: the one holding VIGIA_DATA_DIR)')
    .option('--token <token>', 'admin token (default: VIGIA_ADMIN_TOKEN, or the one saved in VIGIA_DATA_DIR)');
const target = async (opts: TargetOpts) => (await import('./cli/admin-target.js')).findAdminTarget(loadConfig(), opts);
const print = (line: string) => process.stdout.write(`${line}\n`);
const collect = (value: string, previous: string[] = []) => [...previous, value];
/** `--lang`: pt-BR or, for anything else, en (the tenants commands' output language). */
const cliLanguage = (lang: string): 'pt-BR' | 'en' => (lang === 'pt-BR' ? 'pt-BR' : 'en');

withTarget(tenants.command('list').description('list the tenant connections'))
  .option('--json', 'print the JSON the admin API answered')
  .option('--lang <lang>', 'en or pt-BR', 'en')
  .action(async (opts: TargetOpts & { json?: boolean; lang: string }) => {
    await (await import('./cli/tenants.js')).listTenants(await target(opts), opts.org, print, opts.json, cliLanguage(opts.lang));
  });
withTarget(tenants.command('show <id>').description("one connection and each collector's state"))
  .option('--json', 'print the JSON the admin API answered')
  .option('--lang <lang>', 'en or pt-BR', 'en')
  .action(async (id: string, opts: TargetOpts & { json?: boolean; lang: string }) => {
    await (await import('./cli/tenants.js')).showTenant(await target(opts), opts.org, id, print, opts.json, cliLanguage(opts.lang));
  });
withTarget(tenants.command('add').alias('connect').description('connect a tenant (flags, or a JSON file of the admin API body); the secret comes from a file or stdin; the token endpoint judges it at once'))
  .option('--file <tenant.json>', 'the POST body as JSON (flags override its fields)')
  .option('--name <name>', 'display name')
  .option('--tenant-id <guid>', 'Entra tenant (directory) id')
  .option('--client-id <guid>', 'application (client) id')
  .option('--mode <mode>', 'admin (read-only admin APIs) or member (the workspaces it belongs to)')
  .option('--workspace <id>', 'member mode: a workspace to watch (repeat)', collect)
  .option('--cost-scope <scope>', 'Cost Management scope, /subscriptions/{id}[/resourceGroups/{name}] (repeat)', collect)
  .option('--endpoint <origin>', 'one origin for the token, Power BI, Fabric and ARM endpoints (the tenant simulator)')
  .option('--collector <name=seconds|on|off>', 'a collector setting, e.g. gateway=300 or costs=off (repeat)', collect)
  .option('--client-secret-stdin', 'read the client secret from stdin')
  .option('--client-secret-file <file>', 'read the client secret from this file')
  .option('--certificate-file <pem>', "the application's certificate (PEM)")
  .option('--private-key-file <pem>', 'its private key (PEM)')
  .option('--lang <lang>', 'en or pt-BR', 'en')
  .action(async (opts: TargetOpts & import('./cli/tenants.js').AddOptions & { lang: string }) => {
    const ok = await (await import('./cli/tenants.js')).addTenant(await target(opts), opts.org, opts, process.stdin, print, cliLanguage(opts.lang));
    if (!ok) process.exitCode = 1;
  });
withTarget(tenants.command('set-credentials <id>').description("replace the connection's credentials (from a file or stdin), then check them"))
  .option('--client-secret-stdin', 'read the client secret from stdin')
  .option('--client-secret-file <file>', 'read the client secret from this file')
  .option('--certificate-file <pem>', "the application's certificate (PEM)")
  .option('--private-key-file <pem>', 'its private key (PEM)')
  .option('--lang <lang>', 'en or pt-BR', 'en')
  .action(async (id: string, opts: TargetOpts & import('./cli/tenants.js').CredentialOptions & { lang: string }) => {
    const ok = await (await import('./cli/tenants.js')).setCredentials(await target(opts), opts.org, id, opts, process.stdin, print, cliLanguage(opts.lang));
    if (!ok) process.exitCode = 1;
  });
withTarget(tenants.command('check <id>').description('what is missing (tokens, admin APIs, workspaces, cost scopes), each with its fix'))
  .option('--lang <lang>', 'en or pt-BR', 'en')
  .action(async (id: string, opts: TargetOpts & { lang: string }) => {
    const ok = await (await import('./cli/tenants.js')).checkTenant(await target(opts), opts.org, id, print, cliLanguage(opts.lang));
    if (!ok) process.exitCode = 1;
  });
withTarget(tenants.command('run-now <id> <collector>').description('make a collector of the connection due now'))
  .action(async (id: string, collector: string, opts: TargetOpts) => {
    await (await import('./cli/tenants.js')).runNow(await target(opts), opts.org, id, collector, print);
  });
withTarget(
  tenants
    .command('utilization-setup <id>')
    .description('create the Eventhouse, KQL database, table and capacity-events Eventstream in a workspace and read capacity load from it (idempotent)'),
)
  .requiredOption('--workspace <guid>', 'the workspace to create them in (the service principal needs Contributor there)')
  .option('--eventhouse <guid>', 'use this Eventhouse of the workspace instead of creating one')
  .option('--capacity <guid>', 'a capacity to route (repeat; default every capacity the principal sees)', collect)
  .option('--lang <lang>', 'en or pt-BR', 'en')
  .action(async (id: string, opts: TargetOpts & { workspace: string; eventhouse?: string; capacity?: string[]; lang: string }) => {
    const ok = await (await import('./cli/tenants.js')).setUpUtilization(await target(opts), opts.org, id, opts, print, cliLanguage(opts.lang));
    if (!ok) process.exitCode = 1;
  });
withTarget(tenants.command('remove <id>').description('delete the connection (its incidents are resolved, its credentials deleted)'))
  .action(async (id: string, opts: TargetOpts) => {
    await (await import('./cli/tenants.js')).removeTenant(await target(opts), opts.org, id, print);
  });

/** `vigia orgs settings` and `vigia destinations create` (docs/notifications.md). */
const orgsCmd = program.command('orgs').description("an organization's settings through the admin API");
withTarget(orgsCmd.command('settings').description('show, or change with flags, the language, time zone and acknowledge-link sign-in rule'))
  .option('--language <lang>', 'pt-BR or en')
  .option('--time-zone <zone>', 'IANA time zone, e.g. America/Sao_Paulo')
  .option('--ack-requires-sign-in <on|off>', 'acknowledge links act only for a signed-in person')
  .option('--json', 'print the settings as JSON')
  .action(async (opts: TargetOpts & import('./cli/notify.js').OrgSettingsOptions) => {
    await (await import('./cli/notify.js')).orgSettings(await target(opts), opts.org, opts, print);
  });
const destinationsCmd = program.command('destinations').description('destinations of an organization through the admin API');
withTarget(destinationsCmd.command('create').description('a Teams, Slack or e-mail destination; the webhook URL and signing secret come from a file or stdin'))
  .requiredOption('--kind <kind>', 'teams, slack or email')
  .requiredOption('--name <name>', 'display name')
  .option('--url-file <file>', 'the Teams / Slack webhook URL, read from this file')
  .option('--url-stdin', 'read the webhook URL from stdin')
  .option('--recipient <address>', 'e-mail: a recipient (repeat)', collect)
  .option('--signing-secret-file <file>', "slack: the Slack app's signing secret (buttons that act), from this file")
  .option('--signing-secret-stdin', "slack: read the Slack app's signing secret from stdin")
  .option('--json', 'print the JSON the admin API answered')
  .action(async (opts: TargetOpts & import('./cli/notify.js').DestinationCreateOptions) => {
    await (await import('./cli/notify.js')).createDestination(await target(opts), opts.org, opts, process.stdin, print);
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
  if (err instanceof Error && err.name === 'CliError') {
    process.stderr.write(`vigia: ${err.message}\n`);
    process.exit(1);
  }
  if (err instanceof ConfigError) {
    process.stderr.write(`configuration error: ${err.message}\n`);
    process.exit(2);
  }
  process.stderr.write(`${err instanceof Error ? err.stack ?? err.message : String(err)}\n`);
  process.exit(1);
});
