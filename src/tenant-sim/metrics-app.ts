/**
 * The Capacity Metrics app's semantic model, as `POST /v1.0/myorg/groups/{g}/datasets/{d}/executeQueries`
 * answers it (vendor-specs/capacity-load/README.md §5, powerbi/swagger.json). The model's names
 * are those of one historical app version (`state.metricsApp.version`): v37 (the `x…` measures,
 * `capacityId`, `MetricsByItemandOperationandDay`), v40–v47 (`… billable CU %`, `capacity Id`,
 * `Metrics By Item Operation And Day`), v53–v65 (adds `Blocked workspaces (Day)`, the date on a
 * `Dates` table), and v99 — a version no monitor knows, every measure renamed.
 *
 * It does not run DAX. Every `Table[Column]` a query names is looked up in the version's schema
 * first — a name the model lacks answers 400 `DatasetExecuteQueriesError` with the engine's
 * message, as the service does — then the three query shapes Vigia sends are recognized: a
 * one-measure probe (`EVALUATE ROW`), the timepoints (`SUMMARIZECOLUMNS` by capacity and
 * timepoint, bounded by `DATE()+TIME()`) and the items with most CU of a capacity-day (`TOPN`).
 * Figures come from the capacities' Summary events (capacity-load.ts), so the throttling
 * controls drive the model too; a window's timepoint is in the model 10 minutes after it ends
 * (the app shows usage 10–15 minutes late); a window whose events a test dropped is missing here
 * too (a gap). A timepoint not published yet still has a row, with only the model's constant
 * measures (threshold, SKU CU) filled: its usage is blank, as a constant measure keeps a
 * SUMMARIZECOLUMNS row alive. Limits: one query per call (400 otherwise); over 100,000 rows or 1,000,000 values
 * the answer is cut and carries an error with status 200; 120 queries a minute (limits.ts).
 */
import { EVENT_TYPES, loadOf, materialize } from './capacity-load.js';
import { ok, powerBiError, type Reply, type RequestContext } from './reply.js';
import type { MetricsAppVersion, SimState } from './types.js';

/** A window's timepoint is queryable this long after the window ends. */
export const PUBLISH_DELAY_MS = 10 * 60_000;
export const MAX_ROWS = 100_000;
export const MAX_VALUES = 1_000_000;

type Role = 'delay' | 'irej' | 'brej' | 'threshold' | 'carry' | 'cu' | 'sku' | 'background' | 'blocked';

interface NameSet {
  measures: Record<string, Role>;
  /** Table → columns (case as the model spells them). */
  tables: Record<string, string[]>;
  capacityId: string;
  itemTable: string;
  itemId: string;
  itemCu: string;
  workspaceId: string;
  itemKind: string;
}

const V40_MEASURES: Record<string, Role> = {
  'Dynamic interactive delay %': 'delay',
  'Dynamic interactive rejection %': 'irej',
  'Dynamic background rejection %': 'brej',
  'Interactive rejection threshold': 'threshold',
  'Background rejection threshold': 'threshold',
  'Cumulative carry over %': 'carry',
  'Cumulative CU usage (s)': 'cu',
  'SKU CU by timepoint': 'sku',
  'Background billable CU %': 'background',
};

const ITEM_COLUMNS_V40 = ['Capacity Id', 'Workspace Id', 'Item Id', 'Date', 'Operation name', 'Duration (s)', 'CU (s)', 'Throttling (min)', 'Users', 'Operations'];

const V37: NameSet = {
  measures: {
    'Dynamic InteractiveDelay %': 'delay',
    'Dynamic InteractiveRejection %': 'irej',
    'Dynamic BackgroundRejection %': 'brej',
    'Interactive rejection threshold': 'threshold',
    'Background rejection threshold': 'threshold',
    'xCarryOver_Cumulative %': 'carry',
    'Cumulative CU Usage (s)': 'cu',
    'SKU CU by TimePoint': 'sku',
    'xBackground %': 'background',
  },
  tables: {
    Capacities: ['capacityId', 'state'],
    TimePoints: ['TimePoint', 'Date'],
    Items: ['ItemId', 'WorkspaceId', 'ItemKind'],
    MetricsByItemandDay: ['capacityId', 'WorkspaceId', 'ItemId', 'Date', 'sum_CU', 'sum_duration', 'Throttling (min)'],
    MetricsByItemandOperationandDay: ['capacityId', 'WorkspaceId', 'ItemId', 'Date', 'OperationName', 'sum_CU', 'sum_duration', 'Throttling (min)'],
  },
  capacityId: 'capacityId',
  itemTable: 'MetricsByItemandOperationandDay',
  itemId: 'ItemId',
  itemCu: 'sum_CU',
  workspaceId: 'WorkspaceId',
  itemKind: 'ItemKind',
};

const V40: NameSet = {
  measures: V40_MEASURES,
  tables: {
    Capacities: ['capacity Id', 'state'],
    TimePoints: ['TimePoint', 'Date'],
    Items: ['Item Id', 'Workspace Id', 'Item Kind'],
    'Metrics By Item Operation And Day': ITEM_COLUMNS_V40,
  },
  capacityId: 'capacity Id',
  itemTable: 'Metrics By Item Operation And Day',
  itemId: 'Item Id',
  itemCu: 'CU (s)',
  workspaceId: 'Workspace Id',
  itemKind: 'Item Kind',
};

const V53: NameSet = {
  ...V40,
  measures: { ...V40_MEASURES, 'Blocked workspaces (Day)': 'blocked' },
  tables: { ...V40.tables, Capacities: ['Capacity Id', 'state'], TimePoints: ['TimePoint'], Dates: ['Date'] },
  capacityId: 'Capacity Id',
};

/** A later version no monitor knows yet: the throttling measures renamed, the probes' measures gone. */
const V99: NameSet = {
  ...V53,
  measures: {
    'Interactive delay (10 min) %': 'delay',
    'Interactive rejection (60 min) %': 'irej',
    'Background rejection (24 h) %': 'brej',
    'Rejection threshold': 'threshold',
    'Carry forward cumulative %': 'carry',
    'CU (s) total': 'cu',
    'SKU CU per timepoint': 'sku',
    'Blocked workspaces (day count)': 'blocked',
  },
};

export const NAME_SETS: Record<MetricsAppVersion, NameSet> = { v37: V37, v40: V40, v44: V40, v47: V40, v53: V53, v65: V53, v99: V99 };

function daxError(detail: string): Reply {
  const details = [
    { code: 'DetailsMessage', detail: { type: 1, value: detail } },
    { code: 'AnalysisServicesErrorCode', detail: { type: 1, value: '3241803780' } },
  ];
  return { status: 400, body: { error: { code: 'DatasetExecuteQueriesError', 'pbi.error': { code: 'DatasetExecuteQueriesError', parameters: {}, details, exceptionCulprit: 1 } } } };
}

const lower = (s: string) => s.toLowerCase();

/** Every `Table[Column]` / `'Table'[Column]` the query names (string literals left out). */
function references(dax: string): Array<{ table: string; name: string }> {
  const code = dax.replace(/"(?:[^"]|"")*"/g, '""');
  const out: Array<{ table: string; name: string }> = [];
  for (const m of code.matchAll(/(?:'((?:[^']|'')+)'|\b([A-Za-z_][\w]*))\[([^\]]+)\]/g)) out.push({ table: (m[1] ?? m[2])!.replace(/''/g, "'"), name: m[3]! });
  return out;
}

function unknownName(set: NameSet, dax: string): string | null {
  for (const r of references(dax)) {
    if (lower(r.table) === 'all measures') {
      if (!Object.keys(set.measures).some((k) => lower(k) === lower(r.name))) return `The value for '${r.name}' cannot be determined. Either the column doesn't exist, or there is no current row for this column.`;
      continue;
    }
    const table = Object.keys(set.tables).find((t) => lower(t) === lower(r.table));
    if (!table) return `Failed to resolve name '${r.table}'. It is not a valid table, variable, or function name.`;
    if (!set.tables[table]!.some((c) => lower(c) === lower(r.name))) return `Column '${r.name}' in table '${r.table}' cannot be found or may not be used in this expression.`;
  }
  return null;
}

function roleOf(set: NameSet, measure: string): Role {
  const key = Object.keys(set.measures).find((k) => lower(k) === lower(measure))!;
  return set.measures[key]!;
}

interface Timepoint {
  capacityId: string;
  start: number;
  data: Record<string, unknown>;
  /** Not published yet: only the model's constant measures (threshold, SKU) have a value. */
  pending: boolean;
}

/** The timepoints of every capacity, from its Summary events (one per window); `pending` until published. */
function timepoints(state: SimState, now: number): Timepoint[] {
  const out: Timepoint[] = [];
  for (const c of state.capacities) {
    materialize(state, c, now);
    const seen = new Set<string>();
    for (const r of loadOf(state, c, now).rows) {
      if (r.type !== EVENT_TYPES.summary) continue;
      const start = Date.parse(`${String(r.data.windowStartTime).slice(0, 19).replace(' ', 'T')}Z`);
      if (seen.has(String(start))) continue;
      seen.add(String(start));
      out.push({ capacityId: c.id.toUpperCase(), start, data: r.data, pending: start + 30_000 + PUBLISH_DELAY_MS > now });
    }
  }
  return out.sort((a, b) => a.start - b.start);
}

function value(role: Role, t: Timepoint): number | null {
  const d = t.data;
  if (t.pending && role !== 'threshold' && role !== 'sku') return null;
  const n = (f: string) => Number(d[f]) || 0;
  const budget = n('baseCapacityUnits') * 30_000;
  switch (role) {
    case 'delay':
      return n('interactiveDelayThresholdPercentage') / 100;
    case 'irej':
      return n('interactiveRejectionThresholdPercentage') / 100;
    case 'brej':
      return n('backgroundRejectionThresholdPercentage') / 100;
    case 'threshold':
      return 1;
    case 'carry':
      return budget > 0 ? n('overageTotalCapacityUnitMs') / budget : 0;
    case 'cu':
      return n('capacityUnitMs') / 1000;
    case 'sku':
      return n('baseCapacityUnits') * 30;
    case 'background':
      return budget > 0 ? n('utilizationBackground') / budget : 0;
    case 'blocked':
      return null;
  }
}

/** `DATE(2026,6,15) + TIME(12,0,30)` → epoch ms. */
const DATE_TIME = /DATE\s*\(\s*(\d{4})\s*,\s*(\d{1,2})\s*,\s*(\d{1,2})\s*\)\s*\+\s*TIME\s*\(\s*(\d{1,2})\s*,\s*(\d{1,2})\s*,\s*(\d{1,2})\s*\)/i;
const dateTimeMs = (m: RegExpExecArray) => Date.UTC(+m[1]!, +m[2]! - 1, +m[3]!, +m[4]!, +m[5]!, +m[6]!);
const DATE = /DATE\s*\(\s*(\d{4})\s*,\s*(\d{1,2})\s*,\s*(\d{1,2})\s*\)/gi;

function datesIn(list: string): Set<string> {
  return new Set([...list.matchAll(DATE)].map((m) => new Date(Date.UTC(+m[1]!, +m[2]! - 1, +m[3]!)).toISOString().slice(0, 10)));
}

const serialize = (ms: number) => new Date(ms).toISOString().slice(0, 19);

function limited(rows: Record<string, unknown>[], columns: number): Reply {
  const max = Math.min(MAX_ROWS, Math.floor(MAX_VALUES / Math.max(1, columns)));
  if (rows.length <= max) return ok({ results: [{ tables: [{ rows }] }] });
  return ok({ results: [{ tables: [{ rows: rows.slice(0, max) }], error: { code: 'DatasetExecuteQueriesError', message: `More than ${max} rows in a query result` } }] });
}

export function executeQueries(ctx: RequestContext): Reply {
  const violate = ctx.violate ?? (() => {});
  const strict = ctx.strict === true;
  const app = ctx.state.metricsApp;
  const { groupId, datasetId } = ctx.pathParams;
  if (!app || lower(app.workspaceId) !== lower(groupId ?? '')) {
    const w = ctx.state.workspaces.find((x) => lower(x.id) === lower(groupId ?? ''));
    if (!w) return powerBiError(404, 'ItemNotFound', `Couldn't find group ${groupId}`);
    return daxError(`Failed to resolve name '${'Capacities'}'. It is not a valid table, variable, or function name.`);
  }
  if (lower(app.datasetId) !== lower(datasetId ?? '')) return powerBiError(404, 'ItemNotFound', `Dataset ${datasetId} is not found! please verify datasetId is correct and user have sufficient permissions.`);
  if (app.forbidden) return powerBiError(401, 'PowerBINotAuthorizedException', 'The caller may not run queries on this dataset (Read and Build permissions, tenant setting "Dataset Execute Queries REST API").');
  const body = ctx.json as { queries?: Array<{ query?: unknown }> };
  const queries = Array.isArray(body?.queries) ? body.queries : [];
  if (queries.length !== 1) return powerBiError(400, 'InvalidRequest', 'Only one query per request is supported.');
  const dax = queries[0]!.query;
  if (typeof dax !== 'string' || dax.trim() === '') return powerBiError(400, 'InvalidRequest', 'The query is empty.');
  if (/^\s*(SELECT|WITH)\b/i.test(dax)) return daxError('Query (1, 1) Only DAX queries are supported: MDX and DMV queries are not.');
  const set = NAME_SETS[app.version];
  const missing = unknownName(set, dax);
  if (missing) return daxError(`Query (1, 1) ${missing}`);

  const probe = /^\s*EVALUATE\s+ROW\s*\(\s*"([^"]+)"\s*,\s*'All Measures'\[([^\]]+)\]\s*\)\s*$/i.exec(dax);
  if (probe) {
    const role = roleOf(set, probe[2]!);
    const last = timepoints(ctx.state, ctx.now).filter((t) => !t.pending).at(-1);
    return ok({ results: [{ tables: [{ rows: [{ [`[${probe[1]}]`]: last ? value(role, last) : null }] }] }] });
  }
  if (/SUMMARIZECOLUMNS/i.test(dax) && /'?TimePoints'?\[TimePoint\]\s*,/i.test(dax) && !/TOPN/i.test(dax)) return timepointRows(ctx, set, dax, violate, strict);
  if (/^\s*EVALUATE\s+TOPN\s*\(/i.test(dax)) return itemRows(ctx, set, dax, violate, strict);
  if (strict) violate('the simulated Metrics app model answers only the utilization collector\'s probe, timepoints and items queries');
  return daxError('Query (1, 1) The simulated model does not evaluate this query.');
}

function measureAliases(dax: string): Array<[string, string]> {
  return [...dax.matchAll(/"([^"]+)"\s*,\s*'All Measures'\[([^\]]+)\]/gi)].map((m) => [m[1]!, m[2]!]);
}

function timepointRows(ctx: RequestContext, set: NameSet, dax: string, violate: (m: string) => void, strict: boolean): Reply {
  const after = new RegExp(`\\[TimePoint\\]\\s*>\\s*${DATE_TIME.source}`, 'i').exec(dax);
  const upTo = new RegExp(`\\[TimePoint\\]\\s*<=\\s*${DATE_TIME.source}`, 'i').exec(dax);
  const dateList = /TREATAS\s*\(\s*\{([^}]*)\}\s*,\s*'?(?:TimePoints|Dates)'?\[Date\]\s*\)/i.exec(dax);
  if (!after || !upTo || !dateList) {
    if (strict) violate('a timepoints query must bound TimePoint with > DATE()+TIME() and <= DATE()+TIME() and filter the dates with TREATAS');
    return daxError('Query (1, 1) The simulated model expects bounded timepoints.');
  }
  const lo = dateTimeMs(after);
  const hi = dateTimeMs(upTo);
  const dates = datesIn(dateList[1]!);
  const aliases = measureAliases(dax);
  const rows = timepoints(ctx.state, ctx.now)
    .filter((t) => t.start > lo && t.start <= hi && dates.has(new Date(t.start).toISOString().slice(0, 10)))
    .map((t) => ({
      [`Capacities[${set.capacityId}]`]: t.capacityId,
      'TimePoints[TimePoint]': serialize(t.start),
      ...Object.fromEntries(aliases.map(([alias, measure]) => [`[${alias}]`, value(roleOf(set, measure), t)])),
    }));
  return limited(rows, 2 + aliases.length);
}

function itemRows(ctx: RequestContext, set: NameSet, dax: string, violate: (m: string) => void, strict: boolean): Reply {
  const top = /^\s*EVALUATE\s+TOPN\s*\(\s*(\d+)\s*,/i.exec(dax);
  const cap = /TREATAS\s*\(\s*\{\s*"([^"]+)"\s*\}\s*,\s*'?Capacities'?\[[^\]]+\]\s*\)/i.exec(dax);
  const day = /TREATAS\s*\(\s*\{\s*DATE\s*\(\s*(\d{4})\s*,\s*(\d{1,2})\s*,\s*(\d{1,2})\s*\)\s*\}\s*,\s*'?[^'[]+'?\[Date\]\s*\)/i.exec(dax);
  const alias = /"([^"]+)"\s*,\s*SUM\s*\(/i.exec(dax);
  if (!top || !cap || !day || !alias || !new RegExp(`'?${set.itemTable}'?\\[`, 'i').test(dax)) {
    if (strict) violate('an items query is TOPN(n, SUMMARIZECOLUMNS(item, workspace, kind, TREATAS capacity, TREATAS date, "alias", SUM(CU)))');
    return daxError('Query (1, 1) The simulated model expects the items query.');
  }
  const date = new Date(Date.UTC(+day[1]!, +day[2]! - 1, +day[3]!)).toISOString().slice(0, 10);
  const capacity = ctx.state.capacities.find((c) => lower(c.id) === lower(cap[1]!));
  const sums = new Map<string, { ws: string; kind: string; cu: number }>();
  if (capacity) {
    materialize(ctx.state, capacity, ctx.now);
    for (const r of loadOf(ctx.state, capacity, ctx.now).rows) {
      if (r.type !== EVENT_TYPES.operation) continue;
      const start = Date.parse(String(r.data.windowStartTime));
      if (start + 30_000 + PUBLISH_DELAY_MS > ctx.now || new Date(start).toISOString().slice(0, 10) !== date) continue;
      const key = String(r.data.itemId).toUpperCase();
      const s = sums.get(key) ?? { ws: String(r.data.workspaceId).toUpperCase(), kind: String(r.data.itemKind), cu: 0 };
      s.cu += Number(r.data.capacityUnitMs) / 1000;
      sums.set(key, s);
    }
  }
  const rows = [...sums]
    .sort((a, b) => b[1].cu - a[1].cu)
    .slice(0, Number(top[1]))
    .map(([id, s]) => ({ [`${set.itemTable}[${set.itemId}]`]: id, [`Items[${set.workspaceId}]`]: s.ws, [`Items[${set.itemKind}]`]: s.kind, [`[${alias[1]}]`]: s.cu }));
  return limited(rows, 4);
}
