/**
 * The collectors a tenant connection may run (the keys of its `collectors`) and each one's
 * default interval (docs/monitoring.md describes each). A name with no implementation in a build
 * (IMPLEMENTED_COLLECTORS) would be stored and never scheduled; today every name runs.
 */
export const COLLECTOR_DEFAULTS = {
  inventory: 900,
  capacity: 60,
  gateway: 300,
  costs: 14_400,
  refreshes: 300,
  jobs: 300,
  mirroring: 300,
  freshness: 300,
  datasources: 3_600,
  // Admin mode's catalog (metadata scanning); does nothing in member mode.
  scanner: 300,
  // Capacity overview events arrive every 30 s; a run a window keeps alerts within a minute.
  utilization: 30,
  // Admin mode's activity log (what changed): its share of the 200/h cap; does nothing in member mode.
  activity: 900,
} as const satisfies Record<string, number>;

export type CollectorName = keyof typeof COLLECTOR_DEFAULTS;
export const COLLECTOR_NAMES = Object.keys(COLLECTOR_DEFAULTS) as CollectorName[];

export const MIN_INTERVAL_SECONDS = 5;
export const MAX_INTERVAL_SECONDS = 7 * 24 * 3600;

export function isCollectorName(name: string): name is CollectorName {
  return Object.hasOwn(COLLECTOR_DEFAULTS, name);
}
