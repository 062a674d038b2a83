/** The simulator's controls — capacities: state, SKU, load and its event stream, the Capacity Metrics app. Composed with the other areas in control.ts. */
import type { SimControl } from './control-api.js';
import { type ControlKit, SimControlError } from './control-kit.js';
import { LOAD_STAGES, disturbEvents, pushStage, recordTransition } from './capacity-load.js';
import { delayVisibility, injectSummary, POISON_KINDS } from './eventhouse-faults.js';
import { METRICS_APP_VERSIONS } from './types.js';
import type { SimCapacityState } from './types.js';

const CAPACITY_STATES: SimCapacityState[] = ['Active', 'Suspended', 'Paused', 'Inactive', 'ProvisionFailed', 'Provisioning'];

export type CapacitiesControls = Pick<
  SimControl,
  'capacityState' | 'capacitySku' | 'capacityLoad' | 'capacityEvents' | 'eventhouseForbidden' | 'eventhouseInject' | 'eventhouseFault' | 'eventhouseLateRows' | 'metricSeriesLate' | 'metricValue' | 'metricsAppVersion' | 'metricsAppForbidden'
>;

export function capacitiesControls(kit: ControlKit): CapacitiesControls {
  const { s, deps, item, capacity } = kit;
  return {
    capacityState({ capacityId, state }) {
      if (!CAPACITY_STATES.includes(state)) throw new SimControlError(`state must be one of ${CAPACITY_STATES.join(', ')}`);
      const c = capacity(capacityId);
      recordTransition(s(), c, deps.now(), c.state === 'Active', state === 'Active');
      c.state = state;
    },
    capacitySku({ capacityId, sku }) {
      if (typeof sku !== 'string' || !/^(F|P|A|EM)\d{1,4}$/i.test(sku)) throw new SimControlError('sku must look like F64, P1, A2 or EM1');
      capacity(capacityId).sku = sku.toUpperCase();
    },
    capacityLoad({ capacityId, stage, heavyItemId, clearCarryForward }) {
      if (!LOAD_STAGES.includes(stage)) throw new SimControlError(`stage must be one of ${LOAD_STAGES.join(', ')}`);
      if (heavyItemId !== undefined) item(heavyItemId);
      pushStage(s(), capacity(capacityId), deps.now(), stage, heavyItemId ?? null, clearCarryForward === true);
    },
    capacityEvents({ capacityId, drop, duplicate }) {
      for (const n of [drop, duplicate]) if (n !== undefined && (!Number.isInteger(n) || n < 0 || n > 10_000)) throw new SimControlError('drop and duplicate must be whole numbers of windows (0–10000)');
      disturbEvents(s(), capacity(capacityId), deps.now(), drop ?? 0, duplicate ?? 0);
    },
    eventhouseForbidden({ on }) {
      const eh = s().eventhouse;
      if (!eh) throw new SimControlError('the tenant has no Eventhouse');
      eh.forbidden = on === true;
    },
    eventhouseInject({ capacityId, kind }) {
      if (!POISON_KINDS.includes(kind)) throw new SimControlError(`kind must be one of ${POISON_KINDS.join(', ')}`);
      injectSummary(s(), capacity(capacityId), deps.now(), kind);
    },
    eventhouseFault({ kind, count }) {
      const eh = s().eventhouse;
      if (!eh) throw new SimControlError('the tenant has no Eventhouse');
      if (kind !== null && kind !== 'semantic' && kind !== 'partial') throw new SimControlError('kind must be semantic, partial or null');
      if (count !== undefined && (!Number.isInteger(count) || count < 1)) throw new SimControlError('count must be a whole number of queries (1 or more)');
      eh.fault = kind === null ? null : { kind, count: count ?? 1 };
    },
    eventhouseLateRows({ capacityId, windows, lateMs }) {
      if (!Number.isInteger(windows) || windows < 1 || windows > 10_000) throw new SimControlError('windows must be a whole number (1–10000)');
      if (!Number.isInteger(lateMs) || lateMs < 0 || lateMs > 86_400_000) throw new SimControlError('lateMs must be whole milliseconds (0–86400000)');
      delayVisibility(s(), capacity(capacityId), deps.now(), windows, lateMs);
    },
    metricSeriesLate({ metric, lateMs }) {
      if (metric !== null && metric !== 'cpu_metric' && metric !== 'overload_metric') throw new SimControlError('metric must be cpu_metric, overload_metric or null');
      if (metric !== null && (!Number.isInteger(lateMs) || lateMs! < 0 || lateMs! > 86_400_000)) throw new SimControlError('lateMs must be whole milliseconds (0–86400000)');
      s().settings.metricLate = metric === null ? null : { metric, ms: lateMs! };
    },
    metricValue({ metric, value }) {
      if (metric !== null && metric !== 'cpu_metric' && metric !== 'overload_metric') throw new SimControlError('metric must be cpu_metric, overload_metric or null');
      if (metric !== null && typeof value !== 'number') throw new SimControlError('value must be a number');
      s().settings.metricValue = metric === null ? null : { metric, value: value! };
    },
    metricsAppVersion({ version }) {
      const app = s().metricsApp;
      if (!app) throw new SimControlError('the tenant has no Capacity Metrics app');
      if (!METRICS_APP_VERSIONS.includes(version)) throw new SimControlError(`version must be one of ${METRICS_APP_VERSIONS.join(', ')}`);
      app.version = version;
    },
    metricsAppForbidden({ on }) {
      const app = s().metricsApp;
      if (!app) throw new SimControlError('the tenant has no Capacity Metrics app');
      app.forbidden = on === true;
    },
  };
}
