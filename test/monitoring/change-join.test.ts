/**
 * What changed before it broke (docs/monitoring.md): an incident a collector opens is joined to
 * the tenant's stored changes to its object and what it depends on, ranked by the dependency path
 * and time; a change that arrives after the incident opened is attached by the late pass; the
 * admin API view lists them (the actor only for operator and above, docs/access.md) with one
 * sentence in both languages; the webhook body names activity, object and time, never the actor.
 * Both engines.
 */
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { ManualClock } from '../../src/clock.js';
import { newId } from '../../src/ids.js';
import { commitRun } from '../../src/monitoring/engine/output.js';
import { releaseLease } from '../../src/monitoring/engine/lease.js';
import { insertChanges, type TenantChange } from '../../src/monitoring/changes/store.js';
import { attachLateChanges } from '../../src/monitoring/changes/late.js';
import { changesArrived } from '../../src/monitoring/changes/arrive.js';
import { createTestApp, type TestApp } from '../helpers/context.js';
import { createApiKey, createOrg } from '../helpers/fixtures.js';
import { createPersonalToken } from '../../src/access/personal-tokens.js';

const clock = new ManualClock('2026-11-20T12:00:00Z');
const MODEL = 'aaaaaaaa-0000-0000-0000-000000000001';
const OTHER_MODEL = 'aaaaaaaa-0000-0000-0000-000000000002';
const GATEWAY = 'bbbbbbbb-0000-0000-0000-000000000001';
const SOURCE = 'cccccccc-0000-0000-0000-000000000001';
const WORKSPACE = 'dddddddd-0000-0000-0000-000000000001';
const CAPACITY = 'eeeeeeee-0000-0000-0000-000000000001';
const UPN = 'ana.souza@contoso.example';
const NO_LINKS = { datasetId: null, gatewayId: null, datasourceId: null, workspaceId: null, capacityId: null };

const minutesBefore = (m: number) => new Date(clock.now().getTime() - m * 60_000);

function change(id: string, activity: string, at: Date, over: Partial<TenantChange> = {}): TenantChange {
  return {
    recordId: id, activity, occurredAt: at, object: { kind: 'tenant', id: null, type: null, name: null }, links: NO_LINKS,
    isSuccess: true, actorUpn: UPN, actorType: 0, raw: { Id: id, Activity: activity }, ...over,
  };
}
const credentials = (id: string, at: Date) =>
  change(id, 'UpdateDatasourceCredentials', at, { object: { kind: 'gateway', id: GATEWAY, type: null, name: 'GW Prod' }, links: { ...NO_LINKS, gatewayId: GATEWAY, datasourceId: SOURCE } });

describe('changes joined to incidents', () => {
  let t: TestApp;
  let orgId: string;
  let tenant: string;

  async function insertTenant(): Promise<string> {
    const id = newId('tnt');
    await t.ctx.db.query(
      `INSERT INTO tenants (id, org_id, name, tenant_id, client_id, credential_type, credentials_sealed, mode, endpoints, created_at, updated_at)
       VALUES ($1, $2, 'Contoso', 't', 'c', 'secret', 'x', 'admin', '{}', $3, $3)`,
      [id, orgId, clock.now()],
    );
    await t.ctx.db.query(
      `INSERT INTO collector_schedules (tenant_ref, collector, org_id, enabled, interval_seconds, next_run_at, first_pass_done) VALUES ($1, 'refreshes', $2, true, 60, $3, true)`,
      [id, orgId, clock.now()],
    );
    await t.ctx.db.query(
      `INSERT INTO monitored_lineage (tenant_ref, item_id, item_type, item_name, workspace_id, capacity_id, gateway_ids, datasource_ids, updated_at)
       VALUES ($1, $2, 'SemanticModel', 'Vendas', $3, $4, $5, $6, $7)`,
      [id, MODEL, WORKSPACE, CAPACITY, [GATEWAY], [SOURCE], clock.now()],
    );
    return id;
  }

  /** A refreshes run of the tenant opens a failure of the model, committed under its lease. */
  async function failRefresh(modelId = MODEL): Promise<string> {
    const lease = { tenantRef: tenant, collector: 'refreshes', holder: 'change-join-test' };
    await t.ctx.db.query("UPDATE collector_schedules SET locked_by = $3, locked_until = now() + interval '1 minute' WHERE tenant_ref = $1 AND collector = $2", [tenant, 'refreshes', lease.holder]);
    const signal = { sourceType: 'Dataset', sourceId: modelId, sourceName: 'Vendas', kind: 'failure' as const, notificationKind: 'RefreshFailed', severity: 'error' as const, title: 'Vendas falhou', message: 'Falhou', occurredAt: clock.now() };
    const [out] = await commitRun(t.ctx, orgId, lease, { signals: [signal], changes: [] });
    await releaseLease(t.ctx.db, lease);
    return out!.alertId!;
  }

  beforeAll(async () => {
    t = await createTestApp({ clock, config: { destinationAllowlist: ['127.0.0.1'] } });
    orgId = (await createOrg(t)).id;
    tenant = await insertTenant();
    expect((await t.admin('POST', `/orgs/${orgId}/destinations`, { name: 'Hook', kind: 'webhook', url: 'https://127.0.0.1:9/hook' })).statusCode).toBe(201);
  });
  afterAll(() => t.close());

  it('ranks by dependency path and time, attaches the likely ones at opening, and the opening payload names them without the actor', async () => {
    await insertChanges(t.ctx.db, orgId, tenant, [
      credentials('c-creds', minutesBefore(12)),
      change('c-setting', 'UpdatedAdminFeatureSwitch', minutesBefore(5)),
      change('c-capacity', 'ChangeCapacityState', minutesBefore(120), { object: { kind: 'capacity', id: CAPACITY, type: null, name: 'P1' }, links: { ...NO_LINKS, capacityId: CAPACITY } }),
      // Another model's credentials in the same workspace and capacity: not this model's cause.
      change('c-other', 'UpdateDatasourceCredentials', minutesBefore(2), { object: { kind: 'item', id: OTHER_MODEL, type: 'SemanticModel', name: 'Outro' }, links: { ...NO_LINKS, datasetId: OTHER_MODEL, workspaceId: WORKSPACE, capacityId: CAPACITY } }),
      // Older than the look-back (24 h).
      credentials('c-old', minutesBefore(25 * 60)),
    ], clock.now());

    const alertId = await failRefresh();
    const view = (await t.admin('GET', `/orgs/${orgId}/alerts/${alertId}`)).json();
    expect(view.changes.map((c: { recordId: string; path: string; rank: number }) => [c.rank, c.recordId, c.path])).toEqual([
      [1, 'c-creds', 'datasource'],
      [2, 'c-capacity', 'capacity'],
      [3, 'c-setting', 'tenant'],
    ]);
    expect(view.changes[0]).toMatchObject({ activity: 'UpdateDatasourceCredentials', minutesBefore: 12, actor: UPN, object: { kind: 'gateway', id: GATEWAY, name: 'GW Prod' } });
    expect(view.likelyChange).toEqual({
      'pt-BR': 'A atualização falhou 12 min depois que as credenciais da fonte foram alteradas',
      en: 'The refresh failed 12 min after the data source credentials were changed',
    });

    // The webhook body of the opening names the changes (activity, object, time) and never who made them.
    const { rows } = await t.ctx.db.query<{ body: string }>(
      "SELECT d.body FROM deliveries d JOIN alert_events e ON e.id = d.event_id WHERE e.alert_id = $1 AND e.event = 'alert.opened'",
      [alertId],
    );
    expect(rows).toHaveLength(1);
    const body = JSON.parse(rows[0]!.body);
    expect(body.alert.changes[0]).toEqual({ activity: 'UpdateDatasourceCredentials', object: { kind: 'gateway', id: GATEWAY, name: 'GW Prod' }, occurredAt: minutesBefore(12).toISOString() });
    expect(rows[0]!.body).not.toContain(UPN);
    expect(rows[0]!.body).not.toContain('ana.souza');
  });

  it('attaches a change that arrives after the incident opened, once, and the API view updates', async () => {
    clock.advance(3_600_000);
    const alertId = await failRefresh(OTHER_MODEL);
    expect((await t.admin('GET', `/orgs/${orgId}/alerts/${alertId}`)).json().changes.map((c: { recordId: string }) => c.recordId)).toEqual(['c-other', 'c-setting']);

    // 40 minutes later the log shows a schedule change on that model made 3 minutes before it failed.
    clock.advance(40 * 60_000);
    await insertChanges(t.ctx.db, orgId, tenant, [
      change('c-late', 'SetScheduledRefresh', minutesBefore(43), { object: { kind: 'item', id: OTHER_MODEL, type: 'SemanticModel', name: 'Outro' }, links: { ...NO_LINKS, datasetId: OTHER_MODEL } }),
    ], clock.now());
    expect(await attachLateChanges(t.ctx.db, clock.now())).toBe(1);
    const view = (await t.admin('GET', `/orgs/${orgId}/alerts/${alertId}`)).json();
    expect(view.changes.map((c: { recordId: string; rank: number }) => [c.rank, c.recordId])).toEqual([[1, 'c-late'], [2, 'c-other'], [3, 'c-setting']]);
    expect(view.likelyChange.en).toBe('The refresh failed 3 min after the refresh schedule was changed');
    // A pass re-reads the 5 minutes before where the last one stopped (a change committed late is
    // not missed): the same result; once past them, nothing new arrived and it joins nothing.
    clock.advance(10 * 60_000);
    await attachLateChanges(t.ctx.db, clock.now());
    expect((await t.admin('GET', `/orgs/${orgId}/alerts/${alertId}`)).json().changes).toEqual(view.changes);
    clock.advance(60_000);
    expect(await attachLateChanges(t.ctx.db, clock.now())).toBe(0);
  });

  it('a change that lands through the activity collector\'s arrival joins the incidents already open in the same commit', async () => {
    const fourth = 'aaaaaaaa-0000-0000-0000-000000000004';
    const alertId = await failRefresh(fourth);
    clock.advance(20 * 60_000);
    await changesArrived(t.ctx.db, {
      orgId, tenantRef: tenant, receivedAt: clock.now(), keepFrom: new Date(clock.now().getTime() - 30 * 86_400_000),
      changes: [change('c-fourth', 'TakeOverDataset', minutesBefore(27), { object: { kind: 'item', id: fourth, type: 'SemanticModel', name: 'Quarto' }, links: { ...NO_LINKS, datasetId: fourth } })],
    });
    const view = (await t.admin('GET', `/orgs/${orgId}/alerts/${alertId}`)).json();
    expect(view.changes[0]).toMatchObject({ recordId: 'c-fourth', path: 'same', minutesBefore: 7, rank: 1 });
    expect(view.likelyChange.en).toBe('The refresh failed 7 min after someone took the item over');
  });

  it('the look-back is the tenant connection\'s setting: PATCH changeLookbackMinutes narrows the join; a bad value is 400', async () => {
    const bad = await t.admin('PATCH', `/orgs/${orgId}/tenants/${tenant}`, { changeLookbackMinutes: 5 });
    expect(bad.statusCode).toBe(400);
    expect(bad.json().error).toBeDefined();
    const set = await t.admin('PATCH', `/orgs/${orgId}/tenants/${tenant}`, { changeLookbackMinutes: 30 });
    expect(set.statusCode, set.body).toBe(200);
    expect(set.json().changeLookbackMinutes).toBe(30);
    // A third model with a credentials change 45 min before its failure: outside 30 minutes.
    const third = 'aaaaaaaa-0000-0000-0000-000000000003';
    await insertChanges(t.ctx.db, orgId, tenant, [
      change('c-third-old', 'SetScheduledRefresh', minutesBefore(45), { object: { kind: 'item', id: third, type: 'SemanticModel', name: 'Terceiro' }, links: { ...NO_LINKS, datasetId: third } }),
      change('c-third-new', 'UpdateDatasetParameters', minutesBefore(20), { object: { kind: 'item', id: third, type: 'SemanticModel', name: 'Terceiro' }, links: { ...NO_LINKS, datasetId: third } }),
    ], clock.now());
    const alertId = await failRefresh(third);
    const view = (await t.admin('GET', `/orgs/${orgId}/alerts/${alertId}`)).json();
    expect(view.changes.map((c: { recordId: string }) => c.recordId)).toEqual(['c-third-new']);
    expect(view.likelyChange['pt-BR']).toBe('A atualização falhou 20 min depois que os parâmetros foram alterados');
    expect((await t.admin('PATCH', `/orgs/${orgId}/tenants/${tenant}`, { changeLookbackMinutes: 1440 })).statusCode).toBe(200);
  });

  it('shows the actor to operators and owners, never to viewers, and the public API gains nothing', async () => {
    const alertId = await failRefresh();
    const tokenFor = async (email: string, role: 'viewer' | 'operator') => {
      const person = (await t.admin('PUT', `/orgs/${orgId}/members`, { email, role })).json().id as string;
      const made = await createPersonalToken(t.ctx.db, { personId: person, orgId, heldRole: role, role, name: 'x', expiresAt: new Date(clock.now().getTime() + 86_400_000), now: clock.now() });
      return made.token;
    };
    const get = (token: string) => t.app.inject({ method: 'GET', url: `/api/admin/v1/orgs/${orgId}/alerts/${alertId}`, headers: { authorization: `Bearer ${token}` } });
    const viewer = (await get(await tokenFor('vera@example.test', 'viewer'))).json();
    expect(viewer.changes.length).toBeGreaterThan(0);
    expect(viewer.changes.every((c: { actor: string | null }) => c.actor === null)).toBe(true);
    expect(JSON.stringify(viewer)).not.toContain(UPN);
    const operator = (await get(await tokenFor('otto@example.test', 'operator'))).json();
    expect(operator.changes[0].actor).toBe(UPN);

    const { key } = await createApiKey(t, orgId, ['ReadAlerts']);
    const pub = await t.app.inject({ method: 'GET', url: '/api/public/v1/alerts?status=open', headers: { 'x-api-key': key } });
    expect(pub.statusCode).toBe(200);
    expect(pub.body).not.toContain(UPN);
    expect(pub.body).not.toContain('UpdateDatasourceCredentials');
  });
});
