/**
 * Reading the capacity overview events from the customer's Eventhouse table, incrementally.
 *
 * The cursor is the table's ingestion time on the platform's own clock: each query asks for the
 * rows ingested after the newest `ingestion_time()` read so far, less OVERLAP_MS, oldest first, and
 * the rows of that overlap already read are known by their event id (kept with the cursor) and
 * skipped. Vigia's clock bounds nothing — a row that becomes visible to queries later than rows
 * ingested after it (an ingestion batch committing late), or a Vigia clock running ahead of the
 * platform's, is read by a later run, never skipped. A long gap is read PAGE_ROWS rows per query,
 * up to MAX_QUERIES_PER_RUN queries. Duplicates the platform delivers are removed here by
 * (capacity, window start), and later by the history's primary key and the verdicts'
 * per-capacity watermark. The cursor is committed with the run's incidents.
 */
import { kqlDatetime, kqlTable, kustoQuery } from '../../platform/kusto.js';
import type { PlatformClient } from '../../platform/platform-client.js';
import type { EventhouseSource } from '../../connection/utilization-settings.js';
import { figuresProblem, RejectedRows, type WindowFigureValues } from './figure-checks.js';

export const SUMMARY_TYPE = 'Microsoft.Fabric.Capacity.Summary';
export const STATE_TYPE = 'Microsoft.Fabric.Capacity.State';
export const OPERATION_TYPE = 'Microsoft.Fabric.CapacityOperationEvents.Operation';

/** Each query reads again this much ingestion time before the newest row read (rows that became visible late). */
export const OVERLAP_MS = 5 * 60_000;
/** Rows one query returns at most (oldest ingestion first; 200 capacities make 24,000 Summary rows an hour). */
export const PAGE_ROWS = 20_000;
export const MAX_QUERIES_PER_RUN = 6;
/** A connection's first run reads back this far (the feed has no backfill beyond the table). */
export const FIRST_LOOKBACK_MS = 3_600_000;

export interface WindowFigures extends WindowFigureValues {
  capacityId: string;
  capacityName: string;
  sku: string;
  windowStart: Date;
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
  /** The new cursor (to commit with the run). */
  cursor: EventCursor;
}

/** Where the reading stands, on the platform's clock. */
export interface EventCursor {
  /** The newest `ingestion_time()` read (ISO); null before any row. */
  through: string | null;
  /** Rows read whose ingestion time is within OVERLAP_MS of `through`: event id → ingestion time (ms). Absent: read from `through` exactly. */
  seen?: Record<string, number>;
}

const READ_QUERY = (table: string) =>
  [
    'declare query_parameters(since:datetime);',
    kqlTable(table),
    '| where ingestion_time() > since',
    `| where type in ('${SUMMARY_TYPE}', '${STATE_TYPE}')`,
    '| extend ingested = ingestion_time()',
    "| project ingested, eventId = tostring(column_ifexists('id', '')), type, data",
    `| top ${PAGE_ROWS} by ingested asc`,
  ].join('\n');

/** A row's identity for the overlap: its CloudEvent id, or (a table without ids) what the event is about. */
function eventKey(row: Record<string, unknown>): string {
  if (typeof row.eventId === 'string' && row.eventId) return row.eventId;
  const d = dataOf(row.data);
  return `${String(row.type)}|${String(d?.capacityId ?? '')}|${String(d?.windowStartTime ?? d?.transitionTime ?? JSON.stringify(row.data).slice(0, 200))}`;
}

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
export async function readNewEvents(client: PlatformClient, source: EventhouseSource, from: EventCursor | null, now: Date, rejected = new RejectedRows()): Promise<EventBatch> {
  const into = { byWindow: new Map<string, WindowFigures>(), states: [] as StateChangeEvent[], rejected, duplicates: 0 };
  const seen = new Map(Object.entries(from?.seen ?? {}));
  let through = from?.through ? Date.parse(from.through) : null;
  // The first read looks back a while from now (a lookback, not a bound: a skew of Vigia's clock skips nothing).
  let since = through === null ? now.getTime() - FIRST_LOOKBACK_MS : from?.seen ? through - OVERLAP_MS : through;
  for (let q = 0; q < MAX_QUERIES_PER_RUN; q++) {
    const rows = await kustoQuery(client, { queryUri: source.queryUri, database: source.database }, READ_QUERY(source.table), { since: kqlDatetime(new Date(since)) });
    let fresh = 0;
    for (const row of rows) {
      const ingested = eventDate(row.ingested)?.getTime();
      const key = eventKey(row);
      if (ingested === undefined || seen.has(key)) continue;
      fresh++;
      seen.set(key, ingested);
      if (through === null || ingested > through) through = ingested;
      takeRow(row, source.table, into);
    }
    // A short page is the end; a full page that brought nothing new cannot move on (more rows share the overlap than a page holds).
    if (rows.length < PAGE_ROWS || fresh === 0 || through === null) break;
    since = through - OVERLAP_MS;
  }
  const keep = Object.fromEntries([...seen].filter(([, t]) => through !== null && t > through - OVERLAP_MS));
  const cursor: EventCursor = { through: through === null ? null : new Date(through).toISOString(), seen: keep };
  return { windows: [...into.byWindow.values()], states: into.states, duplicates: into.duplicates, rejected: into.rejected, cursor };
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
