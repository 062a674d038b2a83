import type { Collector } from './engine/collector.js';
import { capacityCollector } from './sources/capacity/capacity.js';
import { costsCollector } from './sources/costs/costs.js';
import { datasourcesCollector } from './sources/datasources/datasources.js';
import { freshnessCollector } from './sources/freshness/freshness.js';
import { gatewayCollector } from './sources/gateway/gateway.js';
import { inventoryCollector } from './sources/inventory/inventory.js';
import { mirroringCollector } from './sources/mirroring/mirroring.js';
import { jobsCollector } from './sources/jobs/jobs.js';
import { refreshesCollector } from './sources/refreshes/refreshes.js';
import { scannerCollector } from './sources/scanner/scanner.js';
import { utilizationCollector } from './sources/utilization/utilization.js';
import { activityCollector } from './sources/activity/activity.js';

/** The collectors the engine runs (their names are IMPLEMENTED_COLLECTORS). */
export const DEFAULT_COLLECTORS: Collector[] = [scannerCollector, inventoryCollector, capacityCollector, gatewayCollector, costsCollector, datasourcesCollector, mirroringCollector, jobsCollector, freshnessCollector, refreshesCollector, utilizationCollector, activityCollector];
