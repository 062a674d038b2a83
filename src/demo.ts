/**
 * `vigia demo`: a demo organization with inventory, a month of costs, an API key (printed) and
 * 45 days of realistic signals across every source type — so a newcomer sees data at once.
 * One story, written either straight into the database (on a simulated clock) or through a running
 * server's admin API; every step carries the story's time, so both leave the same history and
 * acknowledgements and resolutions carry believable times (MTTA/MTTR are meaningful).
 */
import { ManualClock } from './clock.js';
import type { Config } from './config.js';
import type { AppContext } from './context.js';
import path from 'node:path';
import { ensureAdminToken, keepAdminTokenFile, readAdminTokenFile } from './admin-api/admin-token.js';
import { readLockHolder } from './db/data-dir-lock.js';
import { acknowledgeAlert, ingestSignals } from './alerts/lifecycle.js';
import type { Signal, SignalInput } from './alerts/signals.js';
import { createSilence } from './alerts/silences.js';
import { API_SCOPES, createApiKey } from './orgs/api-keys.js';
import { replaceCapacities, replaceWorkspaces, upsertCosts, type DailyCost } from './orgs/inventory.js';
import { createOrg } from './orgs/orgs.js';
import { rerunTrustingDemoCert, runLiveDemo } from './demo-tenant.js';
import { openContext } from './service.js';
import { SOURCES, type Source } from './demo-sources.js';

const MIN = 60_000;
const DAY = 24 * 60 * MIN;

/** Small deterministic generator, so every demo run tells the same story. */
function rng(seed: number): () => number {
  let s = seed >>> 0;
  return () => {
    s = (Math.imul(s, 1664525) + 1013904223) >>> 0;
    return s / 2 ** 32;
  };
}

const CAPACITIES = [
  { name: 'cap-prod-f64', sku: 'F64', state: 'Active', region: 'Brazil South' },
  { name: 'cap-bi-p1', sku: 'P1', state: 'Active', region: 'East US' },
  { name: 'cap-dev-f8', sku: 'F8', state: 'Paused', region: 'West Europe' },
];

const WORKSPACES = [
  { name: 'Vendas', remoteId: 'ws-0a1b2c3d-vendas', capacityName: 'cap-prod-f64' },
  { name: 'Financeiro', remoteId: 'ws-1b2c3d4e-financeiro', capacityName: 'cap-prod-f64' },
  { name: 'Supply Chain', remoteId: 'ws-2c3d4e5f-supply', capacityName: 'cap-bi-p1' },
  { name: 'RH', remoteId: 'ws-3d4e5f6a-rh', capacityName: 'cap-bi-p1' },
  { name: 'Data Science Sandbox', remoteId: 'ws-4e5f6a7b-sandbox', capacityName: 'cap-dev-f8' },
  { name: 'Pessoal', remoteId: 'ws-5f6a7b8c-pessoal', capacityName: null },
];


type Ctx = Pick<AppContext, 'db' | 'clock' | 'config'>;

function isoDay(ms: number): string {
  return new Date(ms).toISOString().slice(0, 10);
}

/** Costs for the 35 days before today in BRL, plus the last 3 days of one capacity in USD. */
function demoCosts(now: Date, random: () => number): DailyCost[] {
  const today = Date.UTC(now.getUTCFullYear(), now.getUTCMonth(), now.getUTCDate());
  const base: Record<string, number> = { 'cap-prod-f64': 1450, 'cap-bi-p1': 820, 'cap-dev-f8': 95 };
  const costs: DailyCost[] = [];
  for (let d = 35; d >= 1; d--) {
    for (const cap of CAPACITIES) {
      const cost = Math.round(base[cap.name]! * (0.85 + random() * 0.3) * 100) / 100;
      const overage = random() < 0.15 ? Math.round(random() * 120 * 100) / 100 : 0;
      costs.push({ date: isoDay(today - d * DAY), capacityName: cap.name, currency: 'BRL', cost, amortizedCost: Math.round(cost * 0.93 * 100) / 100, overageCost: overage });
    }
  }
  for (let d = 3; d >= 1; d--) {
    costs.push({ date: isoDay(today - d * DAY), capacityName: 'cap-bi-p1', currency: 'USD', cost: 160 + d, amortizedCost: 150 + d, overageCost: 0 });
  }
  return costs;
}

/** One thing that happens in the demo's story: a signal arrives, or on-call acknowledges. */
type Step =
  | { at: number; signal: SignalInput }
  | { at: number; acknowledge: { sourceId: string; notificationKind: string; by: string } };

const toSignal = (s: Source, kind: 'failure' | 'recovery', at: number, extra: Partial<SignalInput> = {}): SignalInput => ({
  sourceType: s.sourceType, sourceId: s.sourceId, sourceName: s.sourceName, kind, notificationKind: s.notificationKind,
  severity: s.severity, title: s.title, message: s.message, workspaceName: s.workspaceName, capacityName: s.capacityName,
  occurredAt: new Date(at), ...extra,
});

export const DEMO_DAYS = 45;

/**
 * 45 days of incidents (so the previous month's SLA report has data too): openings,
 * reoccurrences, acknowledgements, recoveries; the most recent ones are left open.
 */
function demoTimeline(end: number, random: () => number): Step[] {
  const steps: Step[] = [];
  const start = end - DEMO_DAYS * DAY;
  // Each source walks forward in time: an incident, a quiet gap of 1–6 days, the next one.
  for (const [n, src] of SOURCES.entries()) {
    let next = start + Math.floor(random() * 2 * DAY) + n * 37 * MIN;
    while (next < end - 30 * MIN) {
      const opensAt = next;
      const recent = end - opensAt < 6 * 3600_000;
      const acked = random() < 0.7;
      const ackAfter = (2 + Math.floor(random() * 40)) * MIN;
      const resolved = !recent || random() < 0.3;
      const resolveAfter = (10 + Math.floor(random() * 300)) * MIN;
      const closesAt = resolved ? Math.min(end, opensAt + Math.max(resolveAfter, acked ? ackAfter + MIN : 0)) : end;
      steps.push({ at: opensAt, signal: toSignal(src, 'failure', opensAt) });
      const repeats = Math.floor(random() * 4);
      for (let r = 1; r <= repeats; r++) {
        const at = opensAt + r * 7 * MIN;
        if (at < closesAt) steps.push({ at, signal: toSignal(src, 'failure', at) });
      }
      if (acked && opensAt + ackAfter < closesAt) {
        steps.push({ at: opensAt + ackAfter, acknowledge: { sourceId: src.sourceId, notificationKind: src.notificationKind, by: 'Equipe de plantão' } });
      }
      if (resolved) steps.push({ at: closesAt, signal: toSignal(src, 'recovery', closesAt) });
      next = closesAt + DAY + Math.floor(random() * 5 * DAY);
    }
  }
  // Correlation: the production capacity is overloaded right now and two datasets on it fail
  // because of it — they are held (correlated) until the capacity recovers.
  const cap = SOURCES.find((s) => s.notificationKind === 'CapacityOverloaded')!;
  steps.push({ at: end - 20 * MIN, signal: toSignal(cap, 'failure', end - 20 * MIN, { notificationKind: 'CapacityMemoryPressure', title: 'Pressão de memória na capacidade' }) });
  for (const ds of SOURCES.filter((s) => s.sourceType === 'Dataset')) {
    steps.push({
      at: end - 15 * MIN,
      signal: toSignal(ds, 'failure', end - 15 * MIN, {
        notificationKind: 'RefreshSlow',
        title: 'Atualização do modelo semântico lenta',
        // Its own words: a slow refresh is slow, whatever the model's earlier failures said.
        message: 'A atualização está demorando mais que o dobro do habitual: a capacidade cap-prod-f64 está sobrecarregada.',
        causes: [{ sourceType: 'Capacity', sourceId: 'cap-prod-f64' }],
      }),
    });
  }
  return steps.sort((a, b) => a.at - b.at);
}

/** The Salesforce connector is under planned maintenance for the next two hours (a silence), and signals during it. */
function maintenance(end: number): { silence: { matchers: { sourceType: string; sourceId: string }; endsAt: Date; comment: string }; signal: SignalInput } {
  const conn = SOURCES.find((s) => s.sourceType === 'Connector')!;
  return {
    silence: { matchers: { sourceType: 'Connector', sourceId: conn.sourceId }, endsAt: new Date(end + 2 * 3600_000), comment: 'Manutenção planejada do Salesforce' },
    signal: toSignal(conn, 'failure', end - 5 * MIN, { notificationKind: 'ConnectorSyncDelayed', title: 'Sincronização do conector atrasada', severity: 'info' }),
  };
}

const DEMO_ORG = { name: 'Demo — Contoso Analytics', escalationMinutes: 30 };
const DEMO_KEY_NAME = 'demo (all scopes)';

export interface DemoResult {
  orgId: string;
  apiKey: string;
  adminToken: string | null;
  alerts: number;
}

export class DemoError extends Error {
  override name = 'DemoError';
}

type Inventory = { capacities: typeof CAPACITIES; workspaces: typeof WORKSPACES; costs: DailyCost[] };
type DemoSilence = ReturnType<typeof maintenance>['silence'];

/**
 * Where the demo's story is written. Every step carries the story's time (`at`, ms), so both
 * targets record the same history: the database directly on a simulated clock, or a running
 * server's admin API (signals carry their occurredAt, acknowledgements their acknowledgedAt,
 * the silence its startsAt).
 */
interface DemoTarget {
  createOrg(at: number): Promise<string>;
  inventory(orgId: string, at: number, inventory: Inventory): Promise<void>;
  signal(orgId: string, at: number, signal: SignalInput): Promise<{ alertId: string | null; outcome: string }>;
  acknowledge(orgId: string, at: number, alertId: string, by: string): Promise<void>;
  silence(orgId: string, at: number, silence: DemoSilence): Promise<void>;
  apiKey(orgId: string, at: number): Promise<string>;
}

/**
 * The demo's story, the same for every target: inventory, a month of costs, 45 days of
 * incidents (acknowledged when the story says), a maintenance silence, an API key.
 */
async function tellDemoStory(target: DemoTarget, now: Date): Promise<{ orgId: string; apiKey: string; alerts: number }> {
  const random = rng(20260615);
  const orgId = await target.createOrg(now.getTime() - DEMO_DAYS * DAY - DAY);
  await target.inventory(orgId, now.getTime() - DEMO_DAYS * DAY - DAY, { capacities: CAPACITIES, workspaces: WORKSPACES, costs: demoCosts(now, random) });

  const end = now.getTime() - MIN;
  const unacknowledged = new Map<string, string>(); // source|kind → open, unacknowledged alert id
  let opened = 0;
  const track = (signal: SignalInput, outcome: { alertId: string | null; outcome: string }) => {
    const key = `${signal.sourceId}|${signal.notificationKind}`;
    if (signal.kind === 'recovery') unacknowledged.delete(key);
    else if (outcome.outcome === 'opened' && outcome.alertId) {
      opened += 1;
      unacknowledged.set(key, outcome.alertId);
    }
  };
  for (const step of demoTimeline(end, random)) {
    if ('signal' in step) {
      track(step.signal, await target.signal(orgId, step.at, step.signal));
      continue;
    }
    const key = `${step.acknowledge.sourceId}|${step.acknowledge.notificationKind}`;
    const alertId = unacknowledged.get(key);
    if (alertId) {
      await target.acknowledge(orgId, step.at, alertId, step.acknowledge.by);
      unacknowledged.delete(key);
    }
  }
  const m = maintenance(end);
  await target.silence(orgId, end - 5 * MIN, m.silence);
  track(m.signal, await target.signal(orgId, end - 5 * MIN, m.signal));
  const apiKey = await target.apiKey(orgId, now.getTime());
  return { orgId, apiKey, alerts: opened };
}

/** The database directly, replaying the story on a simulated clock. */
function databaseTarget(ctx: Ctx): DemoTarget {
  const clock = new ManualClock(0);
  const sim: Ctx = { ...ctx, clock };
  return {
    async createOrg(at) {
      clock.set(at);
      return (await createOrg(sim, DEMO_ORG)).id;
    },
    async inventory(orgId, at, inv) {
      clock.set(at);
      await replaceCapacities(sim, orgId, inv.capacities);
      await replaceWorkspaces(sim, orgId, inv.workspaces);
      await upsertCosts(sim, orgId, inv.costs);
    },
    async signal(orgId, at, signal) {
      clock.set(at);
      const { outcomes } = await ingestSignals(sim, orgId, signal);
      return outcomes[0]!;
    },
    async acknowledge(orgId, at, alertId, by) {
      clock.set(at);
      await acknowledgeAlert(sim, orgId, alertId, by);
    },
    async silence(orgId, at, silence) {
      clock.set(at);
      await createSilence(sim, orgId, { ...silence, startsAt: new Date(at) });
    },
    async apiKey(orgId, at) {
      clock.set(at);
      return (await createApiKey(sim, orgId, { name: DEMO_KEY_NAME, scopes: API_SCOPES })).key;
    },
  };
}

/**
 * A running server's admin API (the server owns the embedded database while it runs). The server
 * stamps what it records with its own clock, so each step states the story's time explicitly.
 */
function adminApiTarget(baseUrl: string, token: string): DemoTarget {
  const call = async <T>(method: string, path: string, body?: unknown): Promise<T> => {
    const res = await fetch(`${baseUrl}/api/admin/v1${path}`, {
      method,
      headers: { authorization: `Bearer ${token}`, ...(body === undefined ? {} : { 'content-type': 'application/json' }) },
      body: body === undefined ? undefined : JSON.stringify(body),
    });
    const text = await res.text();
    if (res.status === 401) throw new DemoError(`the server at ${baseUrl} refused the admin token (401); pass the right one with --token`);
    if (!res.ok) throw new DemoError(`${method} ${path} answered ${res.status}: ${text}`);
    return (text ? JSON.parse(text) : undefined) as T;
  };
  const iso = (d: Date | string) => (d instanceof Date ? d.toISOString() : d);
  return {
    async createOrg() {
      return (await call<{ id: string }>('POST', '/orgs', DEMO_ORG)).id;
    },
    async inventory(orgId, _at, inv) {
      await call('PUT', `/orgs/${orgId}/capacities`, inv.capacities);
      await call('PUT', `/orgs/${orgId}/workspaces`, inv.workspaces);
      await call('POST', `/orgs/${orgId}/costs`, inv.costs);
    },
    async signal(orgId, _at, signal) {
      const [outcome] = await call<{ alertId: string | null; outcome: string }[]>('POST', `/orgs/${orgId}/signals`, [{ ...signal, occurredAt: iso(signal.occurredAt as Date | string) }]);
      return outcome!;
    },
    async acknowledge(orgId, at, alertId, by) {
      await call('POST', `/orgs/${orgId}/alerts/${alertId}/acknowledge`, { by, acknowledgedAt: new Date(at).toISOString() });
    },
    async silence(orgId, at, silence) {
      await call('POST', `/orgs/${orgId}/silences`, { ...silence, startsAt: new Date(at).toISOString(), endsAt: silence.endsAt.toISOString() });
    },
    async apiKey(orgId) {
      return (await call<{ key: string }>('POST', `/orgs/${orgId}/api-keys`, { name: DEMO_KEY_NAME, scopes: API_SCOPES })).key;
    },
  };
}

/** Builds the demo data on an open context; `now` is the real current time. */
export function seedDemo(ctx: Ctx, now: Date): Promise<{ orgId: string; apiKey: string; alerts: number }> {
  return tellDemoStory(databaseTarget(ctx), now);
}

/** The same story told to a running server through its admin API. */
export function seedDemoRemote(baseUrl: string, token: string, now: Date): Promise<{ orgId: string; apiKey: string; alerts: number }> {
  return tellDemoStory(adminApiTarget(baseUrl, token), now);
}

export interface DemoOptions {
  /** A running server to seed through its admin API. */
  url?: string;
  /** Admin token for that server. */
  token?: string;
  /**
   * After seeding, also run the live story on the tenant simulator (src/demo-tenant.ts, on its
   * own throwaway database). Default true; `--no-live` skips it.
   */
  live?: boolean;
}

/**
 * Where to seed: an explicit --url; else the server holding the embedded data directory (its
 * address is in the directory's lock file); else nothing running — open the database here.
 */
function findServer(config: Config, opts: DemoOptions): { url: string; token: string } | null {
  const url = opts.url ?? (config.databaseUrl ? undefined : readLockHolder(path.resolve(config.dataDir))?.url);
  if (!url) return null;
  const token = opts.token ?? config.adminToken ?? (config.databaseUrl ? null : readAdminTokenFile(config.dataDir));
  if (!token) throw new DemoError(`a Vigia server is running at ${url}: pass its admin token with --token (or VIGIA_ADMIN_TOKEN)`);
  return { url: url.replace(/\/+$/, ''), token };
}

export async function runDemo(config: Config, opts: DemoOptions = {}): Promise<DemoResult | null> {
  const server = findServer(config, opts);
  const live = opts.live !== false;
  if (live) {
    // The live story needs this process to trust the simulator's and the receiver's certificate.
    const code = await rerunTrustingDemoCert(config);
    if (code !== null) {
      process.exitCode = code;
      return null;
    }
  }
  let result: DemoResult;
  let publicBase: string;
  if (server) {
    const seeded = await seedDemoRemote(server.url, server.token, new Date());
    result = { ...seeded, adminToken: null };
    publicBase = server.url; // where the running server actually listens (its PORT may differ from ours)
  } else {
    const ctx = await openContext(config);
    try {
      const adminToken = await ensureAdminToken(ctx.db, config.adminToken);
      if (ctx.db.dataDirLock) await keepAdminTokenFile(ctx.db, config.dataDir, adminToken ?? config.adminToken);
      result = { ...(await seedDemo(ctx, ctx.clock.now())), adminToken };
    } finally {
      await ctx.db.close();
    }
    publicBase = config.baseUrl;
  }
  const { orgId, apiKey, adminToken } = result;
  const base = `${publicBase}/api/public/v1`;
  const out = [
    '',
    server ? `Vigia demo ready (seeded the running server at ${server.url}).` : 'Vigia demo ready.',
    `  organization: ${DEMO_ORG.name} (${orgId})`,
    `  incidents:    ${result.alerts} over the last ${DEMO_DAYS} days, all source types`,
    `  API key (all scopes, shown once; for ${server ? 'that server' : 'the server on this data (npm start)'}): ${apiKey}`,
    ...(adminToken ? [`  Admin token (shown once, store it now): ${adminToken}`] : []),
    '',
    server ? 'Try:' : 'Start the service (npm start), then try:',
    `  curl -H "X-Api-Key: ${apiKey}" "${base}/alerts"`,
    `  curl -H "X-Api-Key: ${apiKey}" "${base}/alerts?status=open&sourceType=Dataset"`,
    `  curl -H "X-Api-Key: ${apiKey}" "${base}/alerts/metrics"`,
    `  curl -H "X-Api-Key: ${apiKey}" "${base}/capacities"`,
    `  curl -H "X-Api-Key: ${apiKey}" "${base}/workspaces"`,
    `  curl -H "X-Api-Key: ${apiKey}" "${base}/costs/daily"`,
    `  curl -H "X-Api-Key: ${apiKey}" "${base}/costs/daily?currency=USD&format=csv"`,
    `  curl -H "Authorization: ApiKey ${apiKey}" "${base}/sla"`,
    '',
  ];
  process.stdout.write(`${out.join('\n')}\n`);
  if (live) await runLiveDemo(config);
  return result;
}
