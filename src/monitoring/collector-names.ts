/**
 * The collectors a tenant connection may run (the keys of its `collectors`) and each one's
 * default interval. Names of the next issue's collectors are accepted already so a connection
 * can be configured once; a name with no implementation here is stored and never scheduled.
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
} as const satisfies Record<string, number>;

export type CollectorName = keyof typeof COLLECTOR_DEFAULTS;
export const COLLECTOR_NAMES = Object.keys(COLLECTOR_DEFAULTS) as CollectorName[];

export const MIN_INTERVAL_SECONDS = 5;
export const MAX_INTERVAL_SECONDS = 7 * 24 * 3600;

export function isCollectorName(name: string): name is CollectorName {
  return Object.hasOwn(COLLECTOR_DEFAULTS, name);
}
