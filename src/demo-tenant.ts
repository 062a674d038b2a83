/**
 * The live part of `vigia demo`: a simulated Power BI / Fabric tenant watched by Vigia, with no
 * Microsoft account. In this one process it starts the tenant simulator, Vigia (HTTP, workers,
 * collectors, on a throwaway embedded database) and a local HTTPS receiver; connects the simulator as a tenant whose collectors
 * run every 5 s; then takes a gateway offline and prints each step a newcomer should see: the
 * incident opens, the signed delivery reaches the receiver, the public API lists it. A refresh
 * bound to that gateway then fails: with a `refreshes` collector it is correlated to the
 * gateway's incident (recorded, not paged); without one, the demo says what it would show.
 * Then what changed before it broke (src/demo-changes.ts): "someone" rotates a data source's
 * credentials, another model's refresh fails, and its incident names that change.
 * Last, capacity load (src/demo-capacity-load.ts): Vigia sets up the Eventhouse source, a
 * capacity is throttled, the incident names the heaviest item, and it recovers.
 *
 * The simulator and the receiver serve `vigia listen`'s certificate, signed by the local
 * authority; Node reads NODE_EXTRA_CA_CERTS only at start, so the demo re-runs itself once with
 * it set to that authority.
 */
import { spawn } from 'node:child_process';
import { mkdtemp, rm } from 'node:fs/promises';
import { createServer } from 'node:net';
import { tmpdir } from 'node:os';
import path from 'node:path';
import type { Config } from './config.js';
import { capacityLoadStory } from './demo-capacity-load.js';
import { changeStory } from './demo-changes.js';
import { startMailSink, type MailSink } from './demo-mail-sink.js';
import { startTeamsSink, type TeamsSink } from './demo-teams-sink.js';
import type { SmtpConfig } from './config-smtp.js';
import { createDestination } from './delivery/destination-service.js';
import { IMPLEMENTED_COLLECTORS } from './monitoring/connection/implemented.js';
import { createTenant } from './monitoring/tenants.js';
import { API_SCOPES, createApiKey } from './orgs/api-keys.js';
import { createOrg } from './orgs/orgs.js';
import { defaultCertDir, startListener } from './receiver/listen.js';
import { defaultCaDir, ensureLocalCert } from './receiver/local-ca.js';
import { startService, type RunningService } from './service.js';
import { startTenantSimulator, type TenantSim } from './tenant-sim/index.js';

/** The gateway-unreachable code Power BI gives a refresh whose gateway does not answer. */
export const GATEWAY_UNREACHABLE = 'DM_GWPipeline_Client_GatewayUnreachable';
const COLLECTOR_INTERVAL_SECONDS = 5;
const STEP_TIMEOUT_MS = 60_000;

export class LiveDemoError extends Error {
  override name = 'DemoError';
}

export interface LiveDemoOptions {
  /** Where each line goes (default stdout). */
  out?: (line: string) => void;
  /** How long one step may wait (default 90 s). */
  stepTimeoutMs?: number;
}

export interface LiveDemoResult {
  orgId: string;
  apiKey: string;
  gatewayAlertId: string;
  delivered: boolean;
  /** What became of the dependent refresh failure: correlated, paged, or not seen in time. */
  refresh: 'correlated' | 'not-correlated' | 'not-seen';
}

/**
 * Runs the demo again in a child process that trusts the demo certificate, unless this process
 * already does. Resolves with the child's exit code, or null when this process may go on itself.
 */
export async function rerunTrustingDemoCert(config: Config): Promise<number | null> {
  const cert = ensureLocalCert(demoCertDir(config), defaultCaDir({ VIGIA_DATA_DIR: config.dataDir }));
  if (process.env.NODE_EXTRA_CA_CERTS === cert.caFile) return null;
  const child = spawn(process.execPath, [...process.execArgv, ...process.argv.slice(1)], {
    env: { ...process.env, NODE_EXTRA_CA_CERTS: cert.caFile },
    stdio: 'inherit',
  });
  return new Promise((resolve) => child.on('exit', (code, signal) => resolve(code ?? (signal ? 1 : 0))));
}

function demoCertDir(config: Config): string {
  return defaultCertDir({ VIGIA_DATA_DIR: config.dataDir });
}

async function freePort(): Promise<number> {
  const server = createServer();
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', () => resolve()));
  const addr = server.address();
  await new Promise<void>((resolve) => server.close(() => resolve()));
  return typeof addr === 'object' && addr ? addr.port : 0;
}

async function until<T>(what: string, timeoutMs: number, probe: () => Promise<T | null | undefined>): Promise<T> {
  const deadline = Date.now() + timeoutMs;
  for (;;) {
    const found = await probe();
    if (found !== null && found !== undefined) return found;
    if (Date.now() > deadline) throw new LiveDemoError(`gave up after ${Math.round(timeoutMs / 1000)} s waiting for ${what}`);
    await new Promise((r) => setTimeout(r, 250));
  }
}

/** The gateway to take offline: one that a semantic model's data source goes through (for the refresh step). */
function pickGateway(sim: TenantSim) {
  for (const ws of sim.state.workspaces) {
    for (const item of ws.items) {
      if (item.type !== 'SemanticModel' || !item.gatewayDatasourceId) continue;
      const gateway = sim.state.gateways.find((g) => g.datasources.some((d) => d.id === item.gatewayDatasourceId));
      if (gateway) return { gateway, model: item };
    }
  }
  const gateway = sim.state.gateways[0];
  if (!gateway) throw new LiveDemoError('the simulated tenant has no gateway');
  return { gateway, model: null };
}

type Step = (n: number, text: string) => void;

export async function runLiveDemo(config: Config, opts: LiveDemoOptions = {}): Promise<LiveDemoResult> {
  const out = opts.out ?? ((line: string) => process.stdout.write(`${line}\n`));
  const timeout = opts.stepTimeoutMs ?? STEP_TIMEOUT_MS;
  const cert = ensureLocalCert(demoCertDir(config), defaultCaDir({ VIGIA_DATA_DIR: config.dataDir }));
  const step: Step = (n, text) => out(`  ${String(n).padStart(2)}. ${text}`);

  out('');
  out('Live: Vigia watches a simulated Power BI / Fabric tenant (no Microsoft account needed).');
  const sim = await startTenantSimulator({ port: 0, host: '127.0.0.1', tls: { cert: cert.cert, key: cert.key }, strict: true, seed: 7 });
  const sink = await startMailSink(path.resolve(config.dataDir, 'demo-mail'), { cert: cert.cert, key: cert.key }).catch(() => null);
  const teams = await startTeamsSink(path.resolve(config.dataDir, 'demo-teams'), { cert: cert.cert, key: cert.key });
  let service: RunningService | undefined;
  let receiver: Awaited<ReturnType<typeof startListener>> | undefined;
  let scratch: string | undefined;
  try {
    const s = sim.state;
    step(1, `tenant simulator at ${sim.origin}: ${s.capacities.length} capacities, ${s.workspaces.length} workspaces, ${s.gateways.length} gateways (answers as Entra ID, Power BI, Fabric, ARM and Cost Management)`);

    // Its own throwaway embedded database: a server running on the configured one would otherwise
    // claim the demo's collectors too.
    scratch = await mkdtemp(path.join(tmpdir(), 'vigia-demo-live-'));
    service = await startService(liveConfig(config, scratch, sink?.smtp), { onAdminToken: () => undefined });
    const ctx = service.ctx;
    step(2, `Vigia running in this process at ${service.address!.replace('127.0.0.1', 'localhost')} (delivery worker, alert jobs, collectors)`);

    const demo = await demoOrgAndReceiver(ctx, cert, sink !== null, teams.webhookUrl);
    receiver = demo.receiver;
    const { org, apiKey, received } = demo;
    step(3, `organization "${org.name}" (${org.id}), an API key and a webhook destination → local receiver ${receiver.url}; an e-mail and a Teams destination too`);

    const tenant = await connectSimulatedTenant(ctx, org.id, sim, step);
    await firstGatewayRun(ctx, tenant.id, timeout);
    step(5, `the gateway collector's first complete pass is done: ${s.gateways.length} gateways online, nothing to report`);

    const { gateway, model, alert } = await gatewayGoesOffline({ ctx, sim, orgId: org.id, apiKey, address: service.address!, received, timeout, step });
    const refresh = await dependentRefresh({ ctx, sim, orgId: org.id, gatewayAlertId: alert.id, model, timeout, step });

    sim.control.gatewayOffline({ gatewayId: gateway.id, offline: false });
    await until('the resolution at the receiver', timeout, async () => received.find((l) => l.includes(`alert=${alert.id}`) && l.includes('alert.recovered')));
    step(11, `"${gateway.displayName}" is back online: the next run resolves the incident and the receiver gets alert.recovered`);
    const next = await changeStory({ ctx, sim, orgId: org.id, tenantRef: tenant.id, timeout, step, until }, 12, model?.id ?? null);
    await capacityLoadStory({ ctx, sim, orgId: org.id, tenantRef: tenant.id, timeout, step, until, received }, next);
    await reportMail(sink, timeout, out);
    await reportTeams(teams, timeout, out);
    out('');
    out(`  This live story ran on its own Vigia and throwaway database, gone now with its organization "${org.name}" and its API key.\n  The API key printed above, under "Vigia demo ready", is the one that works on your server.`);
    out(`  The simulator checked every request against the vendors' contracts: ${sim.violations.length === 0 ? 'no violation' : sim.violations.join('; ')}.`);
    out('  Run it yourself: npm run vigia -- tenant-sim (docs/monitoring.md), then connect it on the console\'s Tenant page.');
    return { orgId: org.id, apiKey, gatewayAlertId: alert.id, delivered: true, refresh };
  } finally {
    await sink?.close();
    await teams.close();
    await receiver?.close();
    await service?.stop();
    await sim.stop();
    if (scratch) await rm(scratch, { recursive: true, force: true });
  }
}

/**
 * The demo's own Vigia: on a throwaway embedded database in `scratch`. Loopback is a private
 * address: only the allowlist lets Vigia reach the simulator and the receiver.
 */
function liveConfig(config: Config, scratch: string, smtp: SmtpConfig | undefined): Config {
  return {
    ...config,
    port: 0,
    host: '127.0.0.1',
    logLevel: 'error',
    databaseUrl: undefined,
    databaseReadUrl: undefined,
    dataDir: scratch,
    adminToken: undefined,
    redisUrl: undefined,
    metricsPort: undefined,
    oidc: undefined,
    destinationAllowlist: [...config.destinationAllowlist, '127.0.0.1', 'localhost'],
    smtp,
  };
}

/** The e-mail side of the story: what the local SMTP sink received, and where the messages are. */
async function reportMail(sink: MailSink | null, timeout: number, out: (line: string) => void): Promise<void> {
  out('');
  if (!sink) {
    out('  E-mail: no local SMTP sink (the smtp-server package is a development dependency: npm install without --omit=dev).');
    return;
  }
  // The gateway's opening and recovery reached the webhook; their e-mails follow within moments.
  await until('the e-mails at the local SMTP sink', timeout, async () => (sink.files.length >= 2 ? true : null)).catch(() => undefined);
  out(`  E-mail: the e-mail destination "demo e-mail" sent ${sink.files.length} message(s) to a local SMTP sink (smtp://localhost:${sink.smtp.port}, STARTTLS),`);
  out(`  one thread per incident, saved as .eml files in ${sink.dir}`);
  if (sink.files.length > 0) out(`  Open one in any mail client: ${sink.files[sink.files.length - 1]}`);
}

/** The Teams side: the cards the Teams-shaped receiver took, and where they are. */
async function reportTeams(sink: TeamsSink, timeout: number, out: (line: string) => void): Promise<void> {
  // Openings of one tenant are grouped for 30 s (groupWaitSeconds) before the card goes out.
  await until('the cards at the Teams-shaped receiver', timeout, async () => (sink.files.length >= 2 ? true : null)).catch(() => undefined);
  out(`  Teams: the destination "demo Teams" posted ${sink.files.length} Adaptive Card(s) to a Teams-shaped receiver (answering 202 as a Workflows webhook does),`);
  out(`  openings of one tenant within 30 s grouped into one card; saved as .json files in ${sink.dir}`);
  if (sink.files.length > 0) out(`  Paste one into https://adaptivecards.microsoft.com/designer (host app: Microsoft Teams) to see it as Teams shows it: ${sink.files[0]}`);
  out('  on your server, a destination\'s page in the console previews its card, blocks or e-mail before you save it.');
}

/** Step 3: the demo organization, its API key, a webhook destination to a local receiver, the e-mail and Teams ones. */
async function demoOrgAndReceiver(ctx: RunningService['ctx'], cert: ReturnType<typeof ensureLocalCert>, withEmail: boolean, teamsUrl: string) {
  const org = await createOrg(ctx, { name: 'Demo — simulated tenant' });
  const apiKey = (await createApiKey(ctx, org.id, { name: 'demo live (all scopes)', scopes: API_SCOPES })).key;
  const port = await freePort();
  const destination = await createDestination(ctx, org.id, { name: 'demo receiver', kind: 'webhook', url: `https://localhost:${port}/` });
  // E-mail sends each opening at once (groupWaitSeconds 0: one .eml thread per incident to open);
  // Teams keeps the default 30 s window, so its cards show the grouping.
  if (withEmail) await createDestination(ctx, org.id, { name: 'demo e-mail', kind: 'email', config: { recipients: ['bi-team@demo.vigia.test'], groupWaitSeconds: 0 } });
  await createDestination(ctx, org.id, { name: 'demo Teams', kind: 'teams', credentials: { webhookUrl: teamsUrl } });
  const received: string[] = [];
  const receiver = await startListener({
    secret: destination.signingSecret!,
    port,
    host: '127.0.0.1',
    cert: cert.certFile,
    key: cert.keyFile,
    out: (line) => received.push(line),
  });
  return { org, apiKey, received, receiver };
}

/** Step 4: the simulator connected as the organization's tenant, its collectors every few seconds. */
async function connectSimulatedTenant(ctx: RunningService['ctx'], orgId: string, sim: TenantSim, step: Step) {
  const collectors = Object.fromEntries(
    [...IMPLEMENTED_COLLECTORS].filter((n) => n !== 'costs').map((n) => [n, { enabled: true, intervalSeconds: COLLECTOR_INTERVAL_SECONDS }]),
  );
  const tenant = await createTenant(ctx, orgId, {
    name: 'Contoso (simulated)',
    tenantId: sim.tenantId,
    clientId: sim.clientId,
    credentials: { clientSecret: sim.clientSecret },
    mode: 'admin',
    endpoints: { authorityHost: sim.origin, powerBi: sim.origin, fabric: sim.origin, arm: sim.origin },
    collectors,
    // The simulator answers Vigia alone: all of each documented cap (the activity log's 200 calls an hour) is Vigia's.
    capSharePercent: 100,
  });
  step(4, `tenant connected (admin mode, every endpoint = the simulator); collectors ${Object.keys(collectors).join(', ')} every ${COLLECTOR_INTERVAL_SECONDS} s`);
  return tenant;
}

/** Waits for the gateway collector's first run; its error stops the demo. */
async function firstGatewayRun(ctx: RunningService['ctx'], tenantRef: string, timeout: number): Promise<void> {
  // The gateway collector's first complete pass (every gateway read once): until it ends, what it
  // finds counts as "found at connection" (summed up by TenantConnected, never paged), so the
  // outage below would not page.
  const firstPass = await until('the gateway collector\'s first complete pass', timeout, async () => {
    const { rows } = await ctx.db.query<{ first_pass_done: boolean; last_error: string | null }>(
      "SELECT first_pass_done, last_error FROM collector_schedules WHERE tenant_ref = $1 AND collector = 'gateway'",
      [tenantRef],
    );
    return rows[0]?.first_pass_done || rows[0]?.last_error ? rows[0] : null;
  });
  if (firstPass.last_error) throw new LiveDemoError(`the gateway collector failed: ${firstPass.last_error}`);
}

/** Steps 6 to 9: a gateway goes offline; the incident opens, is delivered, and the public API lists it. */
async function gatewayGoesOffline(a: {
  ctx: RunningService['ctx'];
  sim: TenantSim;
  orgId: string;
  apiKey: string;
  address: string;
  received: string[];
  timeout: number;
  step: Step;
}) {
  const { ctx, sim, timeout, step } = a;
  const { gateway, model } = pickGateway(sim);
  sim.control.gatewayOffline({ gatewayId: gateway.id, offline: true });
  step(6, `in the simulator, "${gateway.displayName}" goes offline`);

  const alert = await until('the gateway incident', timeout, async () => {
    const { rows } = await ctx.db.query<{ id: string; title: string; severity: string }>(
      "SELECT id, title, severity FROM alerts WHERE org_id = $1 AND source_type = 'Gateway' AND source_id = $2 AND notification_kind = 'GatewayOffline' AND status = 'open'",
      [a.orgId, gateway.id],
    );
    return rows[0];
  });
  step(7, `incident opened by the gateway collector: [${alert.severity}] ${alert.title} (${alert.id})`);

  const delivery = await until('the delivery at the receiver', timeout, async () => a.received.find((l) => l.includes(`alert=${alert.id}`) && l.includes('alert.opened')));
  step(8, `the receiver verified the signed delivery: ${delivery.replace(/^\S+ /, '')}`);

  let lastAnswer = '';
  const listed = await until('the public API to list the incident', timeout, async () => {
    const res = await fetch(`${a.address}/api/public/v1/alerts?status=open&sourceType=Gateway`, { headers: { 'X-Api-Key': a.apiKey } });
    lastAnswer = `${res.status} ${(await res.clone().text()).slice(0, 300)}`;
    const page = (await res.json()) as { value?: { sourceName: string; notificationKind: string; status: string }[] };
    return page.value?.find((x) => x.notificationKind === 'GatewayOffline' && x.sourceName === gateway.displayName);
  }).catch((err: Error) => {
    throw new LiveDemoError(`${err.message} (last answer: ${lastAnswer})`);
  });
  step(9, `the public API lists it: GET /api/public/v1/alerts?status=open&sourceType=Gateway → ${listed.notificationKind} ${listed.sourceName} (${listed.status}); its members' incidents are correlated to it and do not page`);
  return { gateway, model, alert };
}

/** Step 10: a refresh whose data source goes through the offline gateway fails. */
async function dependentRefresh(a: {
  ctx: RunningService['ctx'];
  sim: TenantSim;
  orgId: string;
  gatewayAlertId: string;
  model: ReturnType<typeof pickGateway>['model'];
  timeout: number;
  step: Step;
}): Promise<LiveDemoResult['refresh']> {
  if (!a.model) {
    a.step(10, 'no semantic model of the simulated tenant goes through this gateway: refresh step skipped');
    return 'not-seen';
  }
  a.sim.control.refreshResult({ datasetId: a.model.id, status: 'Failed', errorCode: GATEWAY_UNREACHABLE });
  const what = `a refresh of "${a.model.displayName}" (its data source goes through that gateway) fails with ${GATEWAY_UNREACHABLE}`;
  const row = await until('the refresh failure', a.timeout, async () => {
    const { rows } = await a.ctx.db.query<{ id: string; correlated: boolean; cause_alert_ids: string[] | null }>(
      "SELECT id, correlated, cause_alert_ids FROM alerts WHERE org_id = $1 AND source_type = 'Dataset' AND source_id = $2 ORDER BY created_at DESC LIMIT 1",
      [a.orgId, a.model!.id],
    );
    return rows[0];
  }).catch(() => null);
  if (!row) {
    a.step(10, `${what}; the refreshes collector did not report it in time`);
    return 'not-seen';
  }
  const correlated = row.correlated && (row.cause_alert_ids ?? []).includes(a.gatewayAlertId);
  a.step(10, `${what}: incident ${row.id} ${correlated ? 'correlated to the gateway incident — recorded, not paged' : 'opened but NOT correlated to the gateway incident'}`);
  return correlated ? 'correlated' : 'not-correlated';
}
