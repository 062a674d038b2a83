/**
 * A simulated Eventhouse's query endpoint (Kusto REST API v2: `POST /v2/rest/query`), holding
 * the raw capacity-event table an Eventstream fills. It does not run KQL: it recognizes the two
 * queries Vigia's `utilization` collector sends (new rows by ingestion time; CU per item over a
 * time range from operation events) and answers them in the v2 frame shape. Strict mode records
 * anything else — a missing header, a body without `db`/`csl`, parameters not given as KQL
 * literals, an unknown query — as a violation, answered 400 in Kusto's OneApiErrors shape.
 */
import { kustoError } from './kusto-error.js';
import { EVENT_TYPES, ingestedRows, materialize, loadOf, type EventRow } from './capacity-load.js';
import { createdDatabase, createdTable, routes } from './fabric-items.js';
import { kustoMgmt } from './kusto-mgmt.js';
import { takeKustoFault } from './eventhouse-faults.js';
import type { Reply } from './reply.js';
import type { SimState } from './types.js';

export { kustoError };

interface QueryBody {
  db: string;
  csl: string;
  parameters: Record<string, string>;
}

function parseBody(json: unknown): QueryBody | string {
  if (typeof json !== 'object' || json === null || Array.isArray(json)) return 'the body must be a JSON object';
  const b = json as Record<string, unknown>;
  if (typeof b.db !== 'string' || b.db === '') return '"db" (the database name) is required';
  if (typeof b.csl !== 'string' || b.csl === '') return '"csl" (the query) is required';
  let props: unknown = b.properties ?? {};
  if (typeof props === 'string') {
    try {
      props = JSON.parse(props);
    } catch {
      return '"properties" is a string that is not JSON';
    }
  }
  if (typeof props !== 'object' || props === null) return '"properties" must be an object';
  const params = (props as Record<string, unknown>).Parameters ?? {};
  if (typeof params !== 'object' || params === null) return '"properties.Parameters" must be an object';
  const out: Record<string, string> = {};
  for (const [k, v] of Object.entries(params)) {
    if (typeof v !== 'string') return `parameter ${k} must be given as a string (a KQL literal for non-string values)`;
    out[k] = v;
  }
  return { db: b.db, csl: b.csl, parameters: out };
}

/** `datetime(2026-06-15T12:00:00.000Z)` → epoch ms. */
function datetimeParam(p: Record<string, string>, name: string): number | string {
  const v = p[name];
  const m = v === undefined ? null : /^datetime\((.+)\)$/.exec(v.trim());
  const at = m ? Date.parse(m[1]!) : Number.NaN;
  return Number.isFinite(at) ? at : `parameter ${name} must be a KQL datetime literal, datetime(…)`;
}

/** The table a query starts from (after the `declare query_parameters(…);` statement). */
function tableOf(csl: string): string | null {
  const body = csl.replace(/^\s*declare\s+query_parameters\s*\([^)]*\)\s*;/i, '').trim();
  const m = /^(?:\['([^']+)'\]|\[\"([^"]+)\"\]|([A-Za-z_][\w]*))/.exec(body);
  return m ? (m[1] ?? m[2] ?? m[3])! : null;
}

function frames(columns: Array<[string, string]>, rows: unknown[][]): unknown[] {
  return [
    { FrameType: 'DataSetHeader', IsProgressive: false, Version: 'v2.0', IsFragmented: false, ErrorReportingPlacement: 'EndOfTable' },
    {
      FrameType: 'DataTable',
      TableId: 0,
      TableKind: 'QueryProperties',
      TableName: '@ExtendedProperties',
      Columns: [{ ColumnName: 'TableId', ColumnType: 'int' }, { ColumnName: 'Key', ColumnType: 'string' }, { ColumnName: 'Value', ColumnType: 'dynamic' }],
      Rows: [[1, 'Visualization', { Visualization: null }]],
    },
    { FrameType: 'DataTable', TableId: 1, TableKind: 'PrimaryResult', TableName: 'PrimaryResult', Columns: columns.map(([ColumnName, ColumnType]) => ({ ColumnName, ColumnType })), Rows: rows },
    {
      FrameType: 'DataTable',
      TableId: 2,
      TableKind: 'QueryCompletionInformation',
      TableName: 'QueryCompletionInformation',
      Columns: [{ ColumnName: 'Timestamp', ColumnType: 'datetime' }, { ColumnName: 'LevelName', ColumnType: 'string' }, { ColumnName: 'StatusDescription', ColumnType: 'string' }],
      Rows: [[new Date().toISOString(), 'Info', 'Query completed successfully']],
    },
    { FrameType: 'DataSetCompletion', HasErrors: false, Cancelled: false },
  ];
}

export interface KustoOptions {
  /** The capacities whose events the queried table receives (a table Vigia created); null: every capacity. */
  capacityIds?: Map<string, number> | null;
  now: number;
  headers: Record<string, unknown>;
  violate: (m: string) => void;
  strict: boolean;
}

export function kustoQuery(state: SimState, path: string, method: string, json: unknown, o: KustoOptions): Reply {
  const bad = (msg: string) => {
    if (o.strict) o.violate(msg);
    return kustoError(400, 'General_BadRequest', msg);
  };
  if (method === 'POST' && path === '/v1/rest/mgmt') return kustoMgmt(state, json, bad);
  if (method !== 'POST' || path !== '/v2/rest/query') return bad(`no Kusto operation ${method} ${path} (queries are POST /v2/rest/query)`);
  const ct = String(o.headers['content-type'] ?? '').toLowerCase();
  if (!ct.startsWith('application/json')) return bad('Content-Type must be application/json; charset=utf-8');
  if (!String(o.headers.accept ?? '').toLowerCase().includes('application/json')) return bad('Accept must be application/json');
  const body = parseBody(json);
  if (typeof body === 'string') return bad(body);
  const eh = state.eventhouse;
  const table = tableOf(body.csl);
  // A database Vigia created (fabric-items.ts): its tables receive the capacities an Eventstream routes to them.
  let capacityIds: Map<string, number> | null = null;
  if (createdDatabase(state, body.db)) {
    if (!table || !createdTable(state, body.db, table)) {
      return kustoError(400, 'General_BadRequest', `Semantic error: '${table ?? '?'}' could not be resolved as a table.`, true, 'SEM0100');
    }
    const routed = routes(state).filter((r) => r.database.toLowerCase() === body.db.toLowerCase() && r.table.toLowerCase() === table.toLowerCase());
    capacityIds = new Map();
    for (const r of routed) for (const c of r.capacityIds) capacityIds.set(c, Math.min(capacityIds.get(c) ?? r.since, r.since));
  } else {
    if (!eh || body.db.toLowerCase() !== eh.database.toLowerCase()) {
      return kustoError(400, 'General_BadRequest', `Request is invalid and cannot be executed. Entity ID '${body.db}' of kind 'Database' was not found.`);
    }
    if (eh.forbidden) return kustoError(403, 'Forbidden', `Principal is not authorized to read database '${eh.database}'.`);
    if (!table || table !== eh.table) {
      return kustoError(400, 'General_BadRequest', `Semantic error: '${table ?? '?'}' could not be resolved as a table.`, true, 'SEM0100');
    }
  }
  const fault = takeKustoFault(state, (rows) => frames([['ingested', 'datetime'], ['type', 'string'], ['data', 'dynamic']], rows));
  if (fault) return fault;
  const o2 = { ...o, capacityIds };
  if (/summarize\s+cu\s*=\s*sum\(/i.test(body.csl)) return culprits(state, body, o2, bad);
  if (/ingestion_time\(\)\s*>\s*since/i.test(body.csl)) return newRows(state, body, o2, bad);
  return bad('the simulated Eventhouse answers only the utilization collector\'s two queries');
}

function newRows(state: SimState, body: QueryBody, o: KustoOptions, bad: (m: string) => Reply): Reply {
  const since = datetimeParam(body.parameters, 'since');
  // `until` is optional: a reader bounded by the platform's own clock asks for everything after `since`.
  const until = body.parameters.until === undefined ? Number.POSITIVE_INFINITY : datetimeParam(body.parameters, 'until');
  if (typeof since === 'string') return bad(since);
  if (typeof until === 'string') return bad(until);
  const top = /\|\s*top\s+(\d+)\s+by\s+ingested\s+asc/i.exec(body.csl);
  const withId = /\beventId\s*=/.test(body.csl);
  const types = new Set([EVENT_TYPES.summary, EVENT_TYPES.state]);
  const rows = ingestedRows(state, o.now, since, until)
    .filter((r) => types.has(r.type as never) && (!o.capacityIds || r.ingestedAt >= (o.capacityIds.get(String(r.data.capacityId).toLowerCase()) ?? Number.POSITIVE_INFINITY)))
    .slice(0, top ? Number(top[1]) : undefined);
  const columns: Array<[string, string]> = [['ingested', 'datetime'], ...(withId ? [['eventId', 'string'] as [string, string]] : []), ['type', 'string'], ['data', 'dynamic']];
  return { status: 200, body: frames(columns, rows.map((r) => [new Date(r.ingestedAt).toISOString(), ...(withId ? [r.id] : []), r.type, r.data])) };
}

function culprits(state: SimState, body: QueryBody, o: KustoOptions, bad: (m: string) => Reply): Reply {
  const from = datetimeParam(body.parameters, 'from');
  const to = datetimeParam(body.parameters, 'to');
  if (typeof from === 'string') return bad(from);
  if (typeof to === 'string') return bad(to);
  const capacityId = body.parameters.capacityId;
  if (typeof capacityId !== 'string' || capacityId === '') return bad('parameter capacityId is required');
  const top = Number(/\|\s*top\s+(\d+)\s+by\s+cu/i.exec(body.csl)?.[1] ?? 10);
  const sums = new Map<string, { row: EventRow; cu: number }>();
  for (const c of state.capacities) {
    if (c.id.toLowerCase() !== capacityId.toLowerCase() || (o.capacityIds && !o.capacityIds.has(c.id.toLowerCase()))) continue;
    const since = o.capacityIds?.get(c.id.toLowerCase()) ?? Number.NEGATIVE_INFINITY;
    materialize(state, c, o.now);
    for (const r of loadOf(state, c, o.now).rows) {
      if (r.type !== EVENT_TYPES.operation || r.ingestedAt > o.now || r.ingestedAt < since) continue;
      const at = Date.parse(String(r.data.windowStartTime));
      if (at < from || at >= to) continue;
      const key = String(r.data.itemId);
      const s = sums.get(key) ?? { row: r, cu: 0 };
      s.cu += Number(r.data.capacityUnitMs);
      sums.set(key, s);
    }
  }
  const ranked = [...sums.values()].sort((a, b) => b.cu - a.cu).slice(0, top);
  return {
    status: 200,
    body: frames(
      [['itemId', 'string'], ['itemName', 'string'], ['itemKind', 'string'], ['workspaceId', 'string'], ['workspaceName', 'string'], ['cu', 'real']],
      ranked.map(({ row, cu }) => [row.data.itemId, row.data.itemName, row.data.itemKind, row.data.workspaceId, row.data.workspaceName, cu]),
    ),
  };
}
