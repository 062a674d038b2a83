/**
 * Sets up the capacity overview events source for a customer (`POST …/tenants/{id}/utilization/eventhouse`,
 * `vigia tenants utilization-setup`): through the Fabric item APIs, an Eventhouse (or the one
 * given), a KQL database in it, the events table (Kusto management commands on the Eventhouse's
 * query URI) and an Eventstream whose sources are the capacity overview events of each capacity
 * and whose destination is that table; then the connection's `utilization.eventhouse` names the
 * table, so the `utilization` collector reads it.
 *
 * Idempotent: each item is looked up by its name first and only made when missing, so a second
 * call changes nothing and says so. A principal that may not create items gets `refused` with
 * the permission it lacks, in pt-BR and English, and the manual steps' place in the docs —
 * nothing half-stored on the connection.
 */
import type { AppContext } from '../context.js';
import { conflictError, invalidInput } from '../errors.js';
import type { Texts } from './messages/fixes.js';
import { type PlatformClient, ThrottledError, VendorAnswerError, VendorHttpError } from './platform/platform-client.js';
import { TokenRefusedError, TokenUnavailableError } from './platform/token-errors.js';
import { updateTenant } from './tenants.js';
import { loadTenant } from './connection/tenant-row.js';
import { clientForTenant } from './platform/tenant-client.js';
import { createTransport, VendorCallError } from './platform/transport.js';
import type { EventhouseSource } from './connection/utilization-settings.js';

/** Names of what Vigia creates (looked up by these names on a second call). */
export const SETUP_NAMES = { eventhouse: 'Vigia_Eventhouse', database: 'VigiaCapacity', table: 'CapacityEvents', eventstream: 'Vigia_CapacityEvents' } as const;
/** The raw CloudEvent, as the Eventstream delivers it: the collector reads `type`, `data` and the ingestion time. */
const TABLE_SCHEMA = 'specversion:real, source:string, time:datetime, id:string, subject:string, dataschemaversion:real, type:string, data:dynamic';
/** Vigia reads new rows every 30 s and keeps its own history: a week covers any outage of Vigia. */
const TABLE_RETENTION_DAYS = 7;
const EVENT_TYPES = ['Microsoft.Fabric.Capacity.Summary', 'Microsoft.Fabric.Capacity.State'];
const GUID = /^[0-9a-f]{8}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{12}$/i;
const MAX_CAPACITIES = 100;

export interface SetupInput {
  workspaceId: string;
  eventhouseId?: string;
  capacityIds?: string[];
}

export interface SetupRefusal {
  permission: 'WorkspaceContributor' | 'DatabaseAdmin' | 'FabricApis';
  detail: string;
  fix: Texts;
}

export interface SetupResult {
  outcome: 'created' | 'existing' | 'refused';
  /** What this call made (Eventhouse, KQLDatabase, Table, Eventstream), in order. */
  created: string[];
  eventhouse: EventhouseSource | null;
  eventstreamId: string | null;
  capacityIds: string[];
  refusal: SetupRefusal | null;
}

const MANUAL: Texts = {
  'pt-BR': 'Ou faça os passos à mão: docs/monitoring.md, "Capacity load" → "Manual set-up".',
  en: 'Or follow the manual steps: docs/monitoring.md, "Capacity load" → "Manual set-up".',
};
const fixText = (pt: string, en: string): Texts => ({ 'pt-BR': `${pt} ${MANUAL['pt-BR']}`, en: `${en} ${MANUAL.en}` });

const REFUSALS: Record<SetupRefusal['permission'], (ws: string) => Texts> = {
  WorkspaceContributor: (ws) =>
    fixText(
      `Dê à entidade de serviço a função Colaborador (ou Membro/Administrador) no workspace ${ws}: criar Eventhouse, banco KQL e Eventstream exige essa função.`,
      `Give the service principal the Contributor role (or Member/Admin) on workspace ${ws}: creating an Eventhouse, a KQL database and an Eventstream requires it.`,
    ),
  DatabaseAdmin: () =>
    fixText(
      'A entidade de serviço precisa ser administradora do banco KQL para criar a tabela: dê a ela a função Colaborador no workspace, ou ".add database <banco> admins (\'aadapp=<id do aplicativo>;<id do tenant>\')".',
      'The service principal must be an admin of the KQL database to create the table: give it the Contributor role on the workspace, or ".add database <db> admins (\'aadapp=<application id>;<tenant id>\')".',
    ),
  FabricApis: () =>
    fixText(
      'O Fabric recusou a entidade de serviço: no portal de administração, ative "Service principals can use Fabric APIs" para o grupo dela.',
      'Fabric refused the service principal: in the admin portal, enable "Service principals can use Fabric APIs" for its group.',
    ),
};

class Refused extends Error {
  constructor(readonly permission: SetupRefusal['permission'], readonly detail: string) {
    super(detail);
  }
}

function checkInput(i: SetupInput): void {
  if (!GUID.test(i.workspaceId)) throw invalidInput('workspaceId must be a GUID (the workspace to create the items in)');
  if (i.eventhouseId !== undefined && !GUID.test(i.eventhouseId)) throw invalidInput('eventhouseId must be a GUID');
  if (i.capacityIds !== undefined) {
    if (i.capacityIds.length === 0 || i.capacityIds.length > MAX_CAPACITIES) throw invalidInput(`capacityIds must list 1 to ${MAX_CAPACITIES} capacities`);
    i.capacityIds.forEach((c, n) => {
      if (!GUID.test(c)) throw invalidInput(`capacityIds[${n}] must be a GUID`);
    });
  }
}

interface Item {
  id: string;
  displayName: string;
  properties?: Record<string, unknown>;
}

const b64 = (v: unknown) => Buffer.from(JSON.stringify(v), 'utf8').toString('base64');

/** The Eventstream's definition: one capacity overview events source per capacity, the default stream, the table. */
export function eventstreamDefinition(workspaceId: string, eventhouseId: string, capacityIds: string[]) {
  const sources = capacityIds.map((id, n) => ({
    name: `capacity-${n + 1}`,
    type: 'FabricCapacityOverviewEvents',
    properties: { eventScope: 'Capacity', capacityId: id, includedEventTypes: EVENT_TYPES, filters: [] },
  }));
  const stream = { name: 'Vigia_CapacityEvents-stream', type: 'DefaultStream', properties: {}, inputNodes: sources.map((s) => ({ name: s.name })) };
  const destination = {
    name: 'vigia-eventhouse',
    type: 'Eventhouse',
    properties: {
      dataIngestionMode: 'ProcessedIngestion',
      workspaceId,
      itemId: eventhouseId,
      databaseName: SETUP_NAMES.database,
      tableName: SETUP_NAMES.table,
      inputSerialization: { type: 'Json', properties: { encoding: 'UTF8' } },
    },
    inputNodes: [{ name: stream.name }],
  };
  const topology = { sources, destinations: [destination], streams: [stream], operators: [], compatibilityLevel: '1.0' };
  return {
    parts: [
      { path: 'eventstream.json', payload: b64(topology), payloadType: 'InlineBase64' },
      { path: 'eventstreamProperties.json', payload: b64({ retentionTimeInDays: 1, eventThroughputLevel: 'Low' }), payloadType: 'InlineBase64' },
    ],
  };
}

class Setup {
  readonly created: string[] = [];
  constructor(
    private readonly client: PlatformClient,
    private readonly ws: string,
  ) {}

  private path(p: string) {
    return this.client.fabric(`/workspaces/${encodeURIComponent(this.ws)}${p}`);
  }

  private async call<T>(what: () => Promise<T>, permission: SetupRefusal['permission'] = 'WorkspaceContributor'): Promise<T> {
    try {
      return await what();
    } catch (err) {
      if (err instanceof VendorHttpError && (err.status === 401 || err.status === 403)) {
        throw new Refused(err.status === 401 && err.family === 'fabric' ? 'FabricApis' : permission, err.message);
      }
      throw err;
    }
  }

  private async findByName(kind: string, name: string, match: (i: Item) => boolean = () => true): Promise<Item | null> {
    for await (const page of this.client.fabricPages<Item>({ family: 'fabric', audience: 'fabric', url: this.path(`/${kind}`) })) {
      const found = page.find((i) => i.displayName === name && match(i));
      if (found) return found;
    }
    return null;
  }

  private async create(kind: string, label: string, body: unknown): Promise<Item> {
    const made = await this.call(() => this.client.longRunning<Item>({ family: 'fabric', audience: 'fabric', method: 'POST', url: this.path(`/${kind}`), body }));
    if (!made || typeof made.id !== 'string') throw new VendorAnswerError(`the create of the ${label} answered without its id`);
    this.created.push(label);
    return made;
  }

  async eventhouse(given: string | undefined): Promise<{ id: string; queryUri: string }> {
    let id = given;
    if (id === undefined) {
      const found = await this.call(() => this.findByName('eventhouses', SETUP_NAMES.eventhouse));
      id = found?.id ?? (await this.create('eventhouses', 'Eventhouse', { displayName: SETUP_NAMES.eventhouse, description: 'Capacity overview events read by Vigia' })).id;
    }
    const eh = await this.call(async () => {
      try {
        return await this.client.json<Item>({ family: 'fabric', audience: 'fabric', url: this.path(`/eventhouses/${encodeURIComponent(id!)}`) });
      } catch (err) {
        if (given !== undefined && err instanceof VendorHttpError && err.status === 404) throw invalidInput(`no Eventhouse ${given} in workspace ${this.ws}`);
        throw err;
      }
    });
    const uri = eh?.properties?.queryServiceUri;
    if (typeof uri !== 'string' || !uri) throw new VendorAnswerError('the Eventhouse answered without properties.queryServiceUri');
    return { id: id!, queryUri: uri };
  }

  async database(eventhouseId: string): Promise<void> {
    const found = await this.call(() => this.findByName('kqlDatabases', SETUP_NAMES.database, (i) => String(i.properties?.parentEventhouseItemId ?? '').toLowerCase() === eventhouseId.toLowerCase()));
    if (found) return;
    await this.create('kqlDatabases', 'KQLDatabase', {
      displayName: SETUP_NAMES.database,
      description: 'Capacity overview events read by Vigia',
      creationPayload: { databaseType: 'ReadWrite', parentEventhouseItemId: eventhouseId },
    });
  }

  /** `.create-merge` makes the table or keeps it as it is; the retention keeps the Eventhouse small. */
  async table(queryUri: string): Promise<void> {
    const url = `${queryUri.replace(/\/$/, '')}/v1/rest/mgmt`;
    const command = (csl: string) =>
      this.call(() => this.client.json<unknown>({ family: 'kusto', audience: 'kusto', method: 'POST', url, body: { db: SETUP_NAMES.database, csl, properties: { Options: { request_app_name: 'Vigia' } } } }), 'DatabaseAdmin');
    await command(`.create-merge table ['${SETUP_NAMES.table}'] (${TABLE_SCHEMA})`);
    // `.create-merge` answers the same whether it made the table or found it: a table is new with its new database.
    if (this.created.includes('KQLDatabase')) this.created.push('Table');
    await command(`.alter-merge table ['${SETUP_NAMES.table}'] policy retention softdelete = ${TABLE_RETENTION_DAYS}d recoverability = disabled`);
  }

  async capacities(given: string[] | undefined): Promise<string[]> {
    if (given) return given.map((c) => c.toLowerCase());
    const out: string[] = [];
    for await (const page of this.client.fabricPages<{ id: string }>({ family: 'fabric', audience: 'fabric', url: this.client.fabric('/capacities') })) {
      for (const c of page) out.push(String(c.id).toLowerCase());
    }
    if (out.length === 0) throw invalidInput('the service principal sees no capacity: give it capacity admin (or list capacityIds)');
    return out.slice(0, MAX_CAPACITIES);
  }

  async eventstream(eventhouseId: string, capacityIds: string[]): Promise<string> {
    const found = await this.call(() => this.findByName('eventstreams', SETUP_NAMES.eventstream));
    if (found) return found.id;
    const made = await this.create('eventstreams', 'Eventstream', {
      displayName: SETUP_NAMES.eventstream,
      description: 'Capacity overview events to the Eventhouse table Vigia reads',
      definition: eventstreamDefinition(this.ws, eventhouseId, capacityIds),
    });
    return made.id;
  }
}

/** What the route answers for a failure that is the platform's, not the input's (never a 500). */
function platformFailure(err: unknown): never {
  if (err instanceof TokenRefusedError || err instanceof TokenUnavailableError) throw conflictError(`no token for the connection: ${err.message}`);
  if (err instanceof ThrottledError) throw conflictError(`${err.message}; try again later`);
  if (err instanceof VendorHttpError || err instanceof VendorAnswerError || err instanceof VendorCallError) throw conflictError(`the set-up stopped: ${err.message}`);
  throw err;
}

export async function setUpEventhouse(ctx: AppContext, orgId: string, tenantRef: string, input: SetupInput): Promise<SetupResult> {
  checkInput(input);
  const tenant = await loadTenant(ctx.db, orgId, tenantRef);
  const transport = createTransport(ctx, { timeoutMs: 30_000, maxResponseBytes: 8 * 1024 * 1024 });
  try {
    const { client } = clientForTenant(ctx, tenant, transport, 5 * 60_000);
    const setup = new Setup(client, input.workspaceId.toLowerCase());
    try {
      const eh = await setup.eventhouse(input.eventhouseId?.toLowerCase());
      await setup.database(eh.id);
      await setup.table(eh.queryUri);
      const capacityIds = await setup.capacities(input.capacityIds);
      const eventstreamId = await setup.eventstream(eh.id, capacityIds);
      const source: EventhouseSource = { queryUri: eh.queryUri, database: SETUP_NAMES.database, table: SETUP_NAMES.table };
      const saved = await updateTenant(ctx, orgId, tenantRef, { utilization: { eventhouse: source } }, { addressFromPlatform: true });
      return {
        outcome: setup.created.length > 0 ? 'created' : 'existing',
        created: setup.created,
        eventhouse: saved.utilization.eventhouse,
        eventstreamId,
        capacityIds,
        refusal: null,
      };
    } catch (err) {
      if (err instanceof Refused) {
        return {
          outcome: 'refused',
          created: setup.created,
          eventhouse: null,
          eventstreamId: null,
          capacityIds: [],
          refusal: { permission: err.permission, detail: err.detail, fix: REFUSALS[err.permission](input.workspaceId) },
        };
      }
      return platformFailure(err);
    }
  } finally {
    await transport.close();
  }
}
