#!/usr/bin/env node
/**
 * Derives the compact vendor contracts in contracts/*.json from the vendors' published API
 * descriptions (a `vendor-specs` folder: by default the repository root's sibling
 * `shared/vendor-specs`, or VIGIA_VENDOR_SPECS).
 *
 *   node scripts/derive-contracts.mjs           # writes contracts/*.json
 *   node scripts/derive-contracts.mjs --check   # exits 1 when a committed file differs
 *
 * Each contract keeps, per operation used by the fakes or served by the tenant simulator: method,
 * path template, parameters (path/query/header: name, required, enum; body: its schema), the
 * api-version it must carry, and the success responses' schemas for the platform APIs. Schemas
 * keep only the keywords the checker (src/contracts/check.ts) uses; every `$ref` points into the
 * file's own `definitions`, which hold only the definitions reachable from those operations.
 * Output is deterministic (sorted definitions, no dates) so a test can compare it byte for byte.
 */
import { existsSync, readFileSync, writeFileSync } from 'node:fs';
import path from 'node:path';
import { fileURLToPath, pathToFileURL } from 'node:url';
import { parse as parseYaml } from 'yaml';
import { CHAT_CONTRACTS } from './derive-chat-contracts.mjs';

const repoRoot = path.resolve(path.dirname(fileURLToPath(import.meta.url)), '..');
export const CONTRACTS_DIR = path.join(repoRoot, 'contracts');
export function defaultSpecsDir() {
  return process.env.VIGIA_VENDOR_SPECS ?? path.resolve(repoRoot, '..', 'shared', 'vendor-specs');
}

/** Schema keywords the checker understands; everything else is dropped. */
const SCHEMA_KEYWORDS = ['type', 'required', 'properties', 'enum', 'items', 'allOf', 'maxLength', 'minLength', 'minimum', 'maximum', 'additionalProperties'];

const POWERBI_OPERATIONS = [
  'Groups_GetGroups',
  'Groups_GetGroupsAsAdmin',
  'Capacities_GetCapacities',
  'Admin_GetCapacitiesAsAdmin',
  'Admin_GetRefreshables',
  'Gateways_GetGateways',
  'Gateways_GetGateway',
  'Gateways_GetDatasources',
  'Gateways_GetDatasourceStatus',
  'Datasets_GetDatasetsInGroup',
  'Datasets_GetDatasetsInGroupAsAdmin',
  'Datasets_GetRefreshHistoryInGroup',
  'Datasets_GetRefreshScheduleInGroup',
  'Datasets_GetDatasourcesInGroup',
  // The Capacity Metrics app's model, read by the utilization collector (DAX through executeQueries).
  'Datasets_ExecuteQueriesInGroup',
  'WorkspaceInfo_GetModifiedWorkspaces',
  'WorkspaceInfo_PostWorkspaceInfo',
  'WorkspaceInfo_GetScanStatus',
  'WorkspaceInfo_GetScanResult',
];
const FABRIC_PLATFORM_OPERATIONS = [
  'Workspaces_ListWorkspaces',
  'Workspaces_GetWorkspace',
  'Items_ListItems',
  'Capacities_ListCapacities',
  'Capacities_GetCapacity',
  'Gateways_ListGateways',
  'Gateways_GetGateway',
  'Gateways_ListGatewayMembers',
  'Gateways_CheckGatewayStatus',
  'Gateways_CheckGatewayMemberStatus',
  'Connections_ListConnections',
  'Connections_GetConnection',
  'Connections_TestConnection',
  'JobScheduler_ListItemJobInstances',
  'JobScheduler_GetItemJobInstance',
  'JobScheduler_ListItemSchedules',
  'LongRunningOperations_GetOperationState',
  'LongRunningOperations_GetOperationResult',
];

/*
 * Hand-written descriptions (Swagger 2.0 fragments) of the ARM operations the Azure Monitor
 * source of the utilization collector calls, where vendor-specs has no published file:
 * capacity-load/README.md §6.1 gives the call
 * `GET {resourceId}/providers/microsoft.insights/metrics?api-version&metricnames&timespan&interval&aggregation`,
 * the response `{ cost, timespan, interval, value: [ { id, type, name: { value, localizedValue }, unit,
 * timeseries: [ { metadatavalues, data: [ { timeStamp, average } ] } ], errorCode } ], namespace, resourceregion }`
 * and the resource type `Microsoft.PowerBIDedicated/capacities` (A/EM SKUs). Parameter names follow
 * Azure/azure-rest-api-specs metrics_API.json 2023-10-01 and the PowerBIDedicated 2021-01-01 list
 * example. Only what the simulator and the collector use; nothing here is guessed beyond those.
 */
const POWERBI_DEDICATED_DOC = {
  swagger: '2.0',
  info: { title: 'PowerBIDedicated (capacity listing only)', version: '2021-01-01' },
  paths: {
    '/subscriptions/{subscriptionId}/providers/Microsoft.PowerBIDedicated/capacities': {
      get: {
        operationId: 'Capacities_List',
        parameters: [{ $ref: '#/parameters/SubscriptionIdParameter' }, { $ref: '#/parameters/ApiVersionParameter' }],
        responses: { 200: { description: 'OK', schema: { $ref: '#/definitions/DedicatedCapacities' } } },
        'x-ms-pageable': { nextLinkName: null },
      },
    },
    '/subscriptions/{subscriptionId}/resourceGroups/{resourceGroupName}/providers/Microsoft.PowerBIDedicated/capacities': {
      get: {
        operationId: 'Capacities_ListByResourceGroup',
        parameters: [{ $ref: '#/parameters/SubscriptionIdParameter' }, { $ref: '#/parameters/ResourceGroupNameParameter' }, { $ref: '#/parameters/ApiVersionParameter' }],
        responses: { 200: { description: 'OK', schema: { $ref: '#/definitions/DedicatedCapacities' } } },
        'x-ms-pageable': { nextLinkName: null },
      },
    },
  },
  parameters: {
    SubscriptionIdParameter: { name: 'subscriptionId', in: 'path', required: true, type: 'string' },
    ResourceGroupNameParameter: { name: 'resourceGroupName', in: 'path', required: true, type: 'string' },
    ApiVersionParameter: { name: 'api-version', in: 'query', required: true, type: 'string' },
  },
  definitions: {
    DedicatedCapacities: { type: 'object', required: ['value'], properties: { value: { type: 'array', items: { $ref: '#/definitions/DedicatedCapacity' } } } },
    DedicatedCapacity: {
      type: 'object',
      required: ['location', 'sku'],
      properties: {
        id: { type: 'string' },
        name: { type: 'string' },
        type: { type: 'string' },
        location: { type: 'string' },
        tags: { type: 'object', additionalProperties: { type: 'string' } },
        sku: { $ref: '#/definitions/CapacitySku' },
        properties: { $ref: '#/definitions/DedicatedCapacityProperties' },
      },
    },
    CapacitySku: { type: 'object', required: ['name'], properties: { name: { type: 'string' }, tier: { type: 'string' }, capacity: { type: 'integer' } } },
    DedicatedCapacityProperties: {
      type: 'object',
      properties: {
        administration: { type: 'object', properties: { members: { type: 'array', items: { type: 'string' } } } },
        mode: { type: 'string' },
        state: { type: 'string' },
        provisioningState: { type: 'string' },
      },
    },
  },
};

const AZURE_MONITOR_METRICS_DOC = {
  swagger: '2.0',
  info: { title: 'Azure Monitor Metrics Data API (Metrics_List only)', version: '2023-10-01' },
  paths: {
    '/{resourceUri}/providers/Microsoft.Insights/metrics': {
      get: {
        operationId: 'Metrics_List',
        parameters: [
          { name: 'resourceUri', in: 'path', required: true, type: 'string', 'x-ms-skip-url-encoding': true },
          { name: 'timespan', in: 'query', required: false, type: 'string' },
          { name: 'interval', in: 'query', required: false, type: 'string' },
          { name: 'metricnames', in: 'query', required: false, type: 'string' },
          { name: 'aggregation', in: 'query', required: false, type: 'string' },
          { name: 'resultType', in: 'query', required: false, type: 'string', enum: ['Data', 'Metadata'] },
          { name: 'api-version', in: 'query', required: true, type: 'string' },
          { name: 'metricnamespace', in: 'query', required: false, type: 'string' },
        ],
        responses: { 200: { description: 'OK', schema: { $ref: '#/definitions/MetricsResponse' } } },
      },
    },
  },
  definitions: {
    MetricsResponse: {
      type: 'object',
      required: ['timespan', 'value'],
      properties: {
        cost: { type: 'number', minimum: 0 },
        timespan: { type: 'string' },
        interval: { type: 'string' },
        namespace: { type: 'string' },
        resourceregion: { type: 'string' },
        value: { type: 'array', items: { $ref: '#/definitions/Metric' } },
      },
    },
    Metric: {
      type: 'object',
      required: ['id', 'type', 'name', 'unit', 'timeseries'],
      properties: {
        id: { type: 'string' },
        type: { type: 'string' },
        name: { $ref: '#/definitions/LocalizableString' },
        displayDescription: { type: 'string' },
        errorCode: { type: 'string' },
        errorMessage: { type: 'string' },
        unit: { type: 'string' },
        timeseries: { type: 'array', items: { $ref: '#/definitions/TimeSeriesElement' } },
      },
    },
    LocalizableString: { type: 'object', required: ['value'], properties: { value: { type: 'string' }, localizedValue: { type: 'string' } } },
    TimeSeriesElement: {
      type: 'object',
      properties: {
        metadatavalues: { type: 'array', items: { type: 'object', properties: { name: { $ref: '#/definitions/LocalizableString' }, value: { type: 'string' } } } },
        data: { type: 'array', items: { $ref: '#/definitions/MetricValue' } },
      },
    },
    MetricValue: {
      type: 'object',
      required: ['timeStamp'],
      properties: { timeStamp: { type: 'string' }, average: { type: 'number' }, minimum: { type: 'number' }, maximum: { type: 'number' }, total: { type: 'number' }, count: { type: 'number' } },
    },
  },
};

/**
 * The contract files. `sources` name folders of the vendor-specs README table (provenance);
 * `docs` are the description files, `select` the operationIds kept ('*' = all), `prefix` what
 * the vendor's base path adds before each path template, `responses` whether success response
 * schemas are kept.
 */
export const CONTRACT_SET = [
  {
    file: 'pagerduty.json',
    title: 'PagerDuty Events API v2',
    sources: ['pagerduty/'],
    docs: [{ path: 'pagerduty/events-v2-openapiv3.json', select: '*', prefix: 'servers' }],
  },
  {
    file: 'opsgenie.json',
    title: 'Opsgenie Alert API',
    sources: ['opsgenie/'],
    docs: [
      {
        // Fragments of one Swagger document: '#/definitions/…' and '#/parameters/…' point at the whole.
        compose: { paths: 'opsgenie/paths-alert.yaml', definitions: 'opsgenie/definitions-alert.yaml', parameters: 'opsgenie/parameters-alert.yaml' },
        select: ['createAlert', 'acknowledgeAlert', 'closeAlert', 'addNote', 'getRequestStatus'],
      },
    ],
  },
  {
    file: 'azure-devops.json',
    title: 'Azure DevOps Work Item Tracking 7.1',
    sources: ['azure-devops/'],
    bareObjectIsAny: true,
    docs: [
      {
        path: 'azure-devops/workItemTracking-7.1.json',
        select: ['Work Items_Create', 'Work Items_Update', 'Work Items_Get Work Item', 'Comments_Add Comment', 'Work Item Type States_List', 'Wiql_Query By Wiql'],
        apiVersionFromDescription: true,
      },
    ],
  },
  {
    file: 'powerbi.json',
    title: 'Power BI REST API (operations the tenant simulator serves)',
    sources: ['powerbi/'],
    docs: [{ path: 'powerbi/swagger.json', select: POWERBI_OPERATIONS, responses: true }],
  },
  {
    file: 'fabric.json',
    title: 'Microsoft Fabric REST API (operations the tenant simulator serves)',
    sources: ['fabric/'],
    docs: [
      { path: 'fabric/platform/swagger.json', select: FABRIC_PLATFORM_OPERATIONS, prefix: 'basePath', responses: true },
      { path: 'fabric/admin/swagger.json', select: ['Workspaces_ListWorkspaces', 'Items_ListItems'], prefix: 'basePath', responses: true },
      {
        path: 'fabric/mirroredDatabase/swagger.json',
        select: ['Items_ListMirroredDatabases', 'Mirroring_GetMirroringStatus', 'Mirroring_GetTablesMirroringStatus'],
        prefix: 'basePath',
        responses: true,
      },
      { path: 'fabric/semanticModel/swagger.json', select: ['Items_ListSemanticModels'], prefix: 'basePath', responses: true },
      // Capacity load: the Eventhouse, KQL database and Eventstream Vigia creates for a customer (src/monitoring/utilization-setup.ts).
      { path: 'fabric/eventhouse/swagger.json', select: ['Items_ListEventhouses', 'Items_CreateEventhouse', 'Items_GetEventhouse'], prefix: 'basePath', responses: true },
      { path: 'fabric/kqlDatabase/swagger.json', select: ['Items_ListKQLDatabases', 'Items_CreateKQLDatabase', 'Items_GetKQLDatabase'], prefix: 'basePath', responses: true },
      {
        path: 'fabric/eventstream/swagger.json',
        select: ['Items_ListEventstreams', 'Items_CreateEventstream', 'Items_GetEventstream', 'Topology_GetEventstreamTopology'],
        prefix: 'basePath',
        responses: true,
      },
    ],
  },
  {
    file: 'azure-resource-manager.json',
    title: 'Azure Resource Manager: Microsoft.Fabric capacities 2023-11-01, Cost Management Query 2025-03-01, Microsoft.PowerBIDedicated capacities 2021-01-01 and Azure Monitor metrics 2023-10-01',
    sources: ['azure-cost-management/', 'capacity-load/'],
    docs: [
      {
        path: 'azure-cost-management/fabric/resource-manager/Microsoft.Fabric/Fabric/stable/2023-11-01/fabric.json',
        select: ['FabricCapacities_ListBySubscription', 'FabricCapacities_ListByResourceGroup', 'FabricCapacities_Get'],
        responses: true,
        apiVersionFromInfo: true,
      },
      {
        path: 'azure-cost-management/cost-management/resource-manager/Microsoft.CostManagement/CostManagement/stable/2025-03-01/costmanagement.json',
        select: ['Query_Usage'],
        responses: true,
        apiVersionFromInfo: true,
      },
      // Not in vendor-specs: written from the facts of capacity-load/README.md §6.1 (see below).
      { inline: 'capacity-load/README.md:Microsoft.PowerBIDedicated', doc: POWERBI_DEDICATED_DOC, select: ['Capacities_List', 'Capacities_ListByResourceGroup'], responses: true, apiVersionFromInfo: true },
      { inline: 'capacity-load/README.md:Microsoft.Insights', doc: AZURE_MONITOR_METRICS_DOC, select: ['Metrics_List'], responses: true, apiVersionFromInfo: true },
    ],
    handWritten: {
      'capacity-load/': {
        repository: 'Azure/azure-rest-api-specs',
        license: 'MIT (the repository\'s license; no file of it is copied here)',
        fileCommits: {
          'specification/monitor/resource-manager/Microsoft.Insights/stable/2023-10-01/metrics_API.json': '029741f2a57be0df0c346983e76f08dc7a69058a',
          'specification/powerbidedicated/resource-manager/Microsoft.PowerBIdedicated/PowerBIDedicated/stable/2021-01-01/examples/listCapacitiesInResourceGroup.json': 'f4de66ae91ef2838bda173e74641bc08234da2e3',
        },
        derivation:
          'vendor-specs holds no Azure Monitor metrics nor Microsoft.PowerBIDedicated description. Metrics_List, Capacities_List and Capacities_ListByResourceGroup are written by hand in scripts/derive-contracts.mjs from capacity-load/README.md §6.1 (call, parameters, response shape, token scope); parameter names and the path template as in the two upstream files named in fileCommits, read through the stored index, not copied.',
      },
    },
  },
  // The chat kinds (scripts/derive-chat-contracts.mjs): Teams Workflows + Adaptive Card 1.5, Slack Block Kit limits.
  ...CHAT_CONTRACTS,
];

// ---------- reading the descriptions ----------

function readDoc(specsDir, rel) {
  const text = readFileSync(path.join(specsDir, rel), 'utf8').replace(/^\uFEFF/, '');
  return rel.endsWith('.yaml') || rel.endsWith('.yml') ? parseYaml(text) : JSON.parse(text);
}

/** Loads files on demand and follows `$ref`s relative to the file they appear in. */
class RefResolver {
  constructor(specsDir) {
    this.specsDir = specsDir;
    this.docs = new Map();
  }
  add(rel, doc) {
    this.docs.set(rel, doc);
  }
  doc(rel) {
    if (!this.docs.has(rel)) this.docs.set(rel, readDoc(this.specsDir, rel));
    return this.docs.get(rel);
  }
  /** Splits a $ref seen in file `rel` into the target file and JSON pointer. */
  locate(rel, ref) {
    const [file, pointer = ''] = ref.split('#');
    const target = file ? path.posix.normalize(path.posix.join(path.posix.dirname(rel), file)) : rel;
    return { file: target, pointer };
  }
  get(file, pointer) {
    const parts = pointer.replace(/^\//, '').split('/').filter(Boolean).map((p) => p.replace(/~1/g, '/').replace(/~0/g, '~'));
    const node = parts.reduce((n, k) => n?.[k], this.doc(file));
    if (node === undefined) throw new Error(`unresolved $ref ${file}#${pointer}`);
    return node;
  }
  /** Follows $ref chains; returns the node and the file it lives in. */
  deref(rel, node) {
    let file = rel;
    let n = node;
    for (let i = 0; n && typeof n.$ref === 'string' && i < 20; i++) {
      const loc = this.locate(file, n.$ref);
      file = loc.file;
      n = this.get(loc.file, loc.pointer);
    }
    return { file, node: n };
  }
}

// ---------- building one contract ----------

class ContractBuilder {
  constructor(resolver) {
    this.resolver = resolver;
    /** key `file#pointer` → definition name */
    this.names = new Map();
    this.definitions = {};
    this.taken = new Set();
    this.unresolved = new Set();
  }

  nameFor(file, pointer) {
    const key = `${file}#${pointer}`;
    const existing = this.names.get(key);
    if (existing) return existing;
    const base = pointer.split('/').pop();
    let name = base;
    if (this.taken.has(name)) name = `${path.posix.basename(file).replace(/\.(json|ya?ml)$/, '')}.${base}`;
    for (let i = 2; this.taken.has(name); i++) name = `${base}.${i}`;
    this.taken.add(name);
    this.names.set(key, name);
    // Reserve first, then convert: recursive definitions refer to their own name.
    this.definitions[name] = null;
    let target;
    try {
      target = this.resolver.get(file, pointer);
    } catch {
      // A definition the published files reference but do not contain accepts any value.
      this.unresolved.add(key);
      target = {};
    }
    this.definitions[name] = this.schema(file, target);
    return name;
  }

  /** A schema reduced to the checker's keywords, its $refs pointing into `definitions`. */
  schema(file, s) {
    if (!s || typeof s !== 'object') return s;
    if (typeof s.$ref === 'string') {
      const loc = this.resolver.locate(file, s.$ref);
      return { $ref: `#/definitions/${this.nameFor(loc.file, loc.pointer)}` };
    }
    const out = {};
    for (const k of SCHEMA_KEYWORDS) {
      if (s[k] === undefined) continue;
      if (k === 'properties') out.properties = Object.fromEntries(Object.entries(s.properties).map(([p, v]) => [p, this.schema(file, v)]));
      else if (k === 'items' || (k === 'additionalProperties' && typeof s[k] === 'object')) out[k] = this.schema(file, s[k]);
      else if (k === 'allOf') out.allOf = s.allOf.map((x) => this.schema(file, x));
      else out[k] = s[k];
    }
    return out;
  }

  parameter(file, raw) {
    const { file: pf, node: p } = this.resolver.deref(file, raw);
    const out = { name: p.name, in: p.in };
    if (p.required) out.required = true;
    if (p.in === 'body') out.schema = this.schema(pf, p.schema);
    else {
      const enumValues = p.enum ?? p.schema?.enum;
      if (enumValues) out.enum = enumValues;
      // Azure's path parameters that hold a whole resource path (a Cost Management scope).
      if (p['x-ms-skip-url-encoding'] === true && p.in === 'path') out.multiSegment = true;
    }
    return { param: out, source: p };
  }

  operation(file, doc, pathItem, op, opts) {
    const out = { operationId: op.operationId };
    const raw = [...(pathItem.parameters ?? []), ...(op.parameters ?? [])];
    const params = [];
    for (const r of raw) {
      const { param, source } = this.parameter(file, r);
      if (param.in === 'query' && param.name === 'api-version') {
        if (opts.apiVersionFromDescription) out.apiVersion = /'([^']+)'/.exec(source.description ?? '')?.[1];
        if (opts.apiVersionFromInfo) out.apiVersion = doc.info.version;
      }
      if (param.in === 'formData') continue;
      params.push(param);
    }
    const rb = op.requestBody;
    if (rb) {
      const { file: rf, node: body } = this.resolver.deref(file, rb);
      const schema = body.content?.['application/json']?.schema;
      params.push({ name: 'body', in: 'body', ...(body.required ? { required: true } : {}), schema: this.schema(rf, schema) });
    }
    out.parameters = params;
    if (op.consumes) out.consumes = op.consumes;
    if (opts.responses) {
      const responses = {};
      for (const [code, r] of Object.entries(op.responses ?? {})) {
        if (!/^2\d\d$/.test(code)) continue;
        const { file: rf, node: resp } = this.resolver.deref(file, r);
        responses[code] = resp.schema ? { schema: this.schema(rf, resp.schema) } : {};
        if (resp.headers) responses[code].headers = Object.keys(resp.headers).sort();
      }
      out.responses = responses;
    }
    if (op['x-ms-long-running-operation']) out.longRunning = true;
    const pageable = op['x-ms-pageable'];
    if (pageable) out.nextLinkName = pageable.nextLinkName ?? null;
    return out;
  }
}

function prefixOf(doc, how) {
  if (how === 'servers') return new URL(doc.servers[0].url).pathname.replace(/\/$/, '');
  if (how === 'basePath') return (doc.basePath ?? '').replace(/\/$/, '');
  return '';
}

// ---------- provenance ----------

/** Parses the vendor-specs README table: folder → { repository, commit, license }. */
export function readProvenance(specsDir) {
  const text = readFileSync(path.join(specsDir, 'README.md'), 'utf8');
  const rows = new Map();
  for (const line of text.split('\n')) {
    const cells = line.split('|').map((c) => c.trim());
    if (cells.length < 5 || !/\/$/.test(cells[1] ?? '')) continue;
    const folder = cells[1];
    const m = /^(\S+)(?:\s*\(([^,)]+))?/.exec(cells[2]);
    rows.set(folder, { repository: m?.[1] ?? cells[2], license: m?.[2]?.trim() ?? null, commit: cells[3] });
  }
  return rows;
}

/** Per-file commits of folders whose README row says "see its SOURCES.md". */
function readSourcesMd(specsDir, folder) {
  const file = path.join(specsDir, folder, 'SOURCES.md');
  if (!existsSync(file)) return new Map();
  const commits = new Map();
  for (const line of readFileSync(file, 'utf8').split('\n')) {
    const m = /^\|\s*\d+\s*\|\s*`specification\/([^`]+)`\s*\|\s*`([0-9a-f]{40})`/.exec(line);
    if (m) commits.set(m[1], m[2]);
  }
  return commits;
}

function provenanceFor(specsDir, entry, usedFiles) {
  const table = readProvenance(specsDir);
  const out = [];
  for (const folder of entry.sources) {
    const row = table.get(folder);
    if (!row) throw new Error(`vendor-specs/README.md has no row for ${folder}`);
    const files = usedFiles.filter((f) => f.startsWith(folder)).sort();
    const hand = entry.handWritten?.[folder];
    if (hand) {
      // Operations written from our notes in that folder: name the notes and the upstream files they follow.
      out.push({ folder, repository: hand.repository, commit: null, license: hand.license, files, fileCommits: hand.fileCommits, derivation: hand.derivation });
      continue;
    }
    const source = { folder, repository: row.repository, commit: row.commit, license: row.license ?? 'not stated in the vendor-specs README', files };
    if (!/^[0-9a-f]{7,40}$/.test(row.commit)) {
      const perFile = readSourcesMd(specsDir, folder);
      source.commit = null;
      source.fileCommits = Object.fromEntries(files.map((f) => [f, perFile.get(f.slice(folder.length)) ?? null]));
      // The folder lists MIT for the repository in its README row only when stated; say where to look.
      if (!row.license) source.license = 'MIT (the repository\'s license; its copy is not in vendor-specs, see SOURCES.md)';
    }
    out.push(source);
  }
  return out;
}

// ---------- deriving ----------

export function deriveContract(specsDir, entry) {
  const resolver = new RefResolver(specsDir);
  const builder = new ContractBuilder(resolver);
  const paths = {};
  const found = new Set();
  for (const d of entry.docs) {
    let rel;
    if (d.compose) {
      rel = `${d.compose.paths}`;
      const composed = {
        paths: readDoc(specsDir, d.compose.paths),
        definitions: readDoc(specsDir, d.compose.definitions),
        parameters: readDoc(specsDir, d.compose.parameters),
      };
      resolver.add(rel, composed);
    } else if (d.inline) {
      rel = d.inline;
      resolver.add(rel, d.doc);
    } else rel = d.path;
    const doc = resolver.doc(rel);
    const prefix = prefixOf(doc, d.prefix);
    for (const [template, item] of Object.entries(doc.paths ?? {})) {
      for (const [method, op] of Object.entries(item)) {
        if (method === 'parameters' || typeof op !== 'object') continue;
        if (d.select !== '*' && !d.select.includes(op.operationId)) continue;
        found.add(`${rel}:${op.operationId}`);
        const full = `${prefix}${template}`;
        paths[full] ??= {};
        paths[full][method] = builder.operation(rel, doc, item, op, d);
      }
    }
    if (d.select !== '*') {
      for (const id of d.select) if (!found.has(`${rel}:${id}`)) throw new Error(`${rel}: no operation ${id}`);
    }
  }
  const usedFiles = [...new Set([...resolver.docs.keys(), ...entry.docs.flatMap((d) => (d.compose ? Object.values(d.compose) : d.inline ? [d.inline.split(':')[0]] : [d.path]))])].filter((f) => existsSync(path.join(specsDir, f)));
  const sortedPaths = Object.fromEntries(Object.keys(paths).sort().map((k) => [k, paths[k]]));
  const definitions = Object.fromEntries(Object.keys(builder.definitions).sort().map((k) => [k, builder.definitions[k]]));
  const contract = {
    title: entry.title,
    derivedBy: 'scripts/derive-contracts.mjs (do not edit by hand)',
    sources: provenanceFor(specsDir, entry, usedFiles),
    ...(entry.bareObjectIsAny ? { bareObjectIsAny: true } : {}),
    ...(builder.unresolved.size ? { unresolvedRefs: [...builder.unresolved].sort() } : {}),
    paths: sortedPaths,
    definitions,
  };
  return `${JSON.stringify(contract, null, 1)}\n`;
}

/** All contract files: name → text. */
export function deriveContracts(specsDir = defaultSpecsDir()) {
  return Object.fromEntries(CONTRACT_SET.map((e) => [e.file, e.derive ? e.derive(specsDir, provenanceFor) : deriveContract(specsDir, e)]));
}

async function main() {
  const specsDir = defaultSpecsDir();
  if (!existsSync(specsDir)) {
    console.error(`vendor-specs not found at ${specsDir} (set VIGIA_VENDOR_SPECS)`);
    process.exit(2);
  }
  const check = process.argv.includes('--check');
  const derived = deriveContracts(specsDir);
  let differ = 0;
  for (const [file, text] of Object.entries(derived)) {
    const target = path.join(CONTRACTS_DIR, file);
    const current = existsSync(target) ? readFileSync(target, 'utf8') : null;
    if (current === text) continue;
    differ++;
    if (check) console.error(`${file}: differs from what the descriptions give`);
    else {
      writeFileSync(target, text);
      console.log(`wrote contracts/${file} (${text.length} bytes)`);
    }
  }
  if (check && differ) process.exit(1);
  if (!differ) console.log('contracts are up to date');
}

if (import.meta.url === pathToFileURL(process.argv[1] ?? '').href) await main();
