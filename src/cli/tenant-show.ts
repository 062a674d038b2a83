/**
 * What `vigia tenants list|show` print, in English or Portuguese (`--lang pt-BR`): every label,
 * state and unit of a connection and its collectors. A collector's error comes from the server in
 * both languages (the error catalog, src/monitoring/messages/errors.ts); an error stored before
 * the catalog has only its English text, shown as stored.
 */
import type { Texts } from '../monitoring/messages/fixes.js';
import type { CliLang } from './tenant-texts.js';

export interface CollectorView {
  name: string;
  enabled: boolean;
  intervalSeconds: number;
  /** The interval the collector's budget lets it run at (≥ intervalSeconds). */
  effectiveIntervalSeconds?: number;
  lastRunAt: string | null;
  nextRunAt: string | null;
  lastCalls: number | null;
  lastError: string | null;
  lastErrorText?: Texts | null;
  running: boolean;
  rotation?: RotationView | null;
}

export interface RotationView {
  lastFullRotationSeconds: number | null;
  hot: number;
  cold: number;
}

export interface ScanView {
  known: number;
  described: number;
  queued: number;
  lastIncrementalScanAt: string | null;
  lastFullScanAt: string | null;
}

export interface TenantView {
  id: string;
  name: string;
  tenantId: string;
  clientId: string;
  credentialType: string;
  mode: string;
  workspaces: string[] | null;
  costScopes: string[];
  endpoints: Record<string, string>;
  collectors: CollectorView[];
  scan?: ScanView | null;
}

const WORDS = {
  en: {
    noTenants: 'no tenant connections',
    tenant: 'tenant',
    client: 'client',
    collectors: 'collectors',
    none: 'none',
    failing: 'failing',
    mode: (m: string) => `${m} mode`,
    modeWord: (m: string) => m,
    credential: (c: string) => c,
    workspaces: 'workspaces',
    costScopes: 'cost scopes',
    endpoints: 'endpoints',
    off: 'off',
    every: (s: number) => `every ${s} s`,
    runsEvery: (s: number, asked: number) => `runs every ${s} s (asked: ${asked} s; the call budget pays no more)`,
    running: 'running',
    lastRun: (at: string | null) => `last run ${at ?? 'never'}`,
    next: (at: string | null) => `next ${at ?? '—'}`,
    calls: (n: number) => `${n} calls`,
    error: 'error',
    rotationCounts: (hot: number, cold: number) => `(${hot} hot, ${cold} cold)`,
    rotationEveryRun: 'rotation: every run',
    rotationPending: 'rotation: first full rotation not completed yet',
    rotationFull: (s: number) => `rotation: full every ${s} s`,
    scan: (s: ScanView) => `scan: ${s.described} of ${s.known} workspaces described, ${s.queued} queued`,
    lastIncremental: (at: string | null) => `last incremental ${at ?? 'never'}`,
    lastFull: (at: string | null) => `last full ${at ?? 'never'}`,
  },
  'pt-BR': {
    noTenants: 'nenhuma conexão de tenant',
    tenant: 'tenant',
    client: 'cliente',
    collectors: 'coletores',
    none: 'nenhum',
    failing: 'falhando',
    mode: (m: string) => `modo ${m === 'member' ? 'membro' : m}`,
    modeWord: (m: string) => (m === 'member' ? 'membro' : m),
    credential: (c: string) => (c === 'secret' ? 'segredo' : c === 'certificate' ? 'certificado' : c),
    workspaces: 'workspaces',
    costScopes: 'escopos de custo',
    endpoints: 'endpoints',
    off: 'desligado',
    every: (s: number) => `a cada ${s} s`,
    runsEvery: (s: number, asked: number) => `roda a cada ${s} s (pedido: ${asked} s; a cota não paga mais)`,
    running: 'executando',
    lastRun: (at: string | null) => `última execução ${at ?? 'nunca'}`,
    next: (at: string | null) => `próxima ${at ?? '—'}`,
    calls: (n: number) => `${n} ${n === 1 ? 'chamada' : 'chamadas'}`,
    error: 'erro',
    rotationCounts: (hot: number, cold: number) => `(${hot} ${hot === 1 ? 'quente' : 'quentes'}, ${cold} ${cold === 1 ? 'frio' : 'frios'})`,
    rotationEveryRun: 'rodízio: tudo a cada execução',
    rotationPending: 'rodízio: o primeiro rodízio completo ainda não terminou',
    rotationFull: (s: number) => `rodízio: completo a cada ${s} s`,
    scan: (s: ScanView) => `varredura: ${s.described} de ${s.known} workspaces descritos, ${s.queued} na fila`,
    lastIncremental: (at: string | null) => `última incremental ${at ?? 'nunca'}`,
    lastFull: (at: string | null) => `última completa ${at ?? 'nunca'}`,
  },
} as const;

/**
 * How a rotating collector gets through the tenant, said in words: with nothing taking turns,
 * every resource is polled every run (there is no rotation to time); otherwise the seconds of the
 * last full rotation, or that the first one has not completed yet.
 */
export function rotationText(r: RotationView, lang: CliLang = 'en'): string {
  const w = WORDS[lang];
  const counts = w.rotationCounts(r.hot, r.cold);
  if (r.cold === 0) return `${w.rotationEveryRun} ${counts}`;
  if (r.lastFullRotationSeconds === null) return `${w.rotationPending} ${counts}`;
  return `${w.rotationFull(r.lastFullRotationSeconds)} ${counts}`;
}

/** Admin mode's metadata scanning, in words: how much of the tenant it describes and when it ran. */
export function scanText(s: ScanView, lang: CliLang = 'en'): string {
  const w = WORDS[lang];
  return `${w.scan(s)} · ${w.lastIncremental(s.lastIncrementalScanAt)} · ${w.lastFull(s.lastFullScanAt)}`;
}

function errorText(c: CollectorView, lang: CliLang): string | null {
  if (c.lastErrorText) return c.lastErrorText[lang];
  return c.lastError;
}

export function describeCollector(c: CollectorView, lang: CliLang = 'en'): string {
  const w = WORDS[lang];
  if (!c.enabled) return `${c.name.padEnd(12)} ${w.off}`;
  const effective = c.effectiveIntervalSeconds ?? c.intervalSeconds;
  const error = errorText(c, lang);
  const parts = [
    effective > c.intervalSeconds ? w.runsEvery(effective, c.intervalSeconds) : w.every(c.intervalSeconds),
    c.running ? w.running : w.lastRun(c.lastRunAt),
    w.next(c.nextRunAt),
    ...(c.lastCalls === null ? [] : [w.calls(c.lastCalls)]),
    ...(c.rotation ? [rotationText(c.rotation, lang)] : []),
    ...(error ? [`${w.error}: ${error}`] : []),
  ];
  return `${c.name.padEnd(12)} ${parts.join(' · ')}`;
}

/** One line per connection: id, name, mode, tenant, the enabled collectors and those failing. */
export function listLines(value: readonly TenantView[], lang: CliLang = 'en'): string[] {
  const w = WORDS[lang];
  if (value.length === 0) return [w.noTenants];
  return value.map((t) => {
    const failing = t.collectors.filter((c) => c.enabled && c.lastError).map((c) => c.name);
    const enabled = t.collectors.filter((c) => c.enabled).map((c) => c.name);
    return `${t.id}  ${t.name}  ${w.modeWord(t.mode)}  ${w.tenant} ${t.tenantId}  ${w.collectors}: ${enabled.join(', ') || w.none}${failing.length ? `  ${w.failing}: ${failing.join(', ')}` : ''}`;
  });
}

/** A connection and each collector's state. */
export function showLines(t: TenantView, lang: CliLang = 'en'): string[] {
  const w = WORDS[lang];
  return [
    `${t.name} (${t.id})`,
    `  ${w.tenant} ${t.tenantId} · ${w.client} ${t.clientId} · ${w.credential(t.credentialType)} · ${w.mode(t.mode)}`,
    ...(t.workspaces ? [`  ${w.workspaces}: ${t.workspaces.join(', ')}`] : []),
    ...(t.costScopes.length ? [`  ${w.costScopes}: ${t.costScopes.join(', ')}`] : []),
    `  ${w.endpoints}: ${Object.entries(t.endpoints).map(([k, v]) => `${k}=${v}`).join(' ')}`,
    ...t.collectors.map((c) => `  ${describeCollector(c, lang)}`),
    ...(t.scan ? [`  ${scanText(t.scan, lang)}`] : []),
  ];
}
