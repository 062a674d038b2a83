/**
 * What goes wrong with capacity data in the vendors' own shapes, for tests: a poisoned Summary
 * event in the Eventhouse (a payload that is not JSON, negative CU and percentages, a 1e308 CU
 * figure), a Kusto query failing (400 with the semantic error SEM0100, or 200 whose
 * DataSetCompletion says HasErrors with OneApiErrors), rows that become visible to queries later
 * than their ingestion time (an ingestion batch committing late), and an Azure Monitor series
 * published later than the other.
 */
import { randomUUID } from 'node:crypto';
import { baseCuOf, EVENT_TYPES, eventTime, loadOf, materialize, WINDOW_MS, windowOf } from './capacity-load.js';
import { kustoError } from './kusto-error.js';
import type { Reply } from './reply.js';
import type { EventRow, SimCapacity, SimState } from './types.js';

export type PoisonKind = 'malformed' | 'negative' | 'huge';
export const POISON_KINDS: readonly PoisonKind[] = ['malformed', 'negative', 'huge'];

function poisonData(state: SimState, c: SimCapacity, start: number, kind: PoisonKind): Record<string, unknown> {
  const cu = baseCuOf(c.sku);
  const budget = cu * 1000 * 30;
  const base = {
    capacityId: c.id.toLowerCase(),
    capacityName: c.displayName,
    capacitySku: c.sku,
    tenantId: state.tenantId,
    capacityRegion: c.region.toLowerCase(),
    windowStartTime: eventTime(start),
    windowEndTime: eventTime(start + WINDOW_MS),
    baseCapacityUnits: cu,
    capacityUnitMs: budget * 0.5,
    interactiveDelayThresholdPercentage: 50,
    interactiveRejectionThresholdPercentage: 50,
    backgroundRejectionThresholdPercentage: 50,
    overageTotalCapacityUnitMs: 0,
    overageAddCapacityUnitMs: 0,
    overageBurndownCapacityUnitMs: 0,
    capacityUnitUtilizationBreakdown: [],
  };
  if (kind === 'huge') return { ...base, capacityUnitMs: 1e308 };
  return {
    ...base,
    capacityUnitMs: -25 * budget,
    interactiveDelayThresholdPercentage: -2500,
    interactiveRejectionThresholdPercentage: -2500,
    backgroundRejectionThresholdPercentage: -2500,
    overageTotalCapacityUnitMs: -9000 * budget,
  };
}

/** One poisoned Summary event of the capacity's last ended window, ingested (and visible) now. */
export function injectSummary(state: SimState, c: SimCapacity, now: number, kind: PoisonKind): void {
  const load = loadOf(state, c, now);
  materialize(state, c, now);
  const start = (windowOf(now) - 1) * WINDOW_MS;
  const data = kind === 'malformed' ? `{"capacityId": "${c.id.toLowerCase()}", "capacityUnitMs": ` : poisonData(state, c, start, kind);
  load.rows.push({
    ingestedAt: now,
    specversion: 1.0,
    source: state.tenantId,
    time: new Date(start + WINDOW_MS).toISOString(),
    id: randomUUID(),
    subject: `/capacities/${c.id.toLowerCase()}`,
    dataschemaversion: 1.0,
    type: EVENT_TYPES.summary,
    data: data as EventRow['data'],
  });
}

/** The capacity's rows ingested in the next `windows` windows become visible `ms` after their ingestion. */
export function delayVisibility(state: SimState, c: SimCapacity, now: number, windows: number, ms: number): void {
  const load = loadOf(state, c, now);
  load.late = [...(load.late ?? []), { from: now, to: now + windows * WINDOW_MS + WINDOW_MS, ms }];
}

/** The Eventhouse's pending fault as Kusto answers it, or null (and one fewer to come). */
export function takeKustoFault(state: SimState, frames: (rows: unknown[][]) => unknown[]): Reply | null {
  const f = state.eventhouse?.fault;
  if (!f || f.count <= 0) return null;
  f.count -= 1;
  if (f.kind === 'semantic') return kustoError(400, 'General_BadRequest', "Semantic error: 'data' column has type 'string', expected 'dynamic'. Query: '…'", true, 'SEM0100');
  const body = frames([]);
  const completion = body.at(-1) as Record<string, unknown>;
  completion.HasErrors = true;
  completion.OneApiErrors = [{ error: { code: 'LimitsExceeded', message: 'Request is invalid and cannot be executed.', '@type': 'Kusto.Data.Exceptions.KustoServicePartialQueryFailureLimitsExceededException', '@message': 'Query execution has exceeded the allowed limits (80DA0003): the results of this query exceed the set limit of 500000 records.', innererror: { code: 'E_QUERY_RESULT_SET_TOO_LARGE' } } }];
  return { status: 200, body };
}

/** An Azure Monitor point of `metric` for the minute starting at `t` is published by `now`. */
export function metricPublished(state: SimState, metric: string, t: number, now: number, delayMs: number): boolean {
  const late = state.settings.metricLate;
  const extra = late && late.metric === metric ? late.ms : 0;
  return t + 60_000 + delayMs + extra <= now;
}
