/**
 * Fabric items Vigia creates for a customer's capacity load (docs/monitoring.md, "Capacity
 * load"): Eventhouses, KQL databases and Eventstreams, as their REST descriptions define them —
 * create is a long-running operation (202, Location, Retry-After; the result is the item), and
 * needs the Contributor role (or higher) on the workspace, else 403 InsufficientPrivileges. An
 * Eventstream whose topology routes capacity overview events sources into an Eventhouse table
 * makes that table receive those capacities' simulated events (src/tenant-sim/kusto.ts reads it).
 * Tables are made by management commands (src/tenant-sim/kusto-mgmt.ts).
 *
 * Kept beside the simulator's state (one store per state object) so nothing else in the tenant
 * changes: these items are not in the workspace's item list the other collectors read.
 */
import { randomUUID } from 'node:crypto';
import { fabricError, type Handler, ok, type Reply, type RequestContext } from './reply.js';
import type { SimState, SimWorkspace } from './types.js';

export type WorkspaceRole = 'Admin' | 'Member' | 'Contributor' | 'Viewer';
const MAY_CREATE = new Set<WorkspaceRole>(['Admin', 'Member', 'Contributor']);

interface Eventhouse {
  id: string;
  workspaceId: string;
  displayName: string;
  description: string;
}
interface KqlDatabase {
  id: string;
  workspaceId: string;
  displayName: string;
  description: string;
  parentEventhouseItemId: string;
}
export interface KqlTable {
  name: string;
  columns: Array<[string, string]>;
  retentionDays: number | null;
}
interface Eventstream {
  id: string;
  workspaceId: string;
  displayName: string;
  description: string;
  topology: Topology;
  createdAt: number;
}
/** Where an Eventstream delivers its capacity sources' events. */
export interface Route {
  database: string;
  table: string;
  capacityIds: string[];
  /** When the Eventstream was made: events from then on arrive (epoch ms). */
  since: number;
}
interface Topology {
  sources: Array<{ id: string; name: string; type: string; properties: Record<string, unknown> }>;
  destinations: Array<{ id: string; name: string; type: string; properties: Record<string, unknown>; inputNodes: Array<{ name: string }> }>;
  streams: Array<{ id: string; name: string; type: string; properties: Record<string, unknown>; inputNodes: Array<{ name: string }> }>;
  operators: unknown[];
  compatibilityLevel?: string;
}

export interface ItemStore {
  roles: Map<string, WorkspaceRole>;
  eventhouses: Map<string, Eventhouse>;
  databases: Map<string, KqlDatabase>;
  /** database name (lower case) → table name (lower case) → table. */
  tables: Map<string, Map<string, KqlTable>>;
  eventstreams: Map<string, Eventstream>;
}

const stores = new WeakMap<SimState, ItemStore>();

export function itemStore(state: SimState): ItemStore {
  let s = stores.get(state);
  if (!s) {
    s = { roles: new Map(), eventhouses: new Map(), databases: new Map(), tables: new Map(), eventstreams: new Map() };
    stores.set(state, s);
  }
  return s;
}

/** The principal's role on a workspace it is a member of (Contributor unless set). */
export function setWorkspaceRole(state: SimState, workspaceId: string, role: WorkspaceRole): void {
  itemStore(state).roles.set(workspaceId.toLowerCase(), role);
}

/** The tables the simulated Eventstreams fill, with the capacities each receives. */
export function routes(state: SimState): Route[] {
  const s = itemStore(state);
  const out: Route[] = [];
  for (const es of s.eventstreams.values()) {
    const caps = es.topology.sources.filter((x) => x.type === 'FabricCapacityOverviewEvents').map((x) => String(x.properties.capacityId).toLowerCase());
    for (const d of es.topology.destinations) {
      if (d.type !== 'Eventhouse') continue;
      out.push({ database: String(d.properties.databaseName), table: String(d.properties.tableName), capacityIds: caps, since: es.createdAt });
    }
  }
  return out;
}

/** A table made by a management command in a created database, or undefined. */
export function createdTable(state: SimState, database: string, table: string): KqlTable | undefined {
  return itemStore(state).tables.get(database.toLowerCase())?.get(table.toLowerCase());
}

export function createdDatabase(state: SimState, name: string): KqlDatabase | undefined {
  return [...itemStore(state).databases.values()].find((d) => d.displayName.toLowerCase() === name.toLowerCase());
}

function workspaceFor(ctx: RequestContext, write: boolean): SimWorkspace | Reply {
  const w = ctx.state.workspaces.find((x) => x.id.toLowerCase() === ctx.pathParams.workspaceId?.toLowerCase());
  if (!w) return fabricError(404, 'WorkspaceNotFound', 'The requested workspace was not found.');
  if (!w.member) return fabricError(403, 'InsufficientPrivileges', 'The caller does not have sufficient permissions to access this workspace.');
  const role = itemStore(ctx.state).roles.get(w.id.toLowerCase()) ?? 'Contributor';
  if (write && !MAY_CREATE.has(role)) {
    return fabricError(403, 'InsufficientPrivileges', `The caller does not have sufficient permissions to create items in this workspace: the Contributor role or higher is required (the caller is ${role}).`);
  }
  return w;
}

/** 202 with a long-running operation whose result is `item` (create of Eventhouse, KQL database, Eventstream). */
function accepted(ctx: RequestContext, item: unknown): Reply {
  const id = randomUUID();
  ctx.operations.set(id, { result: item, polls: 0, createdAt: new Date(ctx.now).toISOString() });
  return { status: 202, headers: { Location: `${ctx.origin}/v1/operations/${id}`, 'x-ms-operation-id': id, 'Retry-After': '1' } };
}

const body = (ctx: RequestContext) => (ctx.json ?? {}) as Record<string, unknown>;

function nameTaken(ctx: RequestContext, workspaceId: string, displayName: string): Reply | null {
  const s = itemStore(ctx.state);
  const all = [...s.eventhouses.values(), ...s.databases.values(), ...s.eventstreams.values()];
  if (all.some((i) => i.workspaceId === workspaceId && i.displayName.toLowerCase() === displayName.toLowerCase())) {
    return fabricError(409, 'ItemDisplayNameAlreadyInUse', `Requested '${displayName}' is already in use.`);
  }
  return null;
}

const eventhouseItem = (ctx: RequestContext, e: Eventhouse) => ({
  id: e.id,
  type: 'Eventhouse',
  displayName: e.displayName,
  description: e.description,
  workspaceId: e.workspaceId,
  properties: {
    // The simulated Eventhouse answers queries and commands on the simulator's own origin.
    queryServiceUri: ctx.origin,
    ingestionServiceUri: ctx.origin,
    databasesItemIds: [...itemStore(ctx.state).databases.values()].filter((d) => d.parentEventhouseItemId === e.id).map((d) => d.id),
    minimumConsumptionUnits: 0,
  },
});

const databaseItem = (ctx: RequestContext, d: KqlDatabase) => ({
  id: d.id,
  type: 'KQLDatabase',
  displayName: d.displayName,
  description: d.description,
  workspaceId: d.workspaceId,
  properties: { parentEventhouseItemId: d.parentEventhouseItemId, queryServiceUri: ctx.origin, ingestionServiceUri: ctx.origin, databaseType: 'ReadWrite', oneLakeCachingPeriod: 'P36500D', oneLakeStandardStoragePeriod: 'P36500D' },
});

const eventstreamItem = (e: Eventstream) => ({ id: e.id, type: 'Eventstream', displayName: e.displayName, description: e.description, workspaceId: e.workspaceId });

function inWorkspace<T extends { workspaceId: string }>(w: SimWorkspace, items: Iterable<T>): T[] {
  return [...items].filter((i) => i.workspaceId === w.id);
}

function createEventhouse(ctx: RequestContext): Reply {
  const w = workspaceFor(ctx, true);
  if ('status' in w) return w;
  const b = body(ctx);
  const taken = nameTaken(ctx, w.id, String(b.displayName));
  if (taken) return taken;
  const e: Eventhouse = { id: randomUUID(), workspaceId: w.id, displayName: String(b.displayName), description: String(b.description ?? '') };
  itemStore(ctx.state).eventhouses.set(e.id, e);
  return accepted(ctx, eventhouseItem(ctx, e));
}

function createDatabase(ctx: RequestContext): Reply {
  const w = workspaceFor(ctx, true);
  if ('status' in w) return w;
  const b = body(ctx);
  const payload = (b.creationPayload ?? {}) as Record<string, unknown>;
  const parent = itemStore(ctx.state).eventhouses.get(String(payload.parentEventhouseItemId ?? '').toLowerCase());
  if (payload.databaseType !== 'ReadWrite' || !parent) {
    return fabricError(400, 'InvalidInput', 'creationPayload must be { databaseType: "ReadWrite", parentEventhouseItemId } naming an Eventhouse of this workspace.');
  }
  const taken = nameTaken(ctx, w.id, String(b.displayName));
  if (taken) return taken;
  const d: KqlDatabase = { id: randomUUID(), workspaceId: w.id, displayName: String(b.displayName), description: String(b.description ?? ''), parentEventhouseItemId: parent.id };
  itemStore(ctx.state).databases.set(d.id, d);
  itemStore(ctx.state).tables.set(d.displayName.toLowerCase(), new Map());
  return accepted(ctx, databaseItem(ctx, d));
}

/** The `eventstream.json` part of a definition, decoded, or why it cannot be used. */
function topologyOf(definition: unknown): Topology | string {
  const parts = (definition as { parts?: Array<{ path?: string; payload?: string; payloadType?: string }> } | undefined)?.parts;
  const part = parts?.find((p) => p.path === 'eventstream.json');
  if (!part) return 'the definition has no eventstream.json part';
  if (part.payloadType !== 'InlineBase64') return 'eventstream.json must be InlineBase64';
  let t: Topology;
  try {
    t = JSON.parse(Buffer.from(String(part.payload), 'base64').toString('utf8')) as Topology;
  } catch {
    return 'eventstream.json is not base64 of JSON';
  }
  for (const k of ['sources', 'destinations', 'streams', 'operators'] as const) if (!Array.isArray(t[k])) return `eventstream.json must hold the array "${k}"`;
  return t;
}

/** What the service refuses in a capacity-events topology (src/tenant-sim keeps to what the descriptions state). */
function checkTopology(ctx: RequestContext, t: Topology): string | null {
  const names = new Set<string>();
  for (const s of t.sources) {
    if (!s.name || names.has(s.name)) return 'every source needs a unique name';
    names.add(s.name);
    if (s.type !== 'FabricCapacityOverviewEvents') continue;
    const p = s.properties ?? {};
    if (p.eventScope !== 'Capacity') return `source ${s.name}: eventScope must be Capacity`;
    if (!ctx.state.capacities.some((c) => c.id.toLowerCase() === String(p.capacityId).toLowerCase())) return `source ${s.name}: capacity ${String(p.capacityId)} not found`;
    const types = (p.includedEventTypes ?? []) as unknown[];
    if (!Array.isArray(types) || types.some((x) => x !== 'Microsoft.Fabric.Capacity.Summary' && x !== 'Microsoft.Fabric.Capacity.State')) return `source ${s.name}: includedEventTypes holds an unsupported type`;
  }
  const defaults = t.streams.filter((s) => s.type === 'DefaultStream');
  if (defaults.length !== 1) return 'an Eventstream has exactly one DefaultStream';
  const stream = defaults[0]!;
  for (const s of t.sources) if (!stream.inputNodes?.some((n) => n.name === s.name)) return `the DefaultStream's inputNodes must list source ${s.name}`;
  const store = itemStore(ctx.state);
  for (const d of t.destinations) {
    if (d.type !== 'Eventhouse') continue;
    const p = d.properties ?? {};
    if (!d.inputNodes?.some((n) => n.name === stream.name)) return `destination ${d.name}: inputNodes must name the stream`;
    const eh = store.eventhouses.get(String(p.itemId).toLowerCase());
    if (!eh || eh.workspaceId.toLowerCase() !== String(p.workspaceId).toLowerCase()) return `destination ${d.name}: Eventhouse ${String(p.itemId)} not found in workspace ${String(p.workspaceId)}`;
    if (p.dataIngestionMode !== 'ProcessedIngestion' && p.dataIngestionMode !== 'DirectIngestion') return `destination ${d.name}: unknown dataIngestionMode`;
    if (p.dataIngestionMode === 'ProcessedIngestion') {
      const db = createdDatabase(ctx.state, String(p.databaseName));
      if (!db || db.parentEventhouseItemId !== eh.id) return `destination ${d.name}: database ${String(p.databaseName)} not found in the Eventhouse`;
      if (!createdTable(ctx.state, db.displayName, String(p.tableName))) return `destination ${d.name}: table ${String(p.tableName)} not found in ${db.displayName}`;
    } else {
      // DirectIngestion carries no database name and needs a mapping made beforehand: the simulator does not model it.
      return `destination ${d.name}: DirectIngestion is not simulated; use ProcessedIngestion`;
    }
  }
  return null;
}

function createEventstream(ctx: RequestContext): Reply {
  const w = workspaceFor(ctx, true);
  if ('status' in w) return w;
  const b = body(ctx);
  const t = topologyOf(b.definition);
  if (typeof t === 'string') return fabricError(400, 'InvalidDefinition', t);
  const wrong = checkTopology(ctx, t);
  if (wrong) return fabricError(400, 'InvalidDefinition', wrong);
  const taken = nameTaken(ctx, w.id, String(b.displayName));
  if (taken) return taken;
  // The service gives every node an id.
  const withIds = <T extends { id?: string }>(xs: T[]) => xs.map((x) => ({ ...x, id: randomUUID() }));
  const topology: Topology = { ...t, sources: withIds(t.sources), destinations: withIds(t.destinations), streams: withIds(t.streams) };
  const e: Eventstream = { id: randomUUID(), workspaceId: w.id, displayName: String(b.displayName), description: String(b.description ?? ''), topology, createdAt: ctx.now };
  itemStore(ctx.state).eventstreams.set(e.id, e);
  return accepted(ctx, eventstreamItem(e));
}

function getOne<T extends { workspaceId: string }>(ctx: RequestContext, map: Map<string, T>, param: string, render: (x: T) => unknown, what: string): Reply {
  const w = workspaceFor(ctx, false);
  if ('status' in w) return w;
  const x = map.get(String(ctx.pathParams[param]).toLowerCase());
  if (!x || x.workspaceId !== w.id) return fabricError(404, 'EntityNotFound', `The requested ${what} was not found.`);
  return ok(render(x));
}

function list<T extends { workspaceId: string }>(ctx: RequestContext, map: Map<string, T>, render: (x: T) => unknown): Reply {
  const w = workspaceFor(ctx, false);
  if ('status' in w) return w;
  return ok({ value: inWorkspace(w, map.values()).map(render) });
}

const node = (status: string) => ({ status, error: null });

export const FABRIC_ITEM_HANDLERS: Record<string, Handler> = {
  Items_ListEventhouses: (ctx) => list(ctx, itemStore(ctx.state).eventhouses, (e) => eventhouseItem(ctx, e)),
  Items_CreateEventhouse: createEventhouse,
  Items_GetEventhouse: (ctx) => getOne(ctx, itemStore(ctx.state).eventhouses, 'eventhouseId', (e) => eventhouseItem(ctx, e), 'Eventhouse'),
  Items_ListKQLDatabases: (ctx) => list(ctx, itemStore(ctx.state).databases, (d) => databaseItem(ctx, d)),
  Items_CreateKQLDatabase: createDatabase,
  Items_GetKQLDatabase: (ctx) => getOne(ctx, itemStore(ctx.state).databases, 'kqlDatabaseId', (d) => databaseItem(ctx, d), 'KQL database'),
  Items_ListEventstreams: (ctx) => list(ctx, itemStore(ctx.state).eventstreams, eventstreamItem),
  Items_CreateEventstream: createEventstream,
  Items_GetEventstream: (ctx) => getOne(ctx, itemStore(ctx.state).eventstreams, 'eventstreamId', eventstreamItem, 'Eventstream'),
  Topology_GetEventstreamTopology: (ctx) =>
    getOne(
      ctx,
      itemStore(ctx.state).eventstreams,
      'eventstreamId',
      (e) => ({
        sources: e.topology.sources.map((s) => ({ ...s, ...node('Running') })),
        destinations: e.topology.destinations.map((d) => ({ ...d, ...node('Running') })),
        streams: e.topology.streams,
        operators: e.topology.operators,
        ...(e.topology.compatibilityLevel ? { compatibilityLevel: e.topology.compatibilityLevel } : {}),
      }),
      'Eventstream',
    ),
};
