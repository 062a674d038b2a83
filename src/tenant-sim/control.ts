/**
 * Changes the simulated tenant's state — the same operations in process (`sim.control`) and over
 * HTTP (`POST /_sim/{operation}` with the arguments as a JSON object). Each area's operations live
 * in a module of their own (control-gateways.ts, -capacities, -access, -faults, -refreshes,
 * -items), composed here; control-kit.ts has the look-ups they share.
 */
import { accessControls } from './control-access.js';
import { activityControls } from './control-activity.js';
import { capacitiesControls } from './control-capacities.js';
import { faultsControls } from './control-faults.js';
import { gatewaysControls } from './control-gateways.js';
import { itemsControls } from './control-items.js';
import { controlKit, type ControlDeps } from './control-kit.js';
import { refreshesControls } from './control-refreshes.js';
import type { SimControl } from './control-api.js';

export { CONTROL_OPERATIONS, type SimControl } from './control-api.js';
export { type Faults, SimControlError } from './control-kit.js';

export function createControl(deps: ControlDeps): SimControl {
  const kit = controlKit(deps);
  return {
    ...gatewaysControls(kit),
    ...capacitiesControls(kit),
    ...accessControls(kit),
    ...faultsControls(kit),
    ...refreshesControls(kit),
    ...itemsControls(kit),
    ...activityControls(kit),
    reset() {
      deps.reset();
    },
  } satisfies SimControl;
}
