/**
 * The Capacity Metrics app's model as Vigia reads it (utilization-metrics-app.ts): the name sets of
 * the app's versions (vendor-specs/capacity-load/README.md §5.3), the DAX queries built from them,
 * the version probe, and `executeQueries` with its answer's values. A query refused as DAX (a name
 * the model lacks) is `isDaxRefusal`; an answer carrying an error is an error, never a short result.
 */
import { VendorAnswerError, VendorHttpError, type PlatformClient } from '../../platform/platform-client.js';
import type { MetricsAppSource } from '../../connection/utilization-settings.js';

export type Measure = 'delay' | 'irej' | 'brej' | 'thr' | 'carry' | 'cu' | 'sku';

/** One historical name set of the app's model. */
export interface NameMapping {
  /** The app versions that use these names. */
  versions: string;
  /** The measure whose presence identifies the set (FUAM's version probes). */
  probe: string;
  capacityId: string;
  /** The column the timepoints' date is filtered on. */
  date: string;
  measures: Record<Measure, string>;
  items: { table: string; itemId: string; cu: string; workspaceId: string; itemKind: string };
}

const V40_MEASURES: Record<Measure, string> = {
  delay: 'Dynamic interactive delay %',
  irej: 'Dynamic interactive rejection %',
  brej: 'Dynamic background rejection %',
  thr: 'Interactive rejection threshold',
  carry: 'Cumulative carry over %',
  cu: 'Cumulative CU usage (s)',
  sku: 'SKU CU by timepoint',
};
const V40_ITEMS = { table: 'Metrics By Item Operation And Day', itemId: 'Item Id', cu: 'CU (s)', workspaceId: 'Workspace Id', itemKind: 'Item Kind' };

/** Newest first: the first probe the model answers wins. */
export const MAPPINGS: readonly NameMapping[] = [
  { versions: 'v53–v65', probe: 'Blocked workspaces (Day)', capacityId: 'Capacity Id', date: "'Dates'[Date]", measures: V40_MEASURES, items: V40_ITEMS },
  { versions: 'v40–v47', probe: 'Background billable CU %', capacityId: 'capacity Id', date: "'TimePoints'[Date]", measures: V40_MEASURES, items: V40_ITEMS },
  {
    versions: 'v37',
    probe: 'xBackground %',
    capacityId: 'capacityId',
    date: "'TimePoints'[Date]",
    measures: {
      delay: 'Dynamic InteractiveDelay %',
      irej: 'Dynamic InteractiveRejection %',
      brej: 'Dynamic BackgroundRejection %',
      thr: 'Interactive rejection threshold',
      carry: 'xCarryOver_Cumulative %',
      cu: 'Cumulative CU Usage (s)',
      sku: 'SKU CU by TimePoint',
    },
    items: { table: 'MetricsByItemandOperationandDay', itemId: 'ItemId', cu: 'sum_CU', workspaceId: 'WorkspaceId', itemKind: 'ItemKind' },
  },
];


/** The model refused the query as DAX (a name it lacks); anything else is not about names. */
export const isDaxRefusal = (err: unknown) => err instanceof VendorHttpError && err.status === 400 && err.family === 'powerbi';

// ---- DAX ----

const q = (name: string) => `'${name.replace(/'/g, "''")}'`;
const measure = (name: string) => `'All Measures'[${name}]`;
const daxDate = (d: Date) => `DATE(${d.getUTCFullYear()}, ${d.getUTCMonth() + 1}, ${d.getUTCDate()})`;
const daxDateTime = (d: Date) => `${daxDate(d)} + TIME(${d.getUTCHours()}, ${d.getUTCMinutes()}, ${d.getUTCSeconds()})`;

export const probeQuery = (m: NameMapping) => `EVALUATE ROW("probe", ${measure(m.probe)})`;

function days(after: Date, upTo: Date): Date[] {
  const out: Date[] = [];
  for (let t = Date.UTC(after.getUTCFullYear(), after.getUTCMonth(), after.getUTCDate()); t <= upTo.getTime(); t += 86_400_000) out.push(new Date(t));
  return out;
}

export function timepointsQuery(m: NameMapping, after: Date, upTo: Date): string {
  const tp = "'TimePoints'[TimePoint]";
  return [
    'EVALUATE',
    'SUMMARIZECOLUMNS(',
    `  Capacities[${m.capacityId}],`,
    `  ${tp},`,
    `  TREATAS({${days(after, upTo).map(daxDate).join(', ')}}, ${m.date}),`,
    `  FILTER(VALUES(${tp}), ${tp} > ${daxDateTime(after)} && ${tp} <= ${daxDateTime(upTo)}),`,
    (Object.keys(m.measures) as Measure[]).map((k) => `  "${k}", ${measure(m.measures[k])}`).join(',\n'),
    ')',
    `ORDER BY ${tp}`,
  ].join('\n');
}

export function itemsQuery(m: NameMapping, capacityId: string, day: Date, top: number): string {
  const t = q(m.items.table);
  return [
    'EVALUATE',
    `TOPN(${top},`,
    '  SUMMARIZECOLUMNS(',
    `    ${t}[${m.items.itemId}],`,
    `    'Items'[${m.items.workspaceId}],`,
    `    'Items'[${m.items.itemKind}],`,
    `    TREATAS({"${capacityId.replace(/"/g, '')}"}, Capacities[${m.capacityId}]),`,
    `    TREATAS({${daxDate(day)}}, ${t}[Date]),`,
    `    "cu", SUM(${t}[${m.items.cu}])`,
    '  ),',
    '  [cu], DESC)',
  ].join('\n');
}

// ---- executeQueries ----

interface ExecuteAnswer {
  results?: Array<{ tables?: Array<{ rows?: Array<Record<string, unknown>>; error?: unknown }>; error?: unknown }>;
  error?: unknown;
}

/** One DAX query's rows; an answer carrying an error (cut at the row limit, a second table) is an error, never a short result. */
export async function executeDax(client: PlatformClient, source: MetricsAppSource, dax: string): Promise<Array<Record<string, unknown>>> {
  const body = await client.json<ExecuteAnswer>({
    family: 'powerbi',
    audience: 'powerbi',
    method: 'POST',
    url: client.powerBi(`/groups/${source.workspaceId}/datasets/${source.datasetId}/executeQueries`),
    body: { queries: [{ query: dax }], serializerSettings: { includeNulls: true } },
  });
  const result = body?.results?.[0];
  const table = result?.tables?.[0];
  const error = body?.error ?? result?.error ?? table?.error;
  if (error) throw new VendorAnswerError(`executeQueries answered with an error: ${JSON.stringify(error).slice(0, 300)} — nothing of it is used`);
  if (!table || !Array.isArray(table.rows)) throw new VendorAnswerError('executeQueries answered without a result table');
  return table.rows;
}

/** A row's value by column name, however the service qualifies it (`[alias]`, `Table[Column]`, `'Table'[Column]`). */
export function column(row: Record<string, unknown>, name: string): unknown {
  const want = `[${name.toLowerCase()}]`;
  const key = Object.keys(row).find((k) => k.toLowerCase().endsWith(want));
  return key === undefined ? undefined : row[key];
}

export const numberOf = (v: unknown): number | null => (typeof v === 'number' && Number.isFinite(v) ? v : typeof v === 'string' && v.trim() !== '' && Number.isFinite(Number(v)) ? Number(v) : null);

/** The model's `2026-06-15T12:00:30` (no zone; read as UTC — Unconfirmed, the app's reports show UTC timepoints). */
export function timepointOf(v: unknown): Date | null {
  if (typeof v !== 'string') return null;
  const s = /[zZ]|[+-]\d\d:\d\d$/.test(v) ? v : `${v}Z`;
  const t = Date.parse(s);
  return Number.isFinite(t) ? new Date(t) : null;
}

// ---- version ----

/** The first mapping whose probe the model answers, or null. */
export async function probeMapping(client: PlatformClient, source: MetricsAppSource): Promise<NameMapping | null> {
  for (const m of MAPPINGS) {
    try {
      await executeDax(client, source, probeQuery(m));
      return m;
    } catch (err) {
      if (!isDaxRefusal(err)) throw err;
    }
  }
  return null;
}

export const NONE_FOUND = `a version Vigia does not know: the model has none of the measures that identify the known versions (${MAPPINGS.map((m) => `'${m.probe}' ${m.versions}`).join(', ')})`;
