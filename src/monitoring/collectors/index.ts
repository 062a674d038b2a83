import type { Collector } from '../collector.js';
import { capacityCollector } from './capacity.js';
import { costsCollector } from './costs.js';
import { datasourcesCollector } from './datasources.js';
import { freshnessCollector } from './freshness.js';
import { gatewayCollector } from './gateway.js';
import { inventoryCollector } from './inventory.js';
import { mirroringCollector } from './mirroring.js';
import { jobsCollector } from './jobs.js';
import { refreshesCollector } from './refreshes.js';
import { scannerCollector } from './scanner.js';
import { utilizationCollector } from './utilization.js';

/** The collectors the engine runs (their names are IMPLEMENTED_COLLECTORS). */
export const DEFAULT_COLLECTORS: Collector[] = [scannerCollector, inventoryCollector, capacityCollector, gatewayCollector, costsCollector, datasourcesCollector, mirroringCollector, jobsCollector, freshnessCollector, refreshesCollector, utilizationCollector];
