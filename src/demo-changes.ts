/**
 * The live demo's "what changed before it broke" (docs/monitoring.md): in the simulator
 * "someone" rotates the credentials of a semantic model's gateway data source (an
 * UpdateDatasourceCredentials record in the tenant's activity log); the `activity` collector stores
 * the change; the model's next refresh fails and the incident the `refreshes` collector opens
 * names that change (its one sentence) — the admin API's alert view lists it, the actor
 * withheld from every payload.
 */
import type { TenantSim } from './tenant-sim/index.js';
import { incidentChanges } from './monitoring/changes/attached.js';
import type { CapacityStoryDeps } from './demo-capacity-load.js';

/** The error Power BI gives a refresh whose data source credentials no longer work. */
export const CREDENTIALS_ERROR = 'DM_GWPipeline_Gateway_DataSourceAccessError';
/** How long before the failure the credentials were rotated (the sentence says it). */
const ROTATED_MINUTES_BEFORE = 12;

/** The live story's steps share the capacity story's parts, without the receiver's lines. */
export type ChangeStoryDeps = Omit<CapacityStoryDeps, 'received'>;

/** A semantic model reading through a gateway data source, other than `exceptId`. */
function pickModel(sim: TenantSim, exceptId: string | null) {
  for (const ws of sim.state.workspaces) {
    for (const item of ws.items) {
      if (item.type !== 'SemanticModel' || !item.gatewayDatasourceId || item.id === exceptId) continue;
      const gateway = sim.state.gateways.find((g) => g.datasources.some((d) => d.id === item.gatewayDatasourceId));
      if (gateway) return { model: item, gateway, datasourceId: item.gatewayDatasourceId };
    }
  }
  return null;
}

/**
 * The collector's first pass over a new connection reads the last 24 hours, an hour page at a
 * time, paced on Vigia's share of the log's 200 calls an hour: about a quarter of an hour, longer
 * than the demo. The demo's connection is minutes old and its log holds nothing older, so the
 * demo tells the collector it has read the log up to now (its cursor, as a connection that has
 * been watched for a day): the next pass reads the last hour, where the change lands.
 */
async function readLogFromNow(d: ChangeStoryDeps): Promise<void> {
  const cursor = { readTo: new Date(Date.now() - 60_000).toISOString(), pass: null, pace: null };
  await d.ctx.db.query(
    `INSERT INTO collector_state (tenant_ref, collector, key, value, updated_at) VALUES ($1, 'activity', 'cursor', $2::jsonb, now())
     ON CONFLICT (tenant_ref, collector, key) DO UPDATE SET value = EXCLUDED.value, updated_at = EXCLUDED.updated_at`,
    [d.tenantRef, JSON.stringify(cursor)],
  );
}

/** Steps `first` and `first + 1`; returns the step number after them. */
export async function changeStory(d: ChangeStoryDeps, first: number, exceptModelId: string | null): Promise<number> {
  const picked = pickModel(d.sim, exceptModelId);
  if (!picked) {
    d.step(first, 'no other semantic model of the simulated tenant reads through a gateway: the "what changed" step is skipped');
    return first + 1;
  }
  const { model, gateway, datasourceId } = picked;
  await readLogFromNow(d);
  const at = new Date(Date.now() - ROTATED_MINUTES_BEFORE * 60_000).toISOString();
  d.sim.control.activityEvent({
    activity: 'UpdateDatasourceCredentials',
    at,
    userId: 'someone@contoso.example',
    fields: { GatewayId: gateway.id, GatewayName: gateway.displayName, DatasourceId: datasourceId },
  });
  // A pass reads about two hours of log pages, paced on the tenant's cap share: it may take longer than one step.
  await d.until('the activity collector to store the change', d.timeout * 3, async () => {
    const { rows } = await d.ctx.db.query("SELECT 1 FROM tenant_changes WHERE tenant_ref = $1 AND activity = 'UpdateDatasourceCredentials' LIMIT 1", [d.tenantRef]);
    return rows[0];
  });
  d.step(first, `in the simulator, "someone" rotated the credentials of a data source on "${gateway.displayName}" ${ROTATED_MINUTES_BEFORE} min ago; the activity collector read it from the tenant's activity log (UpdateDatasourceCredentials)`);

  d.sim.control.refreshResult({ datasetId: model.id, status: 'Failed', errorCode: CREDENTIALS_ERROR });
  const named = await d.until('the refresh incident to name the change', d.timeout, async () => {
    const { rows } = await d.ctx.db.query<{ id: string }>(
      "SELECT id FROM alerts WHERE org_id = $1 AND source_type = 'Dataset' AND source_id = $2 AND status = 'open' ORDER BY created_at DESC LIMIT 1",
      [d.orgId, model.id],
    );
    if (!rows[0]) return null;
    const found = await incidentChanges(d.ctx.db, d.orgId, rows[0].id, false);
    return found.likelyChange ? { id: rows[0].id, sentence: found.likelyChange.en, activity: found.changes[0]!.activity } : null;
  }).catch(() => null);
  if (!named) {
    d.step(first + 1, `a refresh of "${model.displayName}" fails with ${CREDENTIALS_ERROR}; the incident did NOT name the change in time`);
  } else {
    d.step(first + 1, `a refresh of "${model.displayName}" fails with ${CREDENTIALS_ERROR}: incident ${named.id} names what changed before it broke — "${named.sentence}" (${named.activity}; who did it: only operators and owners see it, never a payload)`);
  }
  return first + 2;
}
