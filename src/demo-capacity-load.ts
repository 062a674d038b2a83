/**
 * The capacity load part of `vigia demo`'s live story (src/demo-tenant.ts): Vigia sets up the
 * capacity overview events source itself (Eventhouse, KQL database, table, Eventstream through the
 * simulated Fabric item APIs), then the simulator pushes a capacity into interactive rejection
 * with one heavy item; the `utilization` collector opens CapacityThrottled naming that item, and
 * once the capacity is back to normal and its carry-forward paid, the incident recovers.
 *
 * The simulator publishes a Summary event every 30 s (real time) and the platform ingests it about
 * 15 s later, so each of these steps takes up to about a minute.
 */
import type { RunningService } from './service.js';
import { THROTTLED_KIND } from './monitoring/sources/utilization/utilization-verdicts.js';
import { updateTenant } from './monitoring/tenants.js';
import { setUpEventhouse } from './monitoring/utilization-setup.js';
import type { TenantSim } from './tenant-sim/index.js';

/** Windows below every threshold before recovery: 2 (one minute) so the demo does not wait the default 4. */
const DEMO_RECOVER_WINDOWS = 2;

export interface CapacityStoryDeps {
  ctx: RunningService['ctx'];
  sim: TenantSim;
  orgId: string;
  tenantRef: string;
  /** One step's time limit; these steps get three (a window every 30 s, ingested 15 s later). */
  timeout: number;
  step: (n: number, text: string) => void;
  until: <T>(what: string, timeoutMs: number, probe: () => Promise<T | null | undefined>) => Promise<T>;
  /** Lines the local receiver printed. */
  received: string[];
}

export async function capacityLoadStory(d: CapacityStoryDeps, first: number): Promise<{ alertId: string; culprit: string }> {
  const { sim, ctx } = d;
  const wait = d.timeout * 3;
  // A capacity with a workspace of items (the heavy one is named), and a workspace to put the Eventhouse in.
  const capacity = sim.state.capacities.find((c) => sim.state.workspaces.some((w) => w.capacityId === c.id && w.items.length > 0));
  if (!capacity) throw new Error('the simulated tenant has no capacity with items');
  if (capacity.state !== 'Active') sim.control.capacityState({ capacityId: capacity.id, state: 'Active' });
  const heavy = sim.state.workspaces.find((w) => w.capacityId === capacity.id && w.items.length > 0)!.items[0]!;
  const home = sim.state.workspaces.find((w) => w.member)!;

  const setup = await setUpEventhouse(ctx, d.orgId, d.tenantRef, { workspaceId: home.id });
  if (setup.outcome === 'refused') throw new Error(`the Eventhouse set-up was refused: ${setup.refusal?.detail}`);
  await updateTenant(ctx, d.orgId, d.tenantRef, { utilization: { recoverWindows: DEMO_RECOVER_WINDOWS } });
  d.step(
    first,
    `capacity load: Vigia created ${setup.created.join(', ')} in workspace "${home.name}" (what \`vigia tenants utilization-setup\` and the console's button do); the Eventstream routes the capacity overview events of ${setup.capacityIds.length} capacities to ${setup.eventhouse!.database}.${setup.eventhouse!.table}, which the utilization collector reads`,
  );

  sim.control.capacityLoad({ capacityId: capacity.id, stage: 'interactiveRejection', heavyItemId: heavy.id });
  d.step(first + 1, `in the simulator, capacity "${capacity.displayName}" is pushed past 100 % of its next hour (interactive rejection), "${heavy.displayName}" using most of the CU`);

  const alert = await d.until('the CapacityThrottled incident', wait, async () => {
    const { rows } = await ctx.db.query<{ id: string; title: string; message: string }>(
      "SELECT id, title, message FROM alerts WHERE org_id = $1 AND source_type = 'Capacity' AND notification_kind = $2 AND capacity_name = $3 AND status = 'open'",
      [d.orgId, THROTTLED_KIND, capacity.displayName],
    );
    return rows[0];
  });
  const named = alert.message.includes(heavy.displayName);
  d.step(first + 2, `incident opened by the utilization collector: [error] ${alert.title} (${alert.id}); ${named ? `it names the heaviest item, "${heavy.displayName}"` : 'it does NOT name the heaviest item'}`);
  await d.until('the throttling delivery at the receiver', wait, async () => d.received.find((l) => l.includes(`alert=${alert.id}`) && l.includes('alert.opened')));

  sim.control.capacityLoad({ capacityId: capacity.id, stage: 'normal', clearCarryForward: true });
  await d.until('the recovery at the receiver', wait, async () => d.received.find((l) => l.includes(`alert=${alert.id}`) && l.includes('alert.recovered')));
  d.step(first + 3, `"${capacity.displayName}" back under 100 % for ${DEMO_RECOVER_WINDOWS} windows: the incident recovered and the receiver got alert.recovered; the console's Capacidades page draws it`);
  return { alertId: alert.id, culprit: named ? heavy.displayName : '' };
}
