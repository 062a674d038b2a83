/** `vigia tenant-sim`: runs the simulator in the foreground and prints how to connect to it. */
import { readFileSync } from 'node:fs';
import path from 'node:path';
import { defaultCaDir, ensureLocalCert } from '../receiver/local-ca.js';
import { startTenantSimulator } from './index.js';

export interface TenantSimCliOptions {
  port?: string;
  host?: string;
  capacities?: string;
  workspaces?: string;
  gateways?: string;
  members?: string;
  costDays?: string;
  modelsPerWorkspace?: string;
  pipelinesPerWorkspace?: string;
  chaos?: string;
  seed?: string;
  strict?: boolean;
  cert?: string;
  key?: string;
  certDir?: string;
  tenantId?: string;
  clientId?: string;
  clientSecret?: string;
  appCertificate?: string;
}

function count(name: string, v: string | undefined): number | undefined {
  if (v === undefined) return undefined;
  const n = Number(v);
  if (!Number.isInteger(n) || n < 0) throw new Error(`--${name} must be a non-negative integer`);
  return n;
}

export function defaultSimCertDir(env: NodeJS.ProcessEnv = process.env): string {
  return path.resolve(env.VIGIA_DATA_DIR || './data', 'tenant-sim');
}

export async function runTenantSim(opts: TenantSimCliOptions): Promise<void> {
  if (Boolean(opts.cert) !== Boolean(opts.key)) throw new Error('--cert and --key go together');
  const tls = opts.cert && opts.key
    ? { cert: readFileSync(opts.cert, 'utf8'), key: readFileSync(opts.key, 'utf8'), certFile: path.resolve(opts.cert), caFile: path.resolve(opts.cert) }
    : ensureLocalCert(opts.certDir ?? defaultSimCertDir(), defaultCaDir());
  const host = opts.host ?? '127.0.0.1';
  const chaos = count('chaos', opts.chaos);
  const sim = await startTenantSimulator({
    port: count('port', opts.port) ?? 9444,
    host,
    advertisedHost: host === '127.0.0.1' || host === '::1' ? 'localhost' : host,
    tls: { cert: tls.cert, key: tls.key },
    tenantId: opts.tenantId,
    clientId: opts.clientId,
    clientSecret: opts.clientSecret,
    certificatePem: opts.appCertificate ? readFileSync(opts.appCertificate, 'utf8') : undefined,
    seed: count('seed', opts.seed),
    strict: opts.strict === true,
    sizes: {
      capacities: count('capacities', opts.capacities),
      workspaces: count('workspaces', opts.workspaces),
      gateways: count('gateways', opts.gateways),
      membersPerGateway: count('members', opts.members),
      costDays: count('cost-days', opts.costDays),
      modelsPerWorkspace: count('models-per-workspace', opts.modelsPerWorkspace),
      pipelinesPerWorkspace: count('pipelines-per-workspace', opts.pipelinesPerWorkspace),
    },
    chaos: chaos ? { everySeconds: chaos, onChange: (c) => process.stdout.write(`chaos: ${c}\n`) } : false,
  });
  const s = sim.state;
  const g = s.gateways[0];
  process.stdout.write(
    [
      `tenant simulator on ${sim.origin} (Entra, Power BI, Fabric, ARM and Cost Management at one origin); Ctrl+C to stop`,
      `  tenantId:     ${sim.tenantId}`,
      `  clientId:     ${sim.clientId}`,
      `  clientSecret: ${sim.clientSecret}`,
      `  endpoints:    {"authorityHost":"${sim.origin}","powerBi":"${sim.origin}","fabric":"${sim.origin}","arm":"${sim.origin}"}`,
      `  cost scope:   /subscriptions/${s.settings.subscriptionId}`,
      `  tenant:       ${s.capacities.length} capacities, ${s.workspaces.length} workspaces, ${s.gateways.length} gateways, ${s.costs.length} cost rows${opts.strict ? ', strict' : ''}${chaos ? `, chaos every ${chaos} s` : ''}`,
      `certificate: ${tls.certFile}`,
      `  (clients must trust it: start Vigia with NODE_EXTRA_CA_CERTS=${tls.caFile}, and allow the host with VIGIA_DESTINATION_ALLOWLIST=${new URL(sim.origin).hostname})`,
      'control, for example:',
      `  curl --cacert ${tls.caFile} ${sim.origin}/_sim/state`,
      ...(g ? [`  curl --cacert ${tls.caFile} -X POST ${sim.origin}/_sim/gatewayOffline -H 'content-type: application/json' -d '{"gatewayId":"${g.id}"}'`] : []),
      '',
    ].join('\n'),
  );
  const stop = () => void sim.stop().then(() => process.exit(0));
  process.once('SIGINT', stop);
  process.once('SIGTERM', stop);
}
