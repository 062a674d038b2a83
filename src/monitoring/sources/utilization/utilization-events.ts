/**
 * Reading the capacity overview events from the customer's Eventhouse table, incrementally.
 *
 * The cursor is the table's ingestion time: each query asks for rows ingested in (since, until],
 * bounds Vigia chose itself, so a row is never read twice and none falls between two queries,
 * whatever the rows' own times are (a late event, a run missed for hours, a restart — the
 * cursor is committed with the run's incidents). `until` stays a few seconds behind now, so a
 * batch still being committed is read by the next run; a long gap is read one hour per query.
 * Duplicates the platform delivers are removed here by (capacity, window start), and later by
 * the history's primary key and the verdicts' per-capacity watermark.
 */
import { kqlDatetime, kqlTable, kustoQuery } from '../../platform/kusto.js';
import type { PlatformClient } from '../../platform/platform-client.js';
import type { EventhouseSource } from '../../connection/utilization-settings.js';
import { figuresProblem, RejectedRows } from './figure-checks.js';

export const SUMMARY_TYPE = 'Microsoft.Fabric.Capacity.Summary';
export const STATE_TYPE = 'Microsoft.Fabric.Capacity.State';
export const OPERATION_TYPE = 'Microsoft.Fabric.CapacityOperationEvents.Operation';

/** Rows ingested this recently are left to the next run (an ingestion batch may still be committing). */
export const SETTLE_MS = 10_000;
/** One query reads at most this much ingestion time (200 capacities: 24,000 Summary rows). */
export const SPAN_MS = 3_600_000;
export const MAX_QUERIES_PER_RUN = 6;
/** A connection's first run reads back this far (the feed has no backfill beyond the table). */
export const FIRST_LOOKBACK_MS = 3_600_000;

export interface WindowFigures {
  capacityId: string;
  capacityName: string;
  sku: string;
  windowStart: Date;
  baseCu: number;
  capacityUnitMs: number;
  utilizationPct: number;
  delayPct: number;
  interactiveRejectionPct: number;
  backgroundRejectionPct: number;
  carryForwardCuMs: number;
  /** CU ms per workload code (the Summary's breakdown). */
  workloads: Record<string, number>;
}

export interface StateChangeEvent {
  capacityId: string;
  capacityName: string;
  at: Date;
  state: string;
  reason: string;
}

export interface EventBatch {
  windows: WindowFigures[];
  states: StateChangeEvent[];
  /** Summary rows seen more than once (the platform's duplicates), counted once. */
  duplicates: number;
  /** Rows skipped as unbelievable (malformed, a figure out of range): never stored, never judged. */
  rejected: RejectedRows;
  /** The new cursor: every row ingested up to it has been read. */
  through: Date;
}

const READ_QUERY = (table: string) =>
  [
    'declare query_parameters(since:datetime, until:datetime);',
    kqlTable(table),
    '| where ingestion_time() > since and ingestion_time() <= until',
    `| where type in ('${SUMMARY_TYPE}', '${STATE_TYPE}')`,
    '| extend ingested = ingestion_time()',
    '| project ingested, type, data',
    '| order by ingested asc',
  ].join('\n');

/** `2025-09-22 05:23:00.0000000` (UTC, no zone) or ISO → Date. */
export function eventDate(v: unknown): Date | null {
  if (typeof v !== 'string') return null;
  let s = v.trim().replace(' ', 'T');
  s = s.replace(/(\.\d{3})\d+/, '$1');
  if (!/[zZ]|[+-]\d\d:\d\d$/.test(s)) s += 'Z';
  const t = Date.parse(s);
  return Number.isFinite(t) ? new Date(t) : null;
}

function dataOf(v: unknown): Record<string, unknown> | null {
  if (typeof v === 'string') {
    try {
      v = JSON.parse(v);
    } catch {
      return null;
    }
  }
  return typeof v === 'object' && v !== null && !Array.isArray(v) ? (v as Record<string, unknown>) : null;
}

const num = (d: Record<string, unknown>, f: string): number | null => {
  const v = typeof d[f] === 'string' ? Number(d[f]) : d[f];
  return typeof v === 'number' && Number.isFinite(v) ? v : null;
};

function workloadsOf(breakdown: unknown): Record<string, number> {
  const out: Record<string, number> = {};
  const list = Array.isArray(breakdown) ? breakdown : [];
  for (const e of list as Array<Record<string, any>>) {
    const code = typeof e?.WorkloadKind === 'string' ? e.WorkloadKind : null;
    if (!code) continue;
    const u = e.Utilization ?? {};
    const cu = (Number(u.Interactive) || 0) + (Number(u.Background) || 0);
    out[code] = (out[code] ?? 0) + cu;
  }
  return out;
}

/** A Summary event's figures, or a reason it cannot be read (its schema is not the documented one). */
export function summaryFigures(d: Record<string, unknown>): WindowFigures | string {
  const capacityId = typeof d.capacityId === 'string' ? d.capacityId.toLowerCase() : null;
  const windowStart = eventDate(d.windowStartTime);
  const needed = ['baseCapacityUnits', 'capacityUnitMs', 'interactiveDelayThresholdPercentage', 'interactiveRejectionThresholdPercentage', 'backgroundRejectionThresholdPercentage', 'overageTotalCapacityUnitMs'];
  const missing = needed.filter((f) => num(d, f) === null);
  if (!capacityId || !windowStart || missing.length > 0) return `a Summary event without ${[...(capacityId ? [] : ['capacityId']), ...(windowStart ? [] : ['windowStartTime']), ...missing].join(', ')}`;
  const baseCu = num(d, 'baseCapacityUnits')!;
  const used = num(d, 'capacityUnitMs')!;
  const f: WindowFigures = {
    capacityId,
    capacityName: typeof d.capacityName === 'string' && d.capacityName ? d.capacityName : capacityId,
    sku: typeof d.capacitySku === 'string' ? d.capacitySku : '',
    windowStart,
    baseCu,
    capacityUnitMs: used,
    utilizationPct: baseCu > 0 ? (used / (baseCu * 30_000)) * 100 : 0,
    delayPct: num(d, 'interactiveDelayThresholdPercentage')!,
    interactiveRejectionPct: num(d, 'interactiveRejectionThresholdPercentage')!,
    backgroundRejectionPct: num(d, 'backgroundRejectionThresholdPercentage')!,
    carryForwardCuMs: num(d, 'overageTotalCapacityUnitMs')!,
    workloads: workloadsOf(d.capacityUnitUtilizationBreakdown),
  };
  const problem = figuresProblem(f, SUMMARY_FIELDS);
  return problem ? `the Summary event of ${capacityId} at ${windowStart.toISOString()}: ${problem}` : f;
}

const SUMMARY_FIELDS = {
  delay: 'interactiveDelayThresholdPercentage',
  irej: 'interactiveRejectionThresholdPercentage',
  brej: 'backgroundRejectionThresholdPercentage',
  cu: 'capacityUnitMs',
  carry: 'overageTotalCapacityUnitMs',
};

/** One row of the table into the batch, or into `rejected` with its reason. */
function takeRow(row: Record<string, unknown>, table: string, into: { byWindow: Map<string, WindowFigures>; states: StateChangeEvent[]; rejected: RejectedRows; duplicates: number }): void {
  const d = dataOf(row.data);
  if (!d) {
    into.rejected.add(`table ${table}: a ${String(row.type)} row whose "data" is not an object`);
  } else if (row.type === SUMMARY_TYPE) {
    const f = summaryFigures(d);
    if (typeof f === 'string') {
      into.rejected.add(`table ${table}: ${f}`);
      return;
    }
    const key = `${f.capacityId}|${f.windowStart.toISOString()}`;
    into.rejected.read++;
    if (into.byWindow.has(key)) into.duplicates++;
    else into.byWindow.set(key, f);
  } else if (row.type === STATE_TYPE) {
    const at = eventDate(d.transitionTime);
    if (typeof d.capacityId !== 'string' || !at) {
      into.rejected.add(`table ${table}: a State event without capacityId or transitionTime`);
      return;
    }
    into.rejected.read++;
    into.states.push({ capacityId: d.capacityId.toLowerCase(), capacityName: String(d.capacityName ?? d.capacityId), at, state: String(d.capacityState ?? ''), reason: String(d.stateChangeReason ?? '') });
  }
}

/** New rows since the cursor (or the first lookback), as far as this run may read. */
export async function readNewEvents(client: PlatformClient, source: EventhouseSource, cursor: Date | null, now: Date, rejected = new RejectedRows()): Promise<EventBatch> {
  const limit = new Date(now.getTime() - SETTLE_MS);
  let since = cursor ?? new Date(now.getTime() - FIRST_LOOKBACK_MS);
  const into = { byWindow: new Map<string, WindowFigures>(), states: [] as StateChangeEvent[], rejected, duplicates: 0 };
  for (let q = 0; q < MAX_QUERIES_PER_RUN && since < limit; q++) {
    const until = new Date(Math.min(limit.getTime(), since.getTime() + SPAN_MS));
    const rows = await kustoQuery(client, { queryUri: source.queryUri, database: source.database }, READ_QUERY(source.table), { since: kqlDatetime(since), until: kqlDatetime(until) });
    for (const row of rows) takeRow(row, source.table, into);
    since = until;
  }
  return { windows: [...into.byWindow.values()], states: into.states, duplicates: into.duplicates, rejected: into.rejected, through: since };
}

export interface Culprit {
  itemId: string;
  itemName: string;
  itemKind: string;
  workspaceId: string;
  workspaceName: string;
  cu: number;
}

const CULPRITS_QUERY = (table: string, top: number) =>
  [
    'declare query_parameters(capacityId:string, from:datetime, to:datetime);',
    kqlTable(table),
    `| where type == '${OPERATION_TYPE}'`,
    '| where tostring(data.capacityId) =~ capacityId and todatetime(data.windowStartTime) >= from and todatetime(data.windowStartTime) < to',
    '| summarize cu = sum(todouble(data.capacityUnitMs)) by itemId = tostring(data.itemId), itemName = tostring(data.itemName), itemKind = tostring(data.itemKind), workspaceId = tostring(data.workspaceId), workspaceName = tostring(data.workspaceName)',
    `| top ${top} by cu desc`,
  ].join('\n');

/** The items that used the most CU on a capacity in [from, to), from per-operation events (empty when the table has none). */
export async function readCulprits(client: PlatformClient, source: EventhouseSource, capacityId: string, from: Date, to: Date, top = 5): Promise<Culprit[]> {
  const rows = await kustoQuery(client, { queryUri: source.queryUri, database: source.database }, CULPRITS_QUERY(source.table, top), {
    capacityId,
    from: kqlDatetime(from),
    to: kqlDatetime(to),
  });
  return rows
    .map((r) => ({ itemId: String(r.itemId ?? ''), itemName: String(r.itemName ?? ''), itemKind: String(r.itemKind ?? ''), workspaceId: String(r.workspaceId ?? ''), workspaceName: String(r.workspaceName ?? ''), cu: Number(r.cu) || 0 }))
    .filter((c) => c.itemId && c.cu > 0);
}
