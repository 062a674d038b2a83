/** Collectors this build can run; other known names are stored and shown, never scheduled. */
import type { CollectorName } from './collector-names.js';

export const IMPLEMENTED_COLLECTORS: ReadonlySet<CollectorName> = new Set<CollectorName>(['inventory', 'capacity', 'gateway', 'costs', 'datasources', 'mirroring', 'jobs', 'freshness', 'refreshes', 'utilization', 'scanner', 'activity']);
