/** Tenant connections: response schemas of the admin API (index and rules in ../schemas.ts). */
import { str, nullableStr, instant, nullableInstant, int, bool, strings } from './common.js';
import { utilizationSchema } from './utilization.js';

const catalogRotationSchema = {
  title: 'CatalogRotation',
  type: 'object',
  description: "freshness only: its catalog's pass over the workspaces, read in slices (member mode, or admin mode without the scan).",
  required: ['lastFullRotationSeconds', 'hot', 'cold'],
  properties: {
    lastFullRotationSeconds: { type: ['integer', 'null'], description: 'Seconds the last full pass over the workspaces lasted; null until one completed after another.' },
    hot: { type: 'integer', description: 'Always 0: every workspace takes its turn.' },
    cold: { type: 'integer', description: 'Workspaces in the pass.' },
  },
} as const;

const rotationSchema = {
  title: 'CollectorRotation',
  type: ['object', 'null'],
  description: 'For a collector that rotates through a large tenant: the last full rotation and the resources of its last run.',
  required: ['lastFullRotationSeconds', 'hot', 'cold'],
  properties: {
    lastFullRotationSeconds: { type: ['integer', 'null'], description: 'Seconds the last full rotation lasted; null until one completed after another.' },
    hot: { type: 'integer', description: 'Resources polled every run (scheduled, ran recently, or failing).' },
    cold: { type: 'integer', description: 'Resources taking turns.' },
    catalog: catalogRotationSchema,
  },
} as const;

const scanSchema = {
  title: 'ScanProgress',
  type: ['object', 'null'],
  description: "Admin mode's metadata scanning (the scanner collector): how much of the tenant it describes. Null before its first run (and in member mode, where it makes no call).",
  required: ['known', 'described', 'queued', 'pendingScans', 'lastIncrementalScanAt', 'lastFullScanAt', 'fullScanStartedAt', 'failedWorkspaces'],
  properties: {
    known: { type: 'integer', description: 'Workspaces the modified-workspaces listings named.' },
    described: { type: 'integer', description: 'Of them, those a scan described; the others are read workspace by workspace, in turns.' },
    queued: { type: 'integer', description: 'Workspaces waiting for a scan.' },
    pendingScans: { type: 'integer', description: 'Scans asked for and not yet read.' },
    lastIncrementalScanAt: { ...nullableInstant, description: 'When the workspaces modified since the previous listing were last listed.' },
    lastFullScanAt: { ...nullableInstant, description: 'When the last full scan (every workspace) began; it had finished when this was set.' },
    fullScanStartedAt: { ...nullableInstant, description: 'When the full scan under way began; null when none is.' },
    failedWorkspaces: {
      type: 'array',
      items: { type: 'string' },
      description: 'Workspaces whose scan failed three times in a row: set aside so the full scan finishes, tried again by the next full scan.',
    },
  },
} as const;

const collectorViewSchema = {
  title: 'CollectorView',
  type: 'object',
  required: ['name', 'enabled', 'intervalSeconds', 'defaultIntervalSeconds', 'lastRunAt', 'lastSuccessAt', 'nextRunAt', 'lastDurationMs', 'lastCalls', 'lastThrottledCalls', 'lastError', 'lastErrorCode', 'lastErrorParams', 'lastErrorText', 'lastPolled', 'lastDeferred', 'lastRejected', 'lastRejectedNote', 'running', 'rotation', 'effectiveIntervalSeconds', 'effectiveIntervalNote'],
  properties: {
    name: str,
    enabled: bool,
    intervalSeconds: int,
    defaultIntervalSeconds: int,
    lastRunAt: nullableInstant,
    lastSuccessAt: nullableInstant,
    nextRunAt: nullableInstant,
    lastDurationMs: { type: ['integer', 'null'] },
    lastCalls: { type: ['integer', 'null'] },
    lastThrottledCalls: { type: ['integer', 'null'] },
    lastError: { ...nullableStr, description: 'The last run\'s failure in English, as it was said; null after a success.' },
    lastErrorCode: { ...nullableStr, description: 'The same failure as a code of the error catalog (token.refused, connection, http, throttled, budget, …; docs/monitoring.md, "Languages"); null for none.' },
    lastErrorParams: { type: ['object', 'null'], additionalProperties: { type: ['string', 'number'] }, description: 'The facts the code\'s text is written with (an AADSTS code, a status, a connection cause, …).' },
    lastErrorText: {
      anyOf: [{ title: 'CollectorErrorText', type: 'object', required: ['pt-BR', 'en'], properties: { 'pt-BR': str, en: str } }, { type: 'null' }],
      description: 'The failure in both languages, from the catalog: the console shows the one its reader chose.',
    },
    lastPolled: { type: ['integer', 'null'], description: 'Resources the last run read (collectors that read resources one by one; null for the others).' },
    lastDeferred: { type: ['integer', 'null'], description: 'Due resources the last run left for a later run; when this lasts, Tenant / CollectorBehind opens.' },
    lastRejected: { type: ['integer', 'null'], description: 'Rows the platform served that the last run skipped as unbelievable (a figure out of range, a malformed event); when this lasts, Tenant / PlatformDataRejected opens. Null for collectors that do not check rows.' },
    lastRejectedNote: { type: ['string', 'null'], description: 'Why the last run skipped rows (the first few reasons); null when none was skipped.' },
    running: bool,
    rotation: rotationSchema,
    effectiveIntervalSeconds: {
      type: 'integer',
      description:
        'The interval the collector runs at: intervalSeconds, or longer when its share of the hourly budget cannot pay, that often, for what is due every run (what its last run found). Being behind (Tenant / CollectorBehind) is measured against it.',
    },
    effectiveIntervalNote: { ...nullableStr, description: 'Why effectiveIntervalSeconds is longer than intervalSeconds; null when they are equal.' },
  },
} as const;

const apiBudgetSchema = {
  title: 'TenantApiBudget',
  type: 'object',
  required: ['key', 'family', 'endpoint', 'callsLastHour', 'cap', 'documentedCap', 'loweredUntil', 'lastThrottledAt'],
  properties: {
    key: { type: 'string', description: '`family`, or `family:endpoint` for an endpoint the platform caps per tenant.' },
    family: str,
    endpoint: { type: ['string', 'null'] },
    callsLastHour: { type: 'integer', description: 'Calls of the last 60 minutes, by every instance (and every connection of the same directory).' },
    cap: { type: 'integer', description: "Calls per hour Vigia allows itself now: its share of the documented cap (lowered for an hour after a 429), or for a family Vigia's own ceiling." },
    documentedCap: { type: ['integer', 'null'], description: "The platform's documented per-tenant cap; null for a family." },
    loweredUntil: { type: ['string', 'null'], format: 'date-time', description: 'A 429 lowered the cap until then.' },
    lastThrottledAt: { type: ['string', 'null'], format: 'date-time', description: 'The last 429 on this endpoint.' },
  },
} as const;

const bilingual = { title: 'BilingualText', type: 'object', required: ['pt-BR', 'en'], properties: { 'pt-BR': str, en: str } } as const;

export const checkResultSchema = {
  title: 'TenantCheck',
  type: 'object',
  required: ['ok', 'checks', 'fixes'],
  properties: {
    ok: { type: 'boolean', description: 'Every item is ok, or advisory.' },
    fixes: {
      type: 'array',
      description: 'The failed items\' fixes grouped: each fix once, with the items it covers (id, then scope or workspace id when the item has one).',
      items: { title: 'TenantCheckFix', type: 'object', required: ['fix', 'items'], properties: { fix: bilingual, items: { type: 'array', items: str } } },
    },
    checks: {
      type: 'array',
      items: {
        title: 'TenantCheckItem',
        type: 'object',
        required: ['id', 'ok', 'title', 'fix'],
        properties: {
          id: str, ok: bool, audience: str, scope: str, workspaceId: str, title: bilingual, fix: { anyOf: [bilingual, { type: 'null' }] }, detail: str,
          detailText: bilingual,
          cause: str,
          advisory: { type: 'boolean', description: "true: what the connection cannot do by its mode (member mode cannot read the activity log), with the fix; it does not make `ok` false." },
        },
      },
    },
  },
} as const;

export const tenantSchema = {
  title: 'Tenant',
  type: 'object',
  required: ['id', 'name', 'tenantId', 'clientId', 'credentialType', 'credentialsSet', 'mode', 'workspaces', 'costScopes', 'endpoints', 'mirroringLag', 'utilization', 'pageFindingsAtConnection', 'capSharePercent', 'changeRetentionDays', 'changeLookbackMinutes', 'createdAt', 'updatedAt', 'collectors', 'apiBudget', 'scan'],
  properties: {
    id: str,
    name: str,
    tenantId: str,
    clientId: str,
    credentialType: { type: 'string', enum: ['secret', 'certificate'] },
    credentialsSet: { type: 'boolean', description: 'Always true: credentials are write-only.' },
    mode: { type: 'string', enum: ['admin', 'member'] },
    workspaces: { type: ['array', 'null'], items: str },
    costScopes: strings,
    endpoints: {
      title: 'TenantEndpoints',
      type: 'object',
      required: ['authorityHost', 'powerBi', 'fabric', 'arm'],
      properties: { authorityHost: str, powerBi: str, fabric: str, arm: str },
    },
    mirroringLag: {
      title: 'MirroringLag',
      type: 'object',
      description: 'Replication lag over `infoSeconds` opens an info incident, over `errorSeconds` an error one.',
      required: ['infoSeconds', 'errorSeconds'],
      properties: { infoSeconds: int, errorSeconds: int },
    },
    utilization: utilizationSchema,
    pageFindingsAtConnection: {
      type: 'boolean',
      description: 'false (default): what the first pass of each collector finds at connection opens silenced ("found at connection") and one TenantConnected incident sums it up; true: those findings page like any failure.',
    },
    capSharePercent: {
      type: 'integer',
      minimum: 1,
      maximum: 100,
      description: "Vigia's share, in percent, of each cap the platform documents per tenant (admin endpoints such as Power BI admin groups 50/h or refreshables 200/h); the rest is left to the customer's other tools. Default 50.",
    },
    changeRetentionDays: {
      type: 'integer',
      minimum: 1,
      maximum: 400,
      description: 'Days of changes read from the activity log (the `activity` collector, admin mode) that Vigia keeps; default 30, what the log itself keeps.',
    },
    changeLookbackMinutes: {
      type: 'integer',
      minimum: 10,
      maximum: 10080,
      description: 'How far back before an incident opened the join of changes to incidents looks, in minutes; default 1440 (24 h). Set with PATCH.',
    },
    createdAt: instant,
    updatedAt: instant,
    collectors: { type: 'array', items: collectorViewSchema },
    apiBudget: { type: 'array', items: apiBudgetSchema, description: 'Calls of the last hour against each cap Vigia keeps: every API family, and each endpoint capped per tenant that was called or throttled in the last hour.' },
    scan: scanSchema,
    credentialCheck: {
      ...checkResultSchema,
      title: 'TenantSignInCheck',
      description:
        "Only in the answer of a save that sets credentials (POST, and PATCH with `credentials`): what the token endpoint said when asked for one token at once. The connection is saved whatever it says; `ok: false` names the refusal (or the connection failure) and its fix.",
    },
  },
} as const;

export const tenantListSchema = { title: 'TenantList', type: 'object', required: ['value'], properties: { value: { type: 'array', items: tenantSchema } } } as const;

export const runRequestedSchema = { title: 'RunRequested', type: 'object', required: ['nextRunAt'], properties: { nextRunAt: instant } } as const;
