/**
 * The titles and messages Vigia's own collectors write, each in Portuguese and English. A
 * collector calls the entry of its notification kind (failure or recovery) with the facts; the
 * signal carries both texts, and the commit (output.ts applySignalsIn) stores the one its
 * organization reads (`orgs.language`). Names, figures and the platform's own error codes and
 * messages go in verbatim, in both: people look codes up as the platform wrote them.
 *
 * The catalog is split by source: titles-gateway.ts (gateways, capacities), titles-items.ts (jobs,
 * mirroring, data sources, refreshes), titles-freshness.ts, titles-utilization.ts, titles-monitor.ts
 * (the monitor's own incidents); this file is the one door the collectors import.
 */
export type { Said } from './titles-kit.js';
export * from './titles-gateway.js';
export * from './titles-items.js';
export * from './titles-freshness.js';
export * from './titles-utilization.js';
export * from './titles-monitor.js';
