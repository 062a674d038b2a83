/**
 * Shared fixtures that go through the real admin API of a TestApp (createTestApp()).
 * Each helper asserts the expected status and throws with the response body otherwise, so a
 * failing fixture says why.
 */
import type { LightMyRequestResponse } from 'fastify';
import type { SignalInput as DomainSignalInput } from '../../src/alerts/signals.js';
import type { TestApp } from './context.js';

export const ALL_SCOPES = ['ReadAlerts', 'ReadMetrics', 'ReadCapacities', 'ReadWorkspaces', 'ReadCosts', 'ReadSla'] as const;

function expectStatus(res: LightMyRequestResponse, status: number, what: string): void {
  if (res.statusCode !== status) {
    throw new Error(`${what}: expected ${status}, got ${res.statusCode}: ${res.body}`);
  }
}

let orgCounter = 0;

export interface OrgJson {
  id: string;
  name: string;
  suspended: boolean;
  escalationMinutes: number | null;
  slaTargets: { mttaMinutes: number; mttrMinutes: number; availabilityPercent: number };
  createdAt: string;
  updatedAt: string;
}

/** POST /orgs; overrides are merged into { name: 'Org n' }. */
export async function createOrg(t: TestApp, overrides: Record<string, unknown> = {}): Promise<OrgJson> {
  const res = await t.admin('POST', '/orgs', { name: `Org ${++orgCounter}`, ...overrides });
  expectStatus(res, 201, 'createOrg');
  return res.json();
}

/** POST /orgs/{orgId}/api-keys → the clear key (shown once) and its id. */
export async function createApiKey(
  t: TestApp,
  orgId: string,
  scopes: readonly string[] = ALL_SCOPES,
  extra: { name?: string; expiresAt?: string } = {},
): Promise<{ key: string; id: string; prefix: string }> {
  const res = await t.admin('POST', `/orgs/${orgId}/api-keys`, { name: extra.name ?? 'test key', scopes, ...(extra.expiresAt ? { expiresAt: extra.expiresAt } : {}) });
  expectStatus(res, 201, 'createApiKey');
  const body = res.json();
  return { key: body.key, id: body.id, prefix: body.prefix };
}

/** Signal as the admin API takes it (occurredAt as ISO text here). */
export type SignalInput = Omit<DomainSignalInput, 'occurredAt'> & { occurredAt?: string };

export interface SignalOutcome {
  alertId: string | null;
  outcome: 'opened' | 'reoccurred' | 'recovered' | 'ignored';
  silenced: boolean;
  correlated: boolean;
}

/** A valid failure signal; override any field. */
export function signal(overrides: Partial<SignalInput> = {}): SignalInput {
  return {
    sourceType: 'Gateway',
    sourceId: 'gw-1',
    sourceName: 'Gateway One',
    kind: 'failure',
    notificationKind: 'GatewayOffline',
    severity: 'error',
    title: 'Gateway offline',
    message: 'The gateway stopped answering',
    ...overrides,
  };
}

/** POST /orgs/{orgId}/signals with an array; returns one outcome per signal. */
export async function sendSignals(t: TestApp, orgId: string, signals: SignalInput[] | SignalInput): Promise<SignalOutcome[]> {
  const list = Array.isArray(signals) ? signals : [signals];
  const res = await t.admin('POST', `/orgs/${orgId}/signals`, list);
  expectStatus(res, 200, 'sendSignals');
  return res.json();
}

/** Opens one incident (a failure signal) and returns its alert id. */
export async function openAlert(t: TestApp, orgId: string, overrides: Partial<SignalInput> = {}): Promise<string> {
  const [o] = await sendSignals(t, orgId, signal(overrides));
  if (!o || !o.alertId || o.outcome !== 'opened') throw new Error(`openAlert: got ${JSON.stringify(o)}`);
  return o.alertId;
}

/** POST /orgs/{orgId}/alerts/{alertId}/acknowledge → the alert. */
export async function acknowledgeAlert(t: TestApp, orgId: string, alertId: string, by?: string): Promise<any> {
  const res = await t.admin('POST', `/orgs/${orgId}/alerts/${alertId}/acknowledge`, by ? { by } : {});
  expectStatus(res, 200, 'acknowledgeAlert');
  return res.json();
}

/** POST /orgs/{orgId}/alerts/{alertId}/resolve → the alert. */
export async function resolveAlert(t: TestApp, orgId: string, alertId: string): Promise<any> {
  const res = await t.admin('POST', `/orgs/${orgId}/alerts/${alertId}/resolve`);
  expectStatus(res, 200, 'resolveAlert');
  return res.json();
}

/** Replaces capacities / workspaces and upserts costs through the admin API. */
export async function putCapacities(t: TestApp, orgId: string, capacities: { name: string; sku: string; state: string; region: string }[]): Promise<void> {
  expectStatus(await t.admin('PUT', `/orgs/${orgId}/capacities`, capacities), 200, 'putCapacities');
}
export async function putWorkspaces(t: TestApp, orgId: string, workspaces: { name: string; remoteId: string; capacityName: string | null }[]): Promise<void> {
  expectStatus(await t.admin('PUT', `/orgs/${orgId}/workspaces`, workspaces), 200, 'putWorkspaces');
}
export async function postCosts(
  t: TestApp,
  orgId: string,
  costs: { date: string; capacityName: string; currency: string; cost: number; amortizedCost: number; overageCost: number }[],
): Promise<void> {
  expectStatus(await t.admin('POST', `/orgs/${orgId}/costs`, costs), 200, 'postCosts');
}

/** POST /orgs/{orgId}/silences; endsAt defaults to one hour after startsAt/now of the app clock. */
export async function createSilence(
  t: TestApp,
  orgId: string,
  matchers: { sourceType?: string; sourceId?: string; notificationKind?: string },
  window: { startsAt?: string; endsAt?: string } = {},
): Promise<{ id: string; active: boolean }> {
  const endsAt = window.endsAt ?? new Date(t.ctx.clock.now().getTime() + 3600_000).toISOString();
  const res = await t.admin('POST', `/orgs/${orgId}/silences`, { matchers, ...window, endsAt });
  expectStatus(res, 201, 'createSilence');
  return res.json();
}

/** The outbox rows of one alert, in order: event name and the stored SPEC 2.2 snapshot. */
export async function alertEvents(t: TestApp, alertId: string): Promise<{ id: string; event: string; occurredAt: Date; snapshot: any }[]> {
  const { rows } = await t.ctx.db.query<{ id: string; event: string; occurred_at: Date; snapshot: any }>(
    'SELECT id, event, occurred_at, snapshot FROM alert_events WHERE alert_id = $1 ORDER BY seq',
    [alertId],
  );
  return rows.map((r) => ({ id: r.id, event: r.event, occurredAt: r.occurred_at, snapshot: r.snapshot }));
}
