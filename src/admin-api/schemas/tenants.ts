/** Tenant connections: response schemas of the admin API (index and rules in ../schemas.ts). */
import { str, nullableStr, instant, nullableInstant, int, bool, strings } from './common.js';
import { utilizationSchema } from './utilization.js';

const rotationSchema = {
  title: 'CollectorRotation',
  type: ['object', 'null'],
  description: 'For a collector that rotates through a large tenant: the last full rotation and the resources of its last run.',
  required: ['lastFullRotationSeconds', 'hot', 'cold'],
  properties: {
    lastFullRotationSeconds: { type: ['integer', 'null'], description: 'Seconds the last full rotation lasted; null until one completed after another.' },
    hot: { type: 'integer', description: 'Resources polled every run (scheduled, ran recently, or failing).' },
    cold: { type: 'integer', description: 'Resources taking turns.' },
  },
} as const;

const scanSchema = {
  title: 'ScanProgress',
  type: ['object', 'null'],
  description: "Admin mode's metadata scanning (the scanner collector): how much of the tenant it describes. Null before its first run (and in member mode, where it makes no call).",
  required: ['known', 'described', 'queued', 'pendingScans', 'lastIncrementalScanAt', 'lastFullScanAt', 'fullScanStartedAt'],
  properties: {
    known: { type: 'integer', description: 'Workspaces the modified-workspaces listings named.' },
    described: { type: 'integer', description: 'Of them, those a scan described; the others are read workspace by workspace, in turns.' },
    queued: { type: 'integer', description: 'Workspaces waiting for a scan.' },
    pendingScans: { type: 'integer', description: 'Scans asked for and not yet read.' },
    lastIncrementalScanAt: { ...nullableInstant, description: 'When the workspaces modified since the previous listing were last listed.' },
    lastFullScanAt: { ...nullableInstant, description: 'When the last full scan (every workspace) began; it had finished when this was set.' },
    fullScanStartedAt: { ...nullableInstant, description: 'When the full scan under way began; null when none is.' },
  },
} as const;

const collectorViewSchema = {
  title: 'CollectorView',
  type: 'object',
  required: ['name', 'enabled', 'intervalSeconds', 'defaultIntervalSeconds', 'lastRunAt', 'lastSuccessAt', 'nextRunAt', 'lastDurationMs', 'lastCalls', 'lastThrottledCalls', 'lastError', 'lastPolled', 'lastDeferred', 'running', 'rotation'],
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
    lastError: nullableStr,
    lastPolled: { type: ['integer', 'null'], description: 'Resources the last run read (collectors that read resources one by one; null for the others).' },
    lastDeferred: { type: ['integer', 'null'], description: 'Due resources the last run left for a later run; when this lasts, Tenant / CollectorBehind opens.' },
    running: bool,
    rotation: rotationSchema,
  },
} as const;

export const tenantSchema = {
  title: 'Tenant',
  type: 'object',
  required: ['id', 'name', 'tenantId', 'clientId', 'credentialType', 'credentialsSet', 'mode', 'workspaces', 'costScopes', 'endpoints', 'mirroringLag', 'utilization', 'pageFindingsAtConnection', 'createdAt', 'updatedAt', 'collectors', 'scan'],
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
    createdAt: instant,
    updatedAt: instant,
    collectors: { type: 'array', items: collectorViewSchema },
    scan: scanSchema,
  },
} as const;

export const tenantListSchema = { title: 'TenantList', type: 'object', required: ['value'], properties: { value: { type: 'array', items: tenantSchema } } } as const;

const bilingual = { title: 'BilingualText', type: 'object', required: ['pt-BR', 'en'], properties: { 'pt-BR': str, en: str } } as const;

export const checkResultSchema = {
  title: 'TenantCheck',
  type: 'object',
  required: ['ok', 'checks'],
  properties: {
    ok: bool,
    checks: {
      type: 'array',
      items: {
        title: 'TenantCheckItem',
        type: 'object',
        required: ['id', 'ok', 'title', 'fix'],
        properties: { id: str, ok: bool, audience: str, scope: str, workspaceId: str, title: bilingual, fix: { anyOf: [bilingual, { type: 'null' }] }, detail: str, cause: str },
      },
    },
  },
} as const;

export const runRequestedSchema = { title: 'RunRequested', type: 'object', required: ['nextRunAt'], properties: { nextRunAt: instant } } as const;
