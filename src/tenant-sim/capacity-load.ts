/**
 * The simulated load of each capacity, and the capacity events it produces: one
 * `Microsoft.Fabric.Capacity.Summary` per 30-second window while the capacity is active, a
 * `Microsoft.Fabric.Capacity.State` on each change (overloaded, paused, resumed), and one
 * `Microsoft.Fabric.CapacityOperationEvents.Operation` per item that used CU in a window. Windows
 * are computed lazily, in order, from a per-capacity model (a baseline utilization, the stage a
 * test pushed the capacity into, the carry-forward that follows from it), and cached: a window
 * once computed never changes, like the platform's events.
 *
 * Figures follow the throttling policy: the carry-forward C (in window budgets) commits future
 * windows, so the share of the next N windows already used is baseline + C / N — N = 20 (10 min,
 * interactive delay), 120 (1 h, interactive rejection), 2,880 (24 h, background rejection).
 */
import { randomUUID } from 'node:crypto';
import type { EventRow, LoadSegment, LoadStage, SimCapacity, SimCapacityLoad, SimItem, SimState } from './types.js';
import { lazyOf, workspaceById } from './lazy-tenant.js';

export type { EventRow, LoadStage, SimCapacityLoad } from './types.js';

export const WINDOW_MS = 30_000;
/** An event is in the Eventhouse this long after its window ends. */
export const INGEST_DELAY_MS = 15_000;
/** A duplicate delivery lands this much later than the first. */
const DUPLICATE_DELAY_MS = 40_000;
/** History the model has before its first use. */
const HISTORY_WINDOWS = 120;

export const LOAD_STAGES: readonly LoadStage[] = ['normal', 'high', 'interactiveDelay', 'interactiveRejection', 'backgroundRejection'];

export const EVENT_TYPES = {
  summary: 'Microsoft.Fabric.Capacity.Summary',
  state: 'Microsoft.Fabric.Capacity.State',
  operation: 'Microsoft.Fabric.CapacityOperationEvents.Operation',
} as const;


const WORKLOAD_OF: Record<SimItem['type'], string> = {
  SemanticModel: 'AS',
  DataPipeline: 'DI',
  MirroredDatabase: 'DMS',
  Notebook: 'SparkCore',
  SparkJobDefinition: 'SparkCore',
  Dataflow: 'Dataflows',
  CopyJob: 'DI',
};

const ITEM_KIND: Record<SimItem['type'], string> = {
  SemanticModel: 'SemanticModel',
  DataPipeline: 'Pipeline',
  MirroredDatabase: 'MirroredDatabase',
  Notebook: 'SynapseNotebook',
  SparkJobDefinition: 'SparkJobDefinition',
  Dataflow: 'Dataflow',
  CopyJob: 'CopyJob',
};

/** A number in [0, 1) from a string and an index: the same window always jitters the same way. */
function jitter(key: string, i: number): number {
  let h = 2166136261 ^ i;
  for (let k = 0; k < key.length; k++) h = Math.imul(h ^ key.charCodeAt(k), 16777619);
  h = Math.imul(h ^ (h >>> 15), 2246822507);
  return ((h ^ (h >>> 13)) >>> 0) / 4294967296;
}

export const windowOf = (ms: number) => Math.floor(ms / WINDOW_MS);

/** `2025-09-22 05:23:00.0000000`: the events' window time format (UTC, no `T`, no zone). */
export function eventTime(ms: number): string {
  return `${new Date(ms).toISOString().slice(0, 19).replace('T', ' ')}.${String(ms % 1000).padStart(3, '0')}0000`;
}

export function baseCuOf(sku: string): number {
  const n = Number(/\d+/.exec(sku)?.[0] ?? 2);
  return Number.isFinite(n) && n > 0 ? n : 2;
}

export function loadOf(state: SimState, capacity: SimCapacity, now: number): SimCapacityLoad {
  state.loads ??= {};
  let load = state.loads[capacity.id];
  if (!load) {
    const origin = windowOf(now) - HISTORY_WINDOWS;
    load = {
      origin,
      baseline: 0.25 + jitter(capacity.id, 0) * 0.3,
      segments: [],
      dropped: [],
      duplicated: [],
      transitions: [],
      rows: [],
      next: origin,
      carry: 0,
      overloaded: null,
    };
    state.loads[capacity.id] = load;
  }
  return load;
}

/** Carry-forward (window budgets) that puts the stage's figure at this share. */
function carryFor(stage: LoadStage, baseline: number): number | null {
  if (stage === 'interactiveDelay') return 20 * (1.3 - baseline);
  if (stage === 'interactiveRejection') return 120 * (1.3 - baseline);
  if (stage === 'backgroundRejection') return 2880 * (1.1 - baseline);
  return null;
}

/** From the current window on, the capacity runs in `stage`; `clear` drops the carry-forward at once. */
export function pushStage(state: SimState, capacity: SimCapacity, now: number, stage: LoadStage, heavyItemId: string | null, clear: boolean): void {
  const load = loadOf(state, capacity, now);
  materialize(state, capacity, now);
  const from = Math.max(windowOf(now), load.next);
  const setCarry = carryFor(stage, load.baseline) ?? (clear ? 0 : null);
  load.segments.push({ from, stage, heavyItemId, setCarry });
}

/** The next `drop` windows' events are lost, the next `duplicate` windows' delivered twice. */
export function disturbEvents(state: SimState, capacity: SimCapacity, now: number, drop: number, duplicate: number): void {
  const load = loadOf(state, capacity, now);
  materialize(state, capacity, now);
  const from = Math.max(windowOf(now), load.next);
  for (let i = 0; i < drop; i++) load.dropped.push(from + i);
  for (let i = 0; i < duplicate; i++) load.duplicated.push(from + i);
}

/** A pause or resume, as a State event and as the end of Summary events while paused. */
export function recordTransition(state: SimState, capacity: SimCapacity, now: number, wasActive: boolean, active: boolean): void {
  if (wasActive === active) return;
  const load = loadOf(state, capacity, now);
  materialize(state, capacity, now);
  load.transitions.push({ at: now, active, state: active ? 'Active' : 'Suspended', reason: active ? 'ManuallyResumed' : 'ManuallyPaused' });
}

function segmentAt(load: SimCapacityLoad, i: number): LoadSegment | null {
  let found: LoadSegment | null = null;
  for (const s of load.segments) if (s.from <= i) found = s;
  return found;
}

function activeAt(load: SimCapacityLoad, capacity: SimCapacity, ms: number): boolean {
  if (load.transitions.length === 0) return capacity.state === 'Active';
  let active = !load.transitions[0]!.active;
  for (const t of load.transitions) if (t.at <= ms) active = t.active;
  return active;
}

function itemsOn(state: SimState, capacity: SimCapacity): Array<{ item: SimItem; workspaceName: string }> {
  // A lazy tenant knows its workspaces per capacity: six items need a few of them, not all 50,000.
  const lazy = lazyOf(state.workspaces);
  const on = lazy ? Array.from(lazy.workspacesOn(capacity.id).subarray(0, 6), (w) => lazy.at(w)!) : state.workspaces.filter((w) => w.capacityId === capacity.id);
  return on
    .flatMap((w) => w.items.map((item) => ({ item, workspaceName: w.name })))
    .slice(0, 6);
}

/** What every window of one capacity's materialization shares. */
interface CapacityWindows {
  state: SimState;
  capacity: SimCapacity;
  load: SimCapacityLoad;
  items: Array<{ item: SimItem; workspaceName: string }>;
  subject: string;
  cu: number;
  budget: number;
}

type Emit = (type: string, time: number, data: Record<string, unknown>, schema?: number) => void;

/** Computes every window that has ended by `now` (its events exist, though maybe not yet ingested). */
export function materialize(state: SimState, capacity: SimCapacity, now: number): void {
  const load = loadOf(state, capacity, now);
  const last = windowOf(now) - 1;
  const cu = baseCuOf(capacity.sku);
  const windows: CapacityWindows = { state, capacity, load, items: itemsOn(state, capacity), subject: `/capacities/${capacity.id.toLowerCase()}`, cu, budget: cu * 1000 * 30 };
  for (let i = load.next; i <= last; i++) materializeWindow(windows, i);
  if (last >= load.next) load.next = last + 1;
}

/** The event rows of window `i`: emitted once, not at all (dropped) or twice (duplicated). */
function emitterOf(w: CapacityWindows, i: number, end: number): Emit {
  const { load } = w;
  return (type, time, data, schema = 1.0) => {
    const copies = load.dropped.includes(i) ? 0 : load.duplicated.includes(i) ? 2 : 1;
    for (let c = 0; c < copies; c++) {
      const copy = c === 0 ? data : { ...data, ...(typeof data.capacityUnitMs === 'number' ? { capacityUnitMs: data.capacityUnitMs * 1.0001 } : {}) };
      load.rows.push({
        ingestedAt: end + INGEST_DELAY_MS + c * DUPLICATE_DELAY_MS,
        specversion: 1.0,
        source: w.state.tenantId,
        time: new Date(time).toISOString(),
        id: randomUUID(),
        subject: type === EVENT_TYPES.operation ? `${w.subject}/workspaces/${String(copy.workspaceId)}/items/${String(copy.itemId)}` : w.subject,
        dataschemaversion: schema,
        type,
        data: copy,
      });
    }
  };
}

function materializeWindow(w: CapacityWindows, i: number): void {
  const { capacity, load, items } = w;
  const start = i * WINDOW_MS;
  const end = start + WINDOW_MS;
  const common = { capacityId: capacity.id.toLowerCase(), capacityName: capacity.displayName, capacitySku: capacity.sku };
  const emit = emitterOf(w, i, end);
  for (const t of load.transitions) {
    if (t.at >= start && t.at < end) {
      emit(EVENT_TYPES.state, t.at, { ...common, transitionTime: eventTime(t.at), capacityState: t.state, stateChangeReason: t.reason, activationId: randomUUID() });
      load.overloaded = null;
    }
  }
  if (!activeAt(load, capacity, end - 1)) {
    // A pause bills what is owed: the capacity resumes with no carry-forward.
    load.carry = 0;
    return;
  }
  const seg = segmentAt(load, i);
  const stage = seg?.stage ?? 'normal';
  if (seg && seg.from === i && seg.setCarry !== null) load.carry = seg.setCarry;
  const j = jitter(capacity.id, i) - 0.5;
  let u: number;
  if (stage === 'normal') u = Math.max(0.02, load.baseline + j * 0.1);
  else if (stage === 'high') u = 0.9 + j * 0.04;
  else u = 1.0; // held: the carry-forward neither grows nor burns
  const carryIn = load.carry;
  const add = Math.max(0, u - 1);
  const burn = Math.min(carryIn + add, Math.max(0, 1 - u));
  load.carry = carryIn + add - burn;
  const share = (n: number) => (load.baseline + carryIn / n) * 100;
  const delay = share(20);
  const irej = share(120);
  const brej = share(2880);
  const used = u * w.budget;
  // Which items used the CU: a pushed stage has one heavy item; otherwise an even-ish split.
  const heavy = seg?.heavyItemId ? items.find((x) => x.item.id.toLowerCase() === seg.heavyItemId!.toLowerCase()) : stage !== 'normal' && stage !== 'high' ? items[0] : undefined;
  const weights = items.map((x, k) => (x === heavy ? 7 * items.length : 1 + jitter(x.item.id, i + k)));
  const total = weights.reduce((a, b) => a + b, 0);
  const itemCu = items.map((_, k) => (used * weights[k]!) / total);
  emit(EVENT_TYPES.summary, end, {
    ...common,
    ...summaryFigures(w, start, end, { used, carryIn, add, burn, delay, irej, brej, itemCu }),
  });
  const overloaded = brej > 100 ? 'AllRejected' : irej > 100 ? 'InteractiveRejected' : delay > 100 ? 'InteractiveDelay' : null;
  if (overloaded !== load.overloaded) {
    emit(EVENT_TYPES.state, end, { ...common, transitionTime: eventTime(end), capacityState: overloaded ? 'Overloaded' : 'Active', stateChangeReason: overloaded ?? 'NotOverloaded', activationId: randomUUID() });
    load.overloaded = overloaded;
  }
  items.forEach((x, k) => {
    emit(EVENT_TYPES.operation, end, { ...common, ...operationFigures(w, x.item, start, end, itemCu[k]!, delay) }, 1.1);
  });
}

/** The Summary event's figures of one window (after the fields every event shares). */
function summaryFigures(
  w: CapacityWindows,
  start: number,
  end: number,
  f: { used: number; carryIn: number; add: number; burn: number; delay: number; irej: number; brej: number; itemCu: number[] },
): Record<string, unknown> {
  const interactive = f.used * 0.4;
  const background = f.used - interactive;
  const byWorkload = new Map<string, number>();
  w.items.forEach((x, k) => {
    const kind = WORKLOAD_OF[x.item.type];
    byWorkload.set(kind, (byWorkload.get(kind) ?? 0) + f.itemCu[k]!);
  });
  return {
    tenantId: w.state.tenantId,
    capacityRegion: w.capacity.region.toLowerCase(),
    windowStartTime: eventTime(start),
    windowEndTime: eventTime(end),
    baseCapacityUnits: w.cu,
    capacityUnitMs: f.used,
    interactiveDelayThresholdPercentage: f.delay,
    interactiveRejectionThresholdPercentage: f.irej,
    backgroundRejectionThresholdPercentage: f.brej,
    overageTotalCapacityUnitMs: f.carryIn * w.budget,
    overageAddCapacityUnitMs: f.add * w.budget,
    overageBurndownCapacityUnitMs: f.burn * w.budget,
    utilizationBackground: background,
    utilizationInteractive: interactive,
    utilizationBackgroundPreview: 0,
    utilizationInteractivePreview: 0,
    capacityUnitUtilizationBreakdown: [...byWorkload].map(([code, v]) => ({ WorkloadKind: code, Utilization: { Interactive: v * 0.4, Background: v * 0.6 } })),
    processedOverageCapacityUnitsMs: 0,
    overageBillingLimitCapacityUnitsMs: 0,
  };
}

/** One item's Operation event of a window (after the fields every event shares). */
function operationFigures(w: CapacityWindows, item: SimItem, start: number, end: number, capacityUnitMs: number, delay: number): Record<string, unknown> {
  const ws = workspaceById(w.state, item.workspaceId)!;
  return {
    capacityFriendlyName: w.capacity.displayName,
    tenantId: w.state.tenantId,
    workspaceId: ws.id.toLowerCase(),
    workspaceName: ws.name,
    itemId: item.id.toLowerCase(),
    itemName: item.displayName,
    itemKind: ITEM_KIND[item.type],
    capacityUnitMs,
    durationMs: 30_000,
    throttlingDelayMs: delay > 100 ? 20_000 : 0,
    operationId: randomUUID(),
    status: 'Success',
    operationStartTime: new Date(start).toISOString(),
    releaseType: 'Public',
    operationName: item.type === 'SemanticModel' ? 'Query' : 'Scheduled Run',
    utilizationType: item.type === 'SemanticModel' ? 'Interactive' : 'Background',
    windowStartTime: new Date(start).toISOString(),
    windowEndTime: new Date(end).toISOString(),
  };
}

/** When a row shows in query results: its ingestion time, or later for a row made late (eventhouse-faults.ts). */
export function visibleAt(load: SimCapacityLoad, r: EventRow): number {
  const late = load.late?.find((l) => r.ingestedAt >= l.from && r.ingestedAt < l.to);
  return r.ingestedAt + (late?.ms ?? 0);
}

/** Rows of every capacity ingested in (since, until] and visible by now (eventhouse-faults.ts), oldest ingestion first. */
export function ingestedRows(state: SimState, now: number, since: number, until: number): EventRow[] {
  const out: EventRow[] = [];
  const upTo = Math.min(until, now);
  for (const c of state.capacities) {
    materialize(state, c, now);
    const load = loadOf(state, c, now);
    for (const r of load.rows) if (r.ingestedAt > since && r.ingestedAt <= upTo && visibleAt(load, r) <= now) out.push(r);
  }
  return out.sort((a, b) => a.ingestedAt - b.ingestedAt);
}
