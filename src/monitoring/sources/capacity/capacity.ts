/**
 * capacity — a capacity that leaves the active state (suspended, inactive, paused, provision
 * failed…; ARM's state when subscriptions are given) opens a `Capacity` incident of severity
 * error, so SLA availability counts the downtime, and it recovers when the capacity is active
 * again or disappears. Transitional states (provisioning, scaling, resuming…) keep the last
 * verdict. The last verdict per capacity is remembered with the signals that followed from it.
 */
import type { SignalInput } from '../../../alerts/signals.js';
import type { Collector } from '../../engine/collector.js';
import type { StateChange } from '../../engine/output.js';
import { readCapacities } from '../../platform/reads.js';
import * as T from '../../messages/titles.js';

import { CAPACITY_KIND } from '../../lineage/root-causes.js';

export { CAPACITY_KIND };

const DOWN = new Set(['suspended', 'inactive', 'paused', 'provisionfailed', 'failed', 'notactivated', 'presuspended', 'deleted', 'invalid', 'suspending', 'pausing']);
const UP = new Set(['active', 'succeeded']);

interface RememberedCapacity {
  name: string;
  state: string;
  down: boolean;
}

export function capacityIsDown(state: string, previous: boolean): boolean {
  const s = state.toLowerCase();
  if (DOWN.has(s)) return true;
  if (UP.has(s)) return false;
  return previous;
}

export const capacityCollector: Collector = {
  name: 'capacity',
  async run({ ctx, tenant, client, state, commit }) {
    const now = ctx.clock.now();
    const capacities = await readCapacities(client, tenant);
    const signals: SignalInput[] = [];
    const changes: StateChange[] = [];
    const seen = new Set<string>();
    for (const c of capacities) {
      seen.add(c.id);
      const prev = state.get(c.id) as RememberedCapacity | undefined;
      const down = capacityIsDown(c.state, prev?.down ?? false);
      const base = { sourceType: 'Capacity', sourceId: c.id, sourceName: c.name, notificationKind: CAPACITY_KIND, severity: 'error' as const, capacityName: c.name, occurredAt: now };
      if (down && !prev?.down) {
        signals.push({ ...base, kind: 'failure', ...T.capacityDown(c.name, c.state, c.sku, c.region) });
      } else if (!down && prev?.down) {
        signals.push({ ...base, kind: 'recovery', ...T.capacityUp(c.name, c.state) });
      }
      if (!prev || prev.down !== down || prev.state !== c.state || prev.name !== c.name) changes.push({ key: c.id, value: { name: c.name, state: c.state, down } satisfies RememberedCapacity });
    }
    for (const [id, value] of state) {
      if (seen.has(id)) continue;
      signals.push(...goneSignals(id, value as RememberedCapacity, now));
      changes.push({ key: id, value: null });
    }
    await commit(signals, changes);
  },
  releaseOnly: [{ prefix: '', flag: 'down' }],
  releaseAll(state, now) {
    return [...state].flatMap(([id, value]) => goneSignals(id, value as RememberedCapacity, now));
  },
};

/** A capacity no longer watched: its incident, if it had one, recovers. */
function goneSignals(id: string, prev: RememberedCapacity, now: Date): SignalInput[] {
  if (!prev.down) return [];
  return [
    {
      sourceType: 'Capacity', sourceId: id, sourceName: prev.name, notificationKind: CAPACITY_KIND, severity: 'error', capacityName: prev.name,
      occurredAt: now, kind: 'recovery', ...T.capacityGone(prev.name),
    },
  ];
}
