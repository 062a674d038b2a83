/**
 * The tenant simulator: one local HTTPS server that answers as Entra ID's token endpoint, Power
 * BI, Fabric, Azure Resource Manager and Cost Management do for a generated tenant, with a control
 * API to change its state. Tests import it; `vigia tenant-sim` runs it. See docs/monitoring.md,
 * "The tenant simulator".
 */
import { randomBytes, randomUUID } from 'node:crypto';
import { createServer, type Server } from 'node:https';
import type { AddressInfo } from 'node:net';
import { CONTROL_OPERATIONS, createControl, type Faults, type SimControl } from './control.js';
import { Entra } from './entra.js';
import { DEFAULT_SIZES, generateTenant, guidFrom, seededRandom } from './generate.js';
import { generateLazyTenant } from './lazy-tenant.js';
import { Limits } from './limits.js';
import type { SimRuntime } from './runtime.js';
import { newScannerBook, resetScannerBook, SCANNER_CONTROL_OPERATIONS, type ScannerControl, scannerControl } from './scanner.js';
import { handleRequest } from './server.js';
import type { CallFilter, RecordedRequest, ScannerBook, SimState, TenantSimOptions } from './types.js';

export type { SimControl } from './control.js';
export { SimControlError, CONTROL_OPERATIONS } from './control.js';
export { DOCUMENTED_CAPS, ARM_BUCKET } from './limits.js';
export { ENTERPRISE_SIZES, itemById, lazyOf, workspaceById } from './lazy-tenant.js';
export { AUDIENCES } from './entra.js';
export { COST_MAX_DAYS, COST_API_VERSION } from './azure.js';
export type * from './types.js';
export { API_FAMILIES } from './types.js';

export interface TenantSim {
  /** https://HOST:PORT — stands for the login, Power BI, Fabric and ARM origins at once. */
  origin: string;
  tenantId: string;
  clientId: string;
  clientSecret: string;
  /** Plain data: change it directly or through `control`. */
  state: SimState;
  control: SimControl & ScannerControl;
  /** Every request, in arrival order. */
  requests: RecordedRequest[];
  /** Contract violations seen (strict mode); tests assert this stays empty. */
  violations: string[];
  countCalls(filter?: CallFilter): number;
  stop(): Promise<void>;
}

export function matchesFilter(r: RecordedRequest, f: CallFilter = {}): boolean {
  if (f.family !== undefined && r.family !== f.family) return false;
  if (f.method !== undefined && r.method !== f.method.toUpperCase()) return false;
  if (f.operationId !== undefined && r.operationId !== f.operationId) return false;
  if (f.throttled !== undefined && r.throttled !== f.throttled) return false;
  if (f.status !== undefined && r.status !== f.status) return false;
  if (f.since !== undefined && r.at < f.since) return false;
  if (f.path !== undefined && !(typeof f.path === 'string' ? r.path.startsWith(f.path) : f.path.test(r.path))) return false;
  return true;
}

export async function startTenantSimulator(opts: TenantSimOptions): Promise<TenantSim> {
  const seed = opts.seed ?? 1;
  const now = opts.now ?? Date.now;
  const ids = seededRandom(seed ^ 0x5eed);
  const tenantId = opts.tenantId ?? guidFrom(ids);
  const clientId = opts.clientId ?? guidFrom(ids);
  const clientSecret = opts.clientSecret ?? `sim~${randomBytes(24).toString('base64url')}`;
  // An option left undefined keeps its default.
  const sizes = { ...DEFAULT_SIZES, ...Object.fromEntries(Object.entries(opts.sizes ?? {}).filter(([, v]) => v !== undefined)) };
  const generate = () => (opts.lazy ? generateLazyTenant : generateTenant)({ seed, sizes, tenantId, now: now() });

  const faults: Faults = { huge: new Map(), garbage: new Set(), odd: new Map() };
  const limits = new Limits(now);
  const requests: RecordedRequest[] = [];
  const violations: string[] = [];
  const entra = new Entra({
    tenantId,
    clientId,
    clientSecret,
    thumbprints: Entra.thumbprintsOf(opts.certificatePem, opts.certificateThumbprint),
    certificatePem: opts.certificatePem,
    tokenLifetimeSeconds: opts.tokenLifetimeSeconds ?? 3599,
    now,
  });

  const sim = { state: generate() } as TenantSim;
  const scanner = newScannerBook(now());
  const control = controlOf({ sim, generate, limits, faults, scanner, now });

  const runtime: SimRuntime = {
    origin: '',
    strict: opts.strict === true,
    entra,
    limits,
    faults,
    requests,
    violations,
    control,
    controlOperations: [...CONTROL_OPERATIONS, ...SCANNER_CONTROL_OPERATIONS],
    state: () => sim.state,
    now,
    fabricPageSize: opts.fabricPageSize ?? 100,
    fabricAdminPageSize: opts.fabricAdminPageSize ?? 10_000,
    costPageRows: opts.costPageRows ?? 1000,
    operations: new Map(),
    scanner,
  };

  const { server, origin } = await listen(runtime, opts);
  runtime.origin = origin;
  const chaosTimer = startChaos(opts, seed, sim);

  Object.assign(sim, {
    origin,
    tenantId,
    clientId,
    clientSecret,
    control,
    requests,
    violations,
    countCalls: (filter?: CallFilter) => requests.filter((r) => matchesFilter(r, filter)).length,
    stop: async () => {
      if (chaosTimer) clearInterval(chaosTimer);
      server.closeAllConnections();
      await new Promise<void>((resolve) => server.close(() => resolve()));
    },
  });
  return sim;
}

/** The control API's operations on the simulator's state, the scanner's included. */
function controlOf(a: { sim: { state: SimState }; generate: () => SimState; limits: Limits; faults: Faults; scanner: ScannerBook; now: () => number }): SimControl & ScannerControl {
  const { sim, limits, faults, scanner, now } = a;
  const baseControl = createControl({
    state: () => sim.state,
    limits,
    faults,
    now,
    newId: randomUUID,
    reset: () => {
      // Replace the contents, not the object: callers keep `sim.state` references.
      Object.assign(sim.state, a.generate());
      limits.reset();
      for (const fault of Object.values(faults)) fault.clear();
      resetScannerBook(scanner, now());
    },
  });
  return Object.assign(baseControl, scannerControl(scanner, now));
}

/** The HTTPS server answering for the simulated tenant, listening; `origin` is how clients reach it. */
async function listen(runtime: SimRuntime, opts: TenantSimOptions): Promise<{ server: Server; origin: string }> {
  const server: Server = createServer({ cert: opts.tls.cert, key: opts.tls.key }, (req, res) => {
    handleRequest(runtime, req, res).catch((err: unknown) => {
      runtime.violations.push(`simulator error on ${req.method} ${req.url}: ${err instanceof Error ? err.message : String(err)}`);
      if (!res.headersSent) res.writeHead(500, { 'content-type': 'application/json' });
      res.end('{"error":{"code":"InternalError","message":"simulator error"}}');
    });
  });
  server.keepAliveTimeout = 5_000;
  const host = opts.host ?? '127.0.0.1';
  await new Promise<void>((resolve, reject) => {
    server.once('error', reject);
    server.listen(opts.port ?? 0, host, () => resolve());
  });
  const port = (server.address() as AddressInfo).port;
  const shown = opts.advertisedHost ?? host;
  return { server, origin: `https://${shown.includes(':') ? `[${shown}]` : shown}:${port}` };
}

/** With `chaos`, a random change of the tenant every few seconds (chaosStep); null without. */
function startChaos(opts: TenantSimOptions, seed: number, sim: { state: SimState }): NodeJS.Timeout | null {
  if (!opts.chaos || opts.chaos.everySeconds <= 0) return null;
  const rand = seededRandom(seed ^ 0xc4a05);
  const onChange = opts.chaos.onChange;
  const timer = setInterval(() => {
    const change = chaosStep(sim.state, rand);
    if (change) onChange?.(change);
  }, opts.chaos.everySeconds * 1000);
  timer.unref();
  return timer;
}

/** One random change: a gateway or member goes offline or comes back, a capacity is suspended or resumed. */
export function chaosStep(state: SimState, rand: () => number): string | null {
  const roll = rand();
  if (roll < 0.4 && state.gateways.length > 0) {
    const g = state.gateways[Math.floor(rand() * state.gateways.length)]!;
    g.online = !g.online;
    return `gateway ${g.displayName} ${g.online ? 'online' : 'offline'}`;
  }
  if (roll < 0.75 && state.gateways.length > 0) {
    const g = state.gateways[Math.floor(rand() * state.gateways.length)]!;
    const m = g.members[Math.floor(rand() * g.members.length)];
    if (!m) return null;
    m.online = !m.online;
    return `member ${m.displayName} ${m.online ? 'online' : 'offline'}`;
  }
  if (state.capacities.length > 0) {
    const c = state.capacities[Math.floor(rand() * state.capacities.length)]!;
    c.state = c.state === 'Active' ? 'Suspended' : 'Active';
    return `capacity ${c.displayName} ${c.state}`;
  }
  return null;
}
