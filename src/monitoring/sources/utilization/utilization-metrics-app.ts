/**
 * The `utilization` collector's second source: the Capacity Metrics app's semantic model, read
 * with DAX through Power BI `executeQueries`, for tenants that have the app and no event stream.
 *
 * The app renamed its model across versions (vendor-specs/capacity-load/README.md §5.3), so the
 * model is first asked which names it has: one probe per known name set, newest first, each a
 * one-measure `EVALUATE ROW` that the model answers only when the measure exists (v53+ has
 * `Blocked workspaces (Day)`, v40–v47 `Background billable CU %`, v37 `xBackground %`). The
 * mapping found is kept in the collector's state; a query refused as DAX (a name the model lacks,
 * i.e. the app was upgraded) drops it and probes again. When no mapping fits, nothing is read and
 * the `Tenant` incident `CapacityMetricsUnreadable` names what was found — wrong numbers are never
 * read silently; it recovers at the first run that reads the model again.
 *
 * Reading is incremental on the model's timepoints: each query asks for timepoints in (after,
 * upTo], bounds Vigia chose, and the cursor moves to the newest timepoint the model returned —
 * the app publishes usage 10–15 minutes late, so a window not there yet is read by a later run,
 * never skipped. A span with no timepoint at all is passed over only once it is an hour old (every
 * capacity paused, or a hole in the model). The verdicts' per-capacity watermark keeps a window
 * from being judged twice. Units: the throttling measures are divided by the model's own
 * `Interactive rejection threshold` (the 100 % line), so they read the same whether the model
 * returns fractions or percents. The culprits come from the app's item table, which is per day:
 * the items with most CU on the capacity that day.
 */
import type { SignalInput } from '../../../alerts/signals.js';
import type { Reader } from '../../engine/reader.js';
import { storeWindows } from './capacity-history.js';
import type { CollectorRun } from '../../engine/collector.js';
import type { StateChange } from '../../engine/output.js';
import type { Texts } from '../../messages/fixes.js';
import type { PlatformClient } from '../../platform/platform-client.js';
import { thresholdsFor, type MetricsAppSource, type UtilizationSettings } from '../../connection/utilization-settings.js';
import type { StateChangeEvent, WindowFigures } from './utilization-events.js';
import { figuresProblem, RejectedRows } from './figure-checks.js';
import { column, executeDax, isDaxRefusal, itemsQuery, MAPPINGS, NONE_FOUND, numberOf, probeMapping, timepointOf, timepointsQuery, type Measure, type NameMapping } from './metrics-app-dax.js';
import { freshMemory, judgeCapacity, PAUSE_SPIKE_PERCENT, stageOf, throttledMessage, type CapacityMemory } from './utilization-verdicts.js';

export const UNREADABLE_KIND = 'CapacityMetricsUnreadable';
export const METRICS_APP_KEY = 'metricsApp';
/** The same per-capacity keys as the Eventhouse source (utilization.ts): one verdict memory per capacity, whatever the source. */
const CAPACITY_PREFIX = 'cap:';
/** One query reads at most this much model time (200 capacities × 120 timepoints = 24,000 rows, under executeQueries' 100,000). */
export const SPAN_MS = 3_600_000;
export const MAX_QUERIES_PER_RUN = 6;
/** A connection's first run reads back this far (the app keeps 14 days). */
export const FIRST_LOOKBACK_MS = 3_600_000;
/** Beyond the app's 10–15 minute publishing delay: a span this old with no timepoint will get none. */
export const STALE_MS = 3_600_000;
const RETENTION_MS = 14 * 86_400_000;
const CULPRITS = 5;

export interface AppMemory {
  /** `versions` of the mapping in use, or null (probe first). */
  mapping: string | null;
  /** Every timepoint up to this instant (ISO) has been read. */
  through: string | null;
  /** The open CapacityMetricsUnreadable incident, with what it is about (so a deletion can resolve it). */
  unreadable: { tenantId: string; tenantName: string; found: string } | null;
}

const freshApp = (): AppMemory => ({ mapping: null, through: null, unreadable: null });


class Unreadable extends Error {}


// ---- figures ----

interface CapacityInfo {
  name: string;
  sku: string;
  active: boolean;
}

/** A timepoint row's figures; null when it has no usage yet; a string when a figure is out of range (the row is skipped). */
function figuresOf(m: NameMapping, row: Record<string, unknown>, caps: Map<string, CapacityInfo>): WindowFigures | string | null {
  const id = column(row, m.capacityId);
  const at = timepointOf(column(row, 'TimePoint'));
  if (typeof id !== 'string' || !at) throw new Unreadable(`a timepoint row without ${typeof id !== 'string' ? m.capacityId : 'TimePoint'}`);
  const v = (k: Measure) => numberOf(column(row, k));
  // A row whose CU is blank is a timepoint without usage data yet (constant measures such as the
  // threshold keep SUMMARIZECOLUMNS rows alive): not a window, and the cursor does not pass it.
  if (v('cu') === null) return null;
  const [thr, sku] = [v('thr'), v('sku')];
  // A timepoint without its 100 % line or its SKU cannot be scaled: unreadable, not guessed.
  if (thr !== null && sku !== null && (thr < 0 || sku < 0)) return `the timepoint ${at.toISOString()} of ${id}: '${thr < 0 ? m.measures.thr : m.measures.sku}' is negative`;
  if (thr === null || thr <= 0 || sku === null || sku <= 0) throw new Unreadable(`'${m.measures.thr}' or '${m.measures.sku}' is blank or zero at ${at.toISOString()}, so the figures cannot be scaled`);
  const cu = v('cu')!;
  const capacityId = id.toLowerCase();
  const info = caps.get(capacityId);
  const w: WindowFigures = {
    capacityId,
    capacityName: info?.name ?? capacityId,
    sku: info?.sku ?? '',
    windowStart: at,
    baseCu: sku / 30,
    capacityUnitMs: cu * 1000,
    utilizationPct: (cu / sku) * 100,
    delayPct: ((v('delay') ?? 0) / thr) * 100,
    interactiveRejectionPct: ((v('irej') ?? 0) / thr) * 100,
    backgroundRejectionPct: ((v('brej') ?? 0) / thr) * 100,
    carryForwardCuMs: ((v('carry') ?? 0) / thr) * sku * 1000,
    workloads: {},
  };
  const problem = figuresProblem(w, { delay: `'${m.measures.delay}'`, irej: `'${m.measures.irej}'`, brej: `'${m.measures.brej}'`, cu: `'${m.measures.cu}'`, carry: `'${m.measures.carry}'` });
  return problem ? `the timepoint ${at.toISOString()} of ${capacityId}: ${problem}` : w;
}

/** Timepoints after the cursor, as far as this run may read; the new cursor. */
async function readTimepoints(client: PlatformClient, source: MetricsAppSource, m: NameMapping, cursor: Date, now: Date, caps: Map<string, CapacityInfo>, rejected: RejectedRows) {
  const windows: WindowFigures[] = [];
  let after = cursor;
  for (let n = 0; n < MAX_QUERIES_PER_RUN && after < now; n++) {
    const upTo = new Date(Math.min(now.getTime(), after.getTime() + SPAN_MS));
    const rows = await executeDax(client, source, timepointsQuery(m, after, upTo));
    let newest: Date | null = null;
    for (const row of rows) {
      const w = figuresOf(m, row, caps);
      // A row out of range is skipped and counted; the cursor passes it with the rows after it.
      const at = typeof w === 'string' ? timepointOf(column(row, 'TimePoint'))! : w?.windowStart;
      if (!w || !at || at <= after || at > upTo) continue;
      if (typeof w === 'string') rejected.add(`Capacity Metrics app: ${w}`);
      else {
        rejected.read++;
        windows.push(w);
      }
      if (!newest || at > newest) newest = at;
    }
    if (newest) after = newest;
    else if (upTo.getTime() <= now.getTime() - STALE_MS) after = upTo;
    else break;
    if (upTo.getTime() === now.getTime()) break;
  }
  return { windows, through: after };
}

// ---- culprits ----

interface Culprit {
  itemId: string;
  workspaceId: string;
  itemKind: string;
  cu: number;
}

async function namesOf(db: Reader, tenantRef: string, orgId: string, culprits: Culprit[]) {
  const items = await db.query('SELECT item_id, item_name FROM monitored_lineage WHERE tenant_ref = $1 AND item_id = ANY($2::text[])', [tenantRef, culprits.map((c) => c.itemId)]);
  const spaces = await db.query('SELECT remote_id, name FROM workspaces WHERE org_id = $1 AND lower(remote_id) = ANY($2::text[])', [orgId, culprits.map((c) => c.workspaceId)]);
  return {
    item: new Map(items.rows.map((r) => [String(r.item_id).toLowerCase(), String(r.item_name)])),
    workspace: new Map(spaces.rows.map((r) => [String(r.remote_id).toLowerCase(), String(r.name)])),
  };
}

async function culpritText(run: MetricsAppRun, source: MetricsAppSource, m: NameMapping, w: WindowFigures): Promise<Texts | null> {
  let rows: Array<Record<string, unknown>>;
  try {
    rows = await executeDax(run.client, source, itemsQuery(m, w.capacityId.toUpperCase(), w.windowStart, CULPRITS));
  } catch (err) {
    // The throttling is known without its culprits: an item table with other names does not hold the incident back.
    if (!isDaxRefusal(err)) throw err;
    return {
      'pt-BR': `Itens com mais CU: a tabela de itens do app Capacity Metrics (${m.items.table}) recusou a consulta com os nomes da versão ${m.versions}.`,
      en: `Items with the most CU: the Capacity Metrics app's item table (${m.items.table}) refused the query with the names of version ${m.versions}.`,
    };
  }
  const culprits = rows
    .map((r) => ({ itemId: String(column(r, m.items.itemId) ?? '').toLowerCase(), workspaceId: String(column(r, m.items.workspaceId) ?? '').toLowerCase(), itemKind: String(column(r, m.items.itemKind) ?? ''), cu: numberOf(column(r, 'cu')) ?? 0 }))
    .filter((c) => c.itemId && c.cu > 0);
  const total = culprits.reduce((a, c) => a + c.cu, 0);
  if (total <= 0) return null;
  const names = await namesOf(run.reader, run.tenant.id, run.tenant.org_id, culprits);
  const list = culprits.map((c) => `${names.item.get(c.itemId) ?? c.itemId} (${c.itemKind}, workspace ${names.workspace.get(c.workspaceId) ?? c.workspaceId}) ${Math.round((c.cu / total) * 100)} %`);
  return {
    'pt-BR': `Itens com mais CU no dia (app Capacity Metrics, que agrega por dia): ${list.join('; ')}.`,
    en: `Items with the most CU over the day (the Capacity Metrics app aggregates by day): ${list.join('; ')}.`,
  };
}

// ---- the run ----

function unreadableSignal(kind: 'failure' | 'recovery', t: { tenantId: string; tenantName: string }, found: string, at: Date): SignalInput {
  const failure = kind === 'failure';
  return {
    sourceType: 'Tenant',
    sourceId: t.tenantId,
    sourceName: t.tenantName,
    kind,
    notificationKind: UNREADABLE_KIND,
    severity: 'error',
    title: failure
      ? { en: `Vigia cannot read the Capacity Metrics app's model: ${t.tenantName}`, 'pt-BR': `O Vigia não consegue ler o modelo do app Capacity Metrics: ${t.tenantName}` }
      : { en: `The Capacity Metrics app's model is readable again: ${t.tenantName}`, 'pt-BR': `O modelo do app Capacity Metrics voltou a ser lido: ${t.tenantName}` },
    message: failure
      ? {
          en: [
            `Vigia cannot read the Capacity Metrics app's model of ${t.tenantName}: version found — ${found}. Nothing was read from it, so capacity throttling is not watched through this source.`,
            'What to do: update Vigia to a version that knows this app version, or route the capacity overview events to an Eventhouse (utilization.eventhouse) — see docs/monitoring.md, "Capacity load".',
          ].join('\n'),
          'pt-BR': [
            `O Vigia não consegue ler o modelo do app Capacity Metrics de ${t.tenantName}: versão encontrada — ${found}. Nada foi lido dele; a limitação das capacidades não está sendo observada por esta fonte.`,
            'O que fazer: atualize o Vigia para uma versão que conheça esta versão do app, ou envie os eventos de capacidade a um Eventhouse (utilization.eventhouse) — veja docs/monitoring.md, "Capacity load".',
          ].join('\n'),
        }
      : { en: `The Capacity Metrics app's model of ${t.tenantName} is readable again.`, 'pt-BR': `O modelo do app Capacity Metrics de ${t.tenantName} voltou a ser lido.` },
    occurredAt: at,
  };
}

async function capacitiesOf(client: PlatformClient): Promise<Map<string, CapacityInfo>> {
  const out = new Map<string, CapacityInfo>();
  for await (const page of client.fabricPages<Record<string, unknown>>({ family: 'fabric', audience: 'fabric', url: client.fabric('/capacities') })) {
    for (const c of page) {
      if (typeof c.id !== 'string') continue;
      out.set(c.id.toLowerCase(), { name: typeof c.displayName === 'string' && c.displayName ? c.displayName : c.id, sku: typeof c.sku === 'string' ? c.sku : '', active: c.state === 'Active' });
    }
  }
  return out;
}

export type MetricsAppRun = Pick<CollectorRun, 'ctx' | 'tenant' | 'client' | 'state' | 'reader' | 'write' | 'commit'>;

/** One run of the `utilization` collector on the Metrics app source (called by utilization.ts). */
export async function runMetricsApp(run: MetricsAppRun, settings: UtilizationSettings, source: MetricsAppSource, rejected = new RejectedRows()): Promise<void> {
  const { ctx, tenant, client, state, write, commit } = run;
  const now = ctx.clock.now();
  const prev = { ...freshApp(), ...((state.get(METRICS_APP_KEY) as Partial<AppMemory> | undefined) ?? {}) };
  const who = { tenantId: tenant.id, tenantName: tenant.name };
  const unreadable = async (found: string) => {
    const signals = prev.unreadable ? [] : [unreadableSignal('failure', who, found, now)];
    await commit(signals, [{ key: METRICS_APP_KEY, value: { ...prev, mapping: null, unreadable: { ...who, found } } satisfies AppMemory }]);
  };

  let mapping = MAPPINGS.find((m) => m.versions === prev.mapping) ?? null;
  const probed = !mapping;
  if (!mapping) mapping = await probeMapping(client, source);
  if (!mapping) return unreadable(NONE_FOUND);
  const caps = await capacitiesOf(client);

  const start = prev.through ? new Date(prev.through) : new Date(now.getTime() - FIRST_LOOKBACK_MS);
  const cursor = new Date(Math.max(start.getTime(), now.getTime() - RETENTION_MS));
  let batch: Awaited<ReturnType<typeof readTimepoints>>;
  try {
    try {
      batch = await readTimepoints(client, source, mapping, cursor, now, caps, rejected);
    } catch (err) {
      // The names cached no longer fit (the app was upgraded): probe again, once.
      if (!isDaxRefusal(err) || probed) throw err;
      const again = await probeMapping(client, source);
      if (!again) return unreadable(NONE_FOUND);
      mapping = again;
      batch = await readTimepoints(client, source, mapping, cursor, now, caps, rejected);
    }
  } catch (err) {
    if (isDaxRefusal(err)) return unreadable(`${mapping.versions} (the model has '${mapping.probe}'), but the model refuses the timepoints query with these names (${(err as Error).message}): a later app version`);
    if (err instanceof Unreadable) return unreadable(`${mapping.versions} (the model has '${mapping.probe}'), but ${err.message}`);
    throw err;
  }

  write((q) => storeWindows(q, tenant.org_id, tenant.id, batch.windows.filter((w) => w.utilizationPct <= PAUSE_SPIKE_PERCENT)));
  const signals: SignalInput[] = prev.unreadable ? [unreadableSignal('recovery', prev.unreadable, prev.unreadable.found, now)] : [];
  const changes: StateChange[] = [{ key: METRICS_APP_KEY, value: { mapping: mapping.versions, through: batch.through.toISOString(), unreadable: null } satisfies AppMemory }];
  const ids = new Set(batch.windows.map((w) => w.capacityId));
  // A capacity paused now (the Fabric API's state; the model has no state events) ends its throttling: the pause bills the carry-forward.
  for (const [k, v] of state) if (k.startsWith(CAPACITY_PREFIX) && (v as CapacityMemory).stage !== null) ids.add(k.slice(CAPACITY_PREFIX.length));
  for (const id of ids) {
    const windows = batch.windows.filter((w) => w.capacityId === id);
    const info = caps.get(id);
    const name = info?.name ?? windows.at(-1)?.capacityName ?? id;
    const before = (state.get(CAPACITY_PREFIX + id) as CapacityMemory | undefined) ?? freshMemory(name);
    const paused = info !== undefined && !info.active && (before.stage !== null || before.high);
    const states: StateChangeEvent[] = paused ? [{ capacityId: id, capacityName: name, at: now, state: 'Suspended', reason: 'ManuallyPaused' }] : [];
    if (windows.length === 0 && states.length === 0) continue;
    const judged = judgeCapacity(id, before, windows, states, thresholdsFor(settings, name));
    // Windows from before the pause that the model publishes later are not judged again (the pause ended their throttling).
    if (paused && (!judged.memory.lastWindow || judged.memory.lastWindow < now.toISOString())) judged.memory.lastWindow = now.toISOString();
    for (const s of judged.signals) {
      if (s.kind !== 'failure' || s.notificationKind !== 'CapacityThrottled') continue;
      const w = judged.throttledAt.shift()!;
      s.message = throttledMessage(w, stageOf(w)!, await culpritText(run, source, mapping, w));
    }
    signals.push(...judged.signals);
    changes.push({ key: CAPACITY_PREFIX + id, value: judged.memory });
  }
  await commit(signals, changes);
}

/** The recovery owed when the connection is deleted with the model unreadable. */
export function metricsAppReleaseSignals(state: Map<string, unknown>, now: Date): SignalInput[] {
  const m = state.get(METRICS_APP_KEY) as AppMemory | undefined;
  return m?.unreadable ? [unreadableSignal('recovery', m.unreadable, m.unreadable.found, now)] : [];
}
