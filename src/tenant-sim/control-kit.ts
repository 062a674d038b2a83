/**
 * What every area of the simulator's controls (control-*.ts) works with: the tenant's state, the
 * runtime's limits, faults, clock and ids, and the look-ups that refuse an unknown id with a
 * SimControlError (the HTTP control API answers it as a 400).
 */
import { itemById } from './lazy-tenant.js';
import type { Limits } from './limits.js';
import type { SimItem, SimState } from './types.js';

export class SimControlError extends Error {}

export interface Faults {
  /** Targets (family or path prefix) answered with a valid-looking JSON body of `bytes`. */
  huge: Map<string, number>;
  /** Path prefixes answered with a body that is not JSON. */
  garbage: Set<string>;
  /** Path prefixes answered 200 with this JSON, of a shape the API does not describe (a list where an object is due, or the reverse). */
  odd: Map<string, unknown>;
}

export interface ControlDeps {
  state: () => SimState;
  limits: Limits;
  faults: Faults;
  reset: () => void;
  now: () => number;
  newId: () => string;
}

export function controlKit(deps: ControlDeps) {
  const s = () => deps.state();
  const gateway = (id: string) => {
    const g = s().gateways.find((x) => x.id.toLowerCase() === String(id).toLowerCase());
    if (!g) throw new SimControlError(`no gateway ${id}`);
    return g;
  };
  const item = (id: string) => {
    const i = itemById(s(), id, { forWrite: true });
    if (i) return i;
    throw new SimControlError(`no item ${id}`);
  };
  const mirroredTable = (i: SimItem, table: string) => {
    if (!i.mirroring) throw new SimControlError(`${i.id} is not a mirrored database`);
    const t = i.mirroring.tables.find((x) => x.sourceTableName === table);
    if (!t) throw new SimControlError(`no table ${table}`);
    return t;
  };
  const model = (id: string) => {
    const i = item(id);
    if (i.type !== 'SemanticModel') throw new SimControlError(`${id} is not a semantic model`);
    return i;
  };
  const capacity = (id: string) => {
    const c = s().capacities.find((x) => x.id.toLowerCase() === String(id).toLowerCase() || x.armName === id);
    if (!c) throw new SimControlError(`no capacity ${id}`);
    return c;
  };
  const bool = (v: unknown, dflt: boolean) => (v === undefined ? dflt : v === true);
  /** A gateway data source, or else a cloud connection, by id. */
  const dataSource = (id: string): { reachable?: boolean; credentialsExpired?: boolean } => {
    const key = String(id).toLowerCase();
    const d = s().gateways.flatMap((g) => g.datasources).find((x) => x.id.toLowerCase() === key) ?? s().connections.find((c) => c.gatewayId === null && c.id.toLowerCase() === key);
    if (!d) throw new SimControlError(`no data source ${id}`);
    return d;
  };
  return { deps, s, gateway, item, mirroredTable, model, capacity, bool, dataSource };
}

export type ControlKit = ReturnType<typeof controlKit>;
