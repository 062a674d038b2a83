/**
 * The `utilization` collector's Azure Monitor source: Power BI Embedded capacities (A and EM SKUs,
 * ARM type `Microsoft.PowerBIDedicated/capacities`) found under the connection's `armScopes`, and
 * their platform metrics `overload_metric` (1 when the capacity is overloaded) and `cpu_metric`
 * (CPU %), one point per minute (capacity-load/README.md §6.1). It costs the customer's capacity
 * nothing: these are ARM reads, paid from the `arm` family's hourly budget.
 *
 * What the figures mean. An A SKU exposes no smoothed future-use figures, no stages and no
 * carry-forward — only "overloaded or not" and CPU. So for an A SKU:
 * - `CapacityThrottled` means Azure Monitor reported the capacity overloaded (overload_metric > 0)
 *   in a minute: the platform is throttling new work; which stage (delay or rejection) and how
 *   much carry-forward is owed are not published for A SKUs, and the message says so.
 * - `CapacityHighUtilization` means the minute's average CPU passed `warnPercent`.
 * - In the figures the verdicts and the history use, the 10-minute column carries the CPU %, set
 *   to at least 101 in an overloaded minute (so "over 100 %" means throttling for every SKU); the
 *   1-hour and 24-hour columns and the carry-forward are 0 — not reported, not measured as zero.
 * - A minute stands for both of its 30-second windows (two rows with the same figures), so
 *   `recoverWindows` and the history's minutes-per-stage keep their meaning in time: the default
 *   4 windows is 2 minutes without overload.
 *
 * Reading is incremental per capacity: a cursor (the next minute to read) is committed with the
 * run's incidents; each query asks [cursor, the current minute) — never a minute twice, none
 * skipped after a gap or a restart (a long gap is read SPAN_MS per query, within the run's
 * CallBudget, and caught up over the next runs). A minute is complete when both series have
 * published their point (each metric is published on its own, a minute or more late); one still
 * missing is read again until SETTLE_MS after the minute ended, and after that what is there counts
 * — no point at all is no data: a paused or deleted capacity, or a minute never published. The
 * capacity list is kept in the collector's state and read again every LISTING_REFRESH_MS; a
 * capacity listed as paused recovers its incidents (a pause ends the overload).
 */
import type { SignalInput } from '../../../alerts/signals.js';
import { HOURLY_CAPS } from '../../platform/budget.js';
import { storeWindows } from './capacity-history.js';
import type { CollectorRun } from '../../engine/collector.js';
import type { StateChange } from '../../engine/output.js';
import { VendorAnswerError, VendorHttpError, type PlatformClient } from '../../platform/platform-client.js';
import { CallBudget, listingIsDue, RunBudgetSpent, runBudget } from '../../platform/run-budget.js';
import { thresholdsFor, type UtilizationSettings } from '../../connection/utilization-settings.js';
import type { StateChangeEvent, WindowFigures } from './utilization-events.js';
import { RejectedRows, valueProblem } from './figure-checks.js';
import { freshMemory, judgeCapacity, releaseSignals, THROTTLED_KIND, type CapacityMemory } from './utilization-verdicts.js';

export const PBIE_API_VERSION = '2021-01-01';
export const METRICS_API_VERSION = '2023-10-01';
const METRIC_NAMES = 'overload_metric,cpu_metric';
/** Share of the `arm` family's hourly cap one run may spend (the capacity and cost collectors use ARM too). */
export const AZURE_MONITOR_SHARE = 0.25;
/** A connection's (or a newly found capacity's) first read goes back this far. */
export const FIRST_LOOKBACK_MS = 3_600_000;
/** One query reads at most this much (360 one-minute points per metric). */
export const SPAN_MS = 6 * 3_600_000;
/** A minute still without a point this long after it ended counts as read, with no data. */
export const SETTLE_MS = 5 * 60_000;
/** Azure Monitor keeps platform metrics 93 days: a cursor older than that restarts there. */
const RETENTION_MS = 93 * 86_400_000;
const MINUTE_MS = 60_000;

export const LIST_KEY = 'azm:list';
const CURSOR_PREFIX = 'azm:cursor:';
/** Shared with the Eventhouse source: each capacity's verdict memory (releaseAll finds it there). */
const CAPACITY_PREFIX = 'cap:';

export interface EmbeddedCapacity {
  /** ARM resource ID, lower case: the capacity's id in incidents and history. */
  id: string;
  /** The ARM resource's name (an Embedded capacity's name in Power BI too). */
  name: string;
  sku: string;
  /** ARM `properties.state` (Succeeded, Paused, Suspended, …). */
  state: string;
}

interface Listing {
  listedAt: string;
  capacities: EmbeddedCapacity[];
}

const PAUSED = new Set(['paused', 'suspended', 'pausing', 'suspending', 'deleting']);
export const isPaused = (state: string) => PAUSED.has(state.toLowerCase());

/** One listing per subscription, or per resource group when its subscription is not listed whole. */
export function embeddedListPaths(scopes: string[]): string[] {
  const subOf = (s: string) => /^\/subscriptions\/([^/]+)/i.exec(s)![1]!.toLowerCase();
  const whole = new Set(scopes.filter((s) => !/\/resourceGroups\//i.test(s)).map(subOf));
  const paths = new Set<string>();
  for (const s of whole) paths.add(`/subscriptions/${s}/providers/Microsoft.PowerBIDedicated/capacities`);
  for (const s of scopes) if (/\/resourceGroups\//i.test(s) && !whole.has(subOf(s))) paths.add(`${s}/providers/Microsoft.PowerBIDedicated/capacities`);
  return [...paths];
}

/** The Embedded capacities under the scopes: one call per listing path (and per further page). */
export async function listEmbeddedCapacities(client: PlatformClient, scopes: string[], budget: CallBudget): Promise<EmbeddedCapacity[]> {
  const out = new Map<string, EmbeddedCapacity>();
  for (const path of embeddedListPaths(scopes)) {
    budget.take();
    let pages = 0;
    for await (const page of client.nextLinkPages<Record<string, unknown>>({ family: 'arm', audience: 'arm', url: `${client.arm(path)}?api-version=${PBIE_API_VERSION}` })) {
      if (pages++ > 0) budget.charge(1);
      for (const r of page) {
        const id = typeof r.id === 'string' ? r.id.toLowerCase() : '';
        if (!id) throw new VendorAnswerError(`GET ${path}: a capacity without "id"`);
        const sku = ((r.sku ?? {}) as Record<string, unknown>).name;
        const props = (r.properties ?? {}) as Record<string, unknown>;
        out.set(id, { id, name: typeof r.name === 'string' && r.name ? r.name : id.split('/').pop()!, sku: typeof sku === 'string' ? sku : '', state: typeof props.state === 'string' ? props.state : 'Unknown' });
      }
    }
  }
  return [...out.values()].sort((a, b) => (a.id < b.id ? -1 : 1));
}

export interface MinutePoint {
  start: Date;
  /** Null: the minute has no point (yet). */
  cpu: number | null;
  overload: number | null;
  /** A value out of range (figure-checks.ts): the minute is skipped and counted, not stored. */
  rejected?: string;
}

interface MetricValue {
  timeStamp?: unknown;
  average?: unknown;
  maximum?: unknown;
}

/** One Metrics_List call: the minutes of [from, to) with each metric's average (overload: its maximum when given). */
export async function readMinutes(client: PlatformClient, capacityId: string, from: Date, to: Date): Promise<MinutePoint[]> {
  const q = new URLSearchParams({
    'api-version': METRICS_API_VERSION,
    metricnames: METRIC_NAMES,
    timespan: `${from.toISOString()}/${to.toISOString()}`,
    interval: 'PT1M',
    aggregation: 'Average,Maximum',
  });
  const what = `metrics of ${capacityId}`;
  const body = await client.json<{ value?: unknown }>({ family: 'arm', audience: 'arm', url: `${client.arm(capacityId)}/providers/Microsoft.Insights/metrics?${q.toString()}` });
  if (!body || !Array.isArray(body.value)) throw new VendorAnswerError(`${what}: an answer without a "value" array`);
  const byMinute = new Map<number, MinutePoint>();
  for (let t = from.getTime(); t < to.getTime(); t += MINUTE_MS) byMinute.set(t, { start: new Date(t), cpu: null, overload: null });
  type Metric = { name?: { value?: unknown }; errorCode?: unknown; timeseries?: unknown };
  type Series = { data?: unknown };
  for (const metric of body.value as Metric[]) {
    const name = typeof metric?.name?.value === 'string' ? metric.name.value.toLowerCase() : '';
    if (name !== 'cpu_metric' && name !== 'overload_metric') continue;
    if (metric.errorCode && metric.errorCode !== 'Success') throw new VendorAnswerError(`${what}: ${name} answered errorCode ${String(metric.errorCode).slice(0, 60)}`);
    for (const series of (Array.isArray(metric.timeseries) ? metric.timeseries : []) as Series[]) {
      for (const v of (Array.isArray(series?.data) ? series.data : []) as MetricValue[]) {
        const at = typeof v.timeStamp === 'string' ? Date.parse(v.timeStamp) : Number.NaN;
        const point = byMinute.get(at);
        if (!point) continue;
        const avg = typeof v.average === 'number' ? v.average : null;
        const max = typeof v.maximum === 'number' ? v.maximum : null;
        const value = name === 'cpu_metric' ? (avg ?? max) : (max ?? avg);
        const problem = value === null ? null : valueProblem(name, value);
        if (problem) point.rejected ??= `Azure Monitor, ${capacityId} at ${new Date(at).toISOString()}: ${problem}`;
        if (name === 'cpu_metric') point.cpu = value;
        else point.overload = value;
      }
    }
  }
  return [...byMinute.values()];
}

/** A minute's point as the two 30-second windows the verdicts and the history use (see the header). */
export function windowsOfMinute(cap: EmbeddedCapacity, p: MinutePoint): WindowFigures[] {
  const cpu = Math.max(0, Math.min(100, p.cpu ?? 0));
  const overloaded = (p.overload ?? 0) > 0;
  const figure = overloaded ? Math.max(101, cpu) : cpu;
  return [0, 30_000].map((offset) => ({
    capacityId: cap.id,
    capacityName: cap.name,
    sku: cap.sku,
    windowStart: new Date(p.start.getTime() + offset),
    baseCu: 0,
    capacityUnitMs: 0,
    utilizationPct: cpu,
    delayPct: figure,
    interactiveRejectionPct: 0,
    backgroundRejectionPct: 0,
    carryForwardCuMs: 0,
    workloads: {},
  }));
}

const hhmm = (d: Date) => `${d.toISOString().slice(11, 16)} UTC`;
const pct = (n: number, lang: 'pt-BR' | 'en') => `${Math.round(n).toLocaleString(lang)} %`;
const both = (en: string, pt: string) => ({ en, 'pt-BR': pt });

/** The verdicts' texts speak of Fabric's figures; an A SKU's incidents say what Azure Monitor gave. */
function embeddedText(s: SignalInput, cap: EmbeddedCapacity, w: WindowFigures | undefined, recoverWindows: number, warnPercent: number, paused: boolean): Pick<SignalInput, 'title' | 'message'> {
  const n = cap.name;
  const calm = recoverWindows / 2;
  const cpuEn = w ? pct(w.utilizationPct, 'en') : '';
  const cpuPt = w ? pct(w.utilizationPct, 'pt-BR') : '';
  const at = w ? hhmm(w.windowStart) : '?';
  if (s.notificationKind === THROTTLED_KIND) {
    if (s.kind === 'failure') {
      return {
        title: both(`Capacity ${n} is overloaded`, `Capacidade ${n} sobrecarregada`),
        message: both(
          `Capacity ${n} (${cap.sku}, Power BI Embedded) is overloaded: Azure Monitor reported overload_metric = 1 in the minute at ${at} (CPU ${cpuEn}). ` +
            'New operations are being delayed or rejected; for A SKUs Azure Monitor reports neither the stage (delay or rejection) nor the carry-forward, so there is no burn-down estimate. ' +
            'This source names no items: the Capacity Metrics app shows what used the capacity. Ways out: wait for the overload to pass, scale the SKU up, or pause and resume the capacity.',
          `Capacidade ${n} (${cap.sku}, Power BI Embedded) sobrecarregada: o Azure Monitor informou overload_metric = 1 no minuto das ${at} (CPU ${cpuPt}). ` +
            'Novas operações estão sendo atrasadas ou rejeitadas; em SKUs A o Azure Monitor não informa o estágio (atraso ou rejeição) nem o carry-forward, então não há previsão de queima. ' +
            'Esta fonte não informa itens: o app Capacity Metrics mostra o que usou a capacidade. Saídas: esperar a sobrecarga passar, escalar o SKU, ou pausar e retomar a capacidade.',
        ),
      };
    }
    if (paused) return { title: both(`Capacity ${n} paused`, `Capacidade ${n} pausada`), message: both(`Capacity ${n} was paused (its state in ARM): the pause ends the overload.`, `Capacidade ${n} foi pausada (estado no ARM): a sobrecarga termina com a pausa.`) };
    return {
      title: both(`Capacity ${n} no longer overloaded`, `Capacidade ${n} sem sobrecarga`),
      message: both(`Capacity ${n}: ${calm.toLocaleString('en')} minutes in a row without overload (overload_metric = 0; CPU ${cpuEn}).`, `Capacidade ${n}: ${calm.toLocaleString('pt-BR')} min seguidos sem sobrecarga (overload_metric = 0; CPU ${cpuPt}).`),
    };
  }
  if (s.kind === 'failure') {
    return {
      title: both(`Capacity ${n} above ${warnPercent} % CPU`, `Capacidade ${n} acima de ${warnPercent} % de CPU`),
      message: both(
        `Capacity ${n} (${cap.sku}): CPU at ${cpuEn} in the minute at ${at}, above the warning of ${warnPercent} %; overload (throttling) comes when the capacity cannot keep up.`,
        `Capacidade ${n} (${cap.sku}): CPU em ${cpuPt} no minuto das ${at}, acima do aviso de ${warnPercent} %; a sobrecarga (limitação) vem quando a capacidade não dá conta.`,
      ),
    };
  }
  if (paused) return { title: both(`Capacity ${n} paused`, `Capacidade ${n} pausada`), message: both(`Capacity ${n} was paused (its state in ARM).`, `Capacidade ${n} foi pausada (estado no ARM).`) };
  return {
    title: both(`Capacity ${n} below ${warnPercent} % CPU`, `Capacidade ${n} abaixo de ${warnPercent} % de CPU`),
    message: both(`Capacity ${n}: ${calm.toLocaleString('en')} minutes in a row with CPU below ${warnPercent} % (now ${cpuEn}).`, `Capacidade ${n}: ${calm.toLocaleString('pt-BR')} min seguidos com CPU abaixo de ${warnPercent} % (agora ${cpuPt}).`),
  };
}

export interface SourceResult {
  signals: SignalInput[];
  changes: StateChange[];
}

type SourceRun = Pick<CollectorRun, 'ctx' | 'tenant' | 'client' | 'state' | 'intervalSeconds' | 'write'>;

/** The capacity list, read again when due: capacities paused since the last listing, and the state of those gone from every scope released. */
async function refreshListing(run: SourceRun, settings: UtilizationSettings, budget: CallBudget, now: Date, out: SourceResult) {
  const cached = run.state.get(LIST_KEY) as Listing | undefined;
  const stateEvents = new Map<string, StateChangeEvent[]>();
  if (cached && !listingIsDue(cached.listedAt, now)) return { listing: cached, stateEvents };
  // The listing is always read when due (one call per path, a few more if paged) and charged to
  // the run's share afterwards, so many scopes never starve it; the metrics reads get what is left.
  const listBudget = new CallBudget(embeddedListPaths(settings.armScopes).length * 10);
  const listing: Listing = { listedAt: now.toISOString(), capacities: await listEmbeddedCapacities(run.client, settings.armScopes, listBudget) };
  budget.charge(listBudget.total - listBudget.left);
  out.changes.push({ key: LIST_KEY, value: listing });
  const before = new Map((cached?.capacities ?? []).map((c) => [c.id, c]));
  for (const c of listing.capacities) {
    // Paused since the last listing: its incidents recover (the verdicts treat it as a pause).
    if (isPaused(c.state) && !isPaused(before.get(c.id)?.state ?? '')) stateEvents.set(c.id, [{ capacityId: c.id, capacityName: c.name, at: now, state: 'Paused', reason: c.state }]);
  }
  // Gone from every scope (deleted, moved, or a scope removed): its incidents recover, its cursor goes.
  const listed = new Set(listing.capacities.map((c) => c.id));
  for (const c of cached?.capacities ?? []) {
    if (listed.has(c.id)) continue;
    const memory = run.state.get(CAPACITY_PREFIX + c.id) as CapacityMemory | undefined;
    if (memory) out.signals.push(...releaseSignals(c.id, memory, now));
    out.changes.push({ key: CAPACITY_PREFIX + c.id, value: null }, { key: CURSOR_PREFIX + c.id, value: null });
  }
  return { listing, stateEvents };
}

/**
 * Whether a minute can be read now: every series has published its point, or it is SETTLE_MS past
 * its end (what is there then is all there will be). One series alone is not enough: Azure Monitor
 * publishes each metric on its own, and an overload point published after the CPU point would be
 * missed for good.
 */
function minuteDone(p: MinutePoint, now: Date): boolean {
  return (p.cpu !== null && p.overload !== null) || p.start.getTime() + MINUTE_MS + SETTLE_MS <= now.getTime();
}

/** One capacity's new minutes from its cursor: the windows read, the new cursor, and whether it is gone (404: list again). */
async function readCapacity(client: PlatformClient, c: EmbeddedCapacity, from: number, readThrough: number, now: Date, budget: CallBudget, rejected: RejectedRows) {
  const windows: WindowFigures[] = [];
  let cursor = from;
  while (cursor < readThrough) {
    const until = Math.min(readThrough, cursor + SPAN_MS);
    budget.take();
    let minutes: MinutePoint[];
    try {
      minutes = await readMinutes(client, c.id, new Date(cursor), new Date(until));
    } catch (err) {
      // Deleted since the listing: read the list again next run; any other refusal is the run's error.
      if (err instanceof VendorHttpError && err.status === 404) return { windows, cursor, gone: true };
      throw err;
    }
    let next = until;
    for (const p of minutes) {
      if (!minuteDone(p, now)) {
        next = p.start.getTime(); // not published yet: read again from here next run
        break;
      }
      if (p.rejected) rejected.add(p.rejected);
      else if (p.cpu !== null || p.overload !== null) {
        rejected.read++;
        windows.push(...windowsOfMinute(c, p));
      }
    }
    cursor = next;
    if (next < until) break;
  }
  return { windows, cursor, gone: false };
}

/** One run of the source: list (when due), read each active capacity's new minutes, judge, store. */
export async function readAzureMonitorSource(run: SourceRun, settings: UtilizationSettings, rejected = new RejectedRows()): Promise<SourceResult> {
  const { ctx, tenant, client, state } = run;
  const now = ctx.clock.now();
  const budget = new CallBudget(runBudget(HOURLY_CAPS.arm, AZURE_MONITOR_SHARE, run.intervalSeconds));
  const out: SourceResult = { signals: [], changes: [] };
  const { listing, stateEvents } = await refreshListing(run, settings, budget, now, out);
  const readThrough = Math.floor(now.getTime() / MINUTE_MS) * MINUTE_MS;
  const cursorOf = (c: EmbeddedCapacity) => {
    const v = (state.get(CURSOR_PREFIX + c.id) as { next?: string } | undefined)?.next;
    const t = v ? Date.parse(v) : readThrough - FIRST_LOOKBACK_MS;
    return Math.max(t, readThrough - RETENTION_MS);
  };
  // The furthest behind first, so a small budget still moves every capacity forward over the runs.
  const active = listing.capacities.filter((c) => !isPaused(c.state)).sort((a, b) => cursorOf(a) - cursorOf(b));
  const windowsOf = new Map<string, WindowFigures[]>();
  try {
    for (const c of active) {
      const start = cursorOf(c);
      const read = await readCapacity(client, c, start, readThrough, now, budget, rejected);
      if (read.gone) out.changes.push({ key: LIST_KEY, value: { ...listing, listedAt: new Date(0).toISOString() } });
      if (read.cursor !== start) out.changes.push({ key: CURSOR_PREFIX + c.id, value: { next: new Date(read.cursor).toISOString() } });
      windowsOf.set(c.id, read.windows);
    }
  } catch (err) {
    // The run's share is spent: what was read is kept; the rest is read by the next runs.
    if (!(err instanceof RunBudgetSpent)) throw err;
  }
  const windows = [...windowsOf.values()].flat();
  run.write((q) => storeWindows(q, tenant.org_id, tenant.id, windows));

  for (const c of listing.capacities) {
    const mine = windowsOf.get(c.id) ?? [];
    const events = stateEvents.get(c.id) ?? [];
    if (mine.length === 0 && events.length === 0) continue;
    const prev = (state.get(CAPACITY_PREFIX + c.id) as CapacityMemory | undefined) ?? freshMemory(c.name);
    const t = thresholdsFor(settings, c.name);
    const judged = judgeCapacity(c.id, prev, mine, events, t);
    const at = new Map(mine.map((w) => [w.windowStart.getTime() + 30_000, w]));
    for (const s of judged.signals) {
      const w = s.occurredAt === undefined ? undefined : at.get(new Date(s.occurredAt).getTime());
      Object.assign(s, embeddedText(s, c, w, t.recoverWindows, t.warnPercent, !w && events.length > 0));
    }
    out.signals.push(...judged.signals);
    out.changes.push({ key: CAPACITY_PREFIX + c.id, value: judged.memory });
  }
  return out;
}

/** The source's run with its failure kept rather than thrown, so the collector commits the other source's progress first. */
export async function settledAzureMonitorSource(run: SourceRun, settings: UtilizationSettings, rejected = new RejectedRows()): Promise<SourceResult & { error: unknown }> {
  try {
    return { ...(await readAzureMonitorSource(run, settings, rejected)), error: null };
  } catch (error) {
    return { signals: [], changes: [], error };
  }
}
