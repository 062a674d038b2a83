/** When the simulated platform considers a gateway reachable: one rule for every API. */
import type { SimGateway } from './types.js';

/** A gateway answers when it is up and at least one enabled member is online. */
export function gatewayReachable(g: SimGateway): boolean {
  return g.online && g.members.some((m) => m.online && m.enabled);
}
