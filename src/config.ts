/** Environment → typed configuration, validated once at start (docs/configuration.md). */
import { isIP } from 'node:net';
import { loadSmtpConfig, SmtpConfigError, type SmtpConfig } from './config-smtp.js';

export interface Config {
  port: number;
  host: string;
  baseUrl: string;
  databaseUrl: string | undefined;
  /** Optional streaming replica for the public API's reads (key checks stay on the primary). */
  databaseReadUrl: string | undefined;
  /** A replica further behind than this is skipped (reads go to the primary). */
  readMaxLagSeconds: number;
  dataDir: string;
  adminToken: string | undefined;
  secretKey: string | undefined;
  redisUrl: string | undefined;
  retryScheduleMs: number[];
  /** VIGIA_AUTO_DISABLE_AFTER: how long a run of failures must last before the destination is disabled; null = never. */
  autoDisableAfterMs: number | null;
  deliveryTimeoutMs: number;
  cycleSeconds: number;
  orgCapPerCycle: number;
  destinationAllowlist: string[];
  logLevel: string;
  /** Public API requests per key per minute (default 60). VIGIA_API_RATE_LIMIT. */
  apiRateLimitPerMinute?: number;
  /** Invalid-key attempts per address per minute before 429 (default 10). VIGIA_API_INVALID_KEY_LIMIT. */
  apiInvalidKeyLimitPerMinute?: number;
  /** Namespace of the rate-limit counters in Redis (default vigia:rl). VIGIA_RATE_LIMIT_PREFIX. */
  rateLimitPrefix?: string;
  /**
   * Which peers may set the client address through X-Forwarded-For (Fastify's trustProxy):
   * false (default: the TCP peer is the client), a hop count, or addresses/CIDRs. VIGIA_TRUST_PROXY.
   */
  trustProxy?: TrustProxy;
  /** When set, GET /metrics is served on this port only (not on PORT). VIGIA_METRICS_PORT. */
  metricsPort?: number;
  /** Time a client has to send a whole request, headers and body. VIGIA_REQUEST_TIMEOUT_MS. */
  requestTimeoutMs?: number;
  /** Failed admin-token attempts per address per minute before 429. VIGIA_ADMIN_AUTH_FAILURE_LIMIT. */
  adminAuthFailureLimitPerMinute?: number;
  /** OpenID Connect sign-in (docs/access.md); absent = sign-in with the instance admin token only. */
  oidc?: OidcConfig;
  /** Console session lifetimes: idle (VIGIA_SESSION_IDLE, default 1h) and absolute (VIGIA_SESSION_MAX, default 12h). */
  sessionIdleMs?: number;
  sessionMaxMs?: number;
  /** The SMTP relay of `email` destinations (config-smtp.ts); absent = VIGIA_SMTP_URL unset. */
  smtp?: SmtpConfig;
}

export interface OidcConfig {
  issuer: string;
  clientId: string;
  clientSecret: string;
  /** VIGIA_OIDC_ROLE_MAP: identity-provider group or role value → (organization, role). */
  roleMap: Array<{ claimValue: string; orgId: string; role: 'owner' | 'operator' | 'viewer' }>;
}

/**
 * "group-a=org_1:owner, group-b=org_2:viewer" → entries. A claim value (Entra ID: a group's
 * object id or an app role's value) may appear on several entries.
 */
export function parseRoleMap(text: string): OidcConfig['roleMap'] {
  const out: OidcConfig['roleMap'] = [];
  for (const part of text.split(',').map((p) => p.trim()).filter(Boolean)) {
    const m = /^([^=]+)=([^:]+):(owner|operator|viewer)$/.exec(part);
    if (!m) throw new ConfigError(`VIGIA_OIDC_ROLE_MAP: "${part}" is not like group=orgId:role (role owner, operator or viewer)`);
    out.push({ claimValue: m[1]!.trim(), orgId: m[2]!.trim(), role: m[3] as 'owner' | 'operator' | 'viewer' });
  }
  return out;
}

function loadOidc(env: NodeJS.ProcessEnv): OidcConfig | undefined {
  const issuer = text(env, 'VIGIA_OIDC_ISSUER');
  const clientId = text(env, 'VIGIA_OIDC_CLIENT_ID');
  const clientSecret = text(env, 'VIGIA_OIDC_CLIENT_SECRET');
  if (issuer === undefined && clientId === undefined && clientSecret === undefined) return undefined;
  if (issuer === undefined || clientId === undefined || clientSecret === undefined) {
    throw new ConfigError('VIGIA_OIDC_ISSUER, VIGIA_OIDC_CLIENT_ID and VIGIA_OIDC_CLIENT_SECRET go together');
  }
  try {
    new URL(issuer);
  } catch {
    throw new ConfigError('VIGIA_OIDC_ISSUER must be an absolute URL');
  }
  return { issuer, clientId, clientSecret, roleMap: parseRoleMap(text(env, 'VIGIA_OIDC_ROLE_MAP') ?? '') };
}

/** false: no proxy; a number: that many proxies in front; a list: the proxies' addresses or networks. */
export type TrustProxy = false | number | string[];

/** The shortest VIGIA_ADMIN_TOKEN accepted: a token anyone could guess would open every organization. */
export const MIN_ADMIN_TOKEN_LENGTH = 32;

export class ConfigError extends Error {}

const DURATION = /^(\d+(?:\.\d+)?)(ms|s|m|h|d)$/;
const UNIT_MS: Record<string, number> = { ms: 1, s: 1000, m: 60_000, h: 3_600_000, d: 86_400_000 };

function parseDuration(name: string, part: string): number {
  const m = DURATION.exec(part);
  if (!m) throw new ConfigError(`${name}: "${part}" is not a duration like 30s, 5m or 2h`);
  return Math.round(Number(m[1]) * UNIT_MS[m[2]!]!);
}

/** "24h" → 86400000; "off" → null (the automatic disabling rule is off). */
export function parseAutoDisableAfter(text: string): number | null {
  if (text.trim() === 'off') return null;
  return parseDuration('VIGIA_AUTO_DISABLE_AFTER', text.trim());
}

/** "1m,5m,30m,2h" → [60000, 300000, 1800000, 7200000]. */
export function parseRetrySchedule(text: string): number[] {
  const parts = text.split(',').map((p) => p.trim()).filter(Boolean);
  if (parts.length === 0) throw new ConfigError('VIGIA_RETRY_SCHEDULE must list at least one wait');
  return parts.map((part) => parseDuration('VIGIA_RETRY_SCHEDULE', part));
}

function int(env: NodeJS.ProcessEnv, name: string, fallback: number, min: number, max: number): number {
  const raw = env[name];
  if (raw === undefined || raw === '') return fallback;
  const n = Number(raw);
  if (!Number.isInteger(n) || n < min || n > max) {
    throw new ConfigError(`${name} must be an integer from ${min} to ${max}`);
  }
  return n;
}

function text(env: NodeJS.ProcessEnv, name: string): string | undefined {
  const v = env[name];
  return v === undefined || v === '' ? undefined : v;
}

// proxy-addr's names for well-known ranges, which Fastify's trustProxy also accepts.
const NAMED_RANGES = new Set(['loopback', 'linklocal', 'uniquelocal']);

function isAddressOrNetwork(entry: string): boolean {
  if (NAMED_RANGES.has(entry)) return true;
  const slash = entry.indexOf('/');
  const address = slash < 0 ? entry : entry.slice(0, slash);
  const family = isIP(address);
  if (family === 0) return false;
  if (slash < 0) return true;
  const mask = entry.slice(slash + 1);
  if (/^\d{1,3}$/.test(mask)) return Number(mask) <= (family === 4 ? 32 : 128);
  // An IPv4 netmask (255.255.0.0) is accepted for IPv4 addresses, as proxy-addr does.
  return family === 4 && isIP(mask) === 4;
}

/**
 * VIGIA_TRUST_PROXY: unset, "off" or "false" → false; a whole number → that many proxy hops;
 * otherwise a comma list of addresses, CIDRs or loopback/linklocal/uniquelocal. "true" (trust any
 * peer) is refused: anyone reaching the port directly could then choose their address.
 */
export function parseTrustProxy(raw: string | undefined): TrustProxy {
  const value = raw?.trim() ?? '';
  if (value === '' || value === 'off' || value === 'false') return false;
  if (/^\d+$/.test(value)) {
    const hops = Number(value);
    if (hops < 1 || hops > 100) throw new ConfigError('VIGIA_TRUST_PROXY: a hop count must be from 1 to 100');
    return hops;
  }
  const entries = value.split(',').map((e) => e.trim()).filter(Boolean);
  const bad = entries.filter((e) => !isAddressOrNetwork(e));
  if (entries.length === 0 || bad.length > 0) {
    throw new ConfigError(
      `VIGIA_TRUST_PROXY: ${bad.length > 0 ? `"${bad[0]}" is not` : 'give'} a proxy hop count or a comma list of addresses/CIDRs (e.g. 1, or 10.0.0.5,10.1.0.0/16, or loopback)`,
    );
  }
  return entries;
}

const LOOPBACK_OR_ANY = new Set(['127.0.0.1', '::1', 'localhost', '0.0.0.0', '::']);

/**
 * The address users and receivers see when VIGIA_BASE_URL is unset: where this process listens,
 * with `localhost` for a loopback (or all-interfaces) bind so links open in a browser.
 */
export function defaultBaseUrl(host: string, port: number): string {
  const name = LOOPBACK_OR_ANY.has(host) || host.startsWith('127.') ? 'localhost' : host.includes(':') ? `[${host}]` : host;
  return `http://${name}:${port}`;
}

export function loadConfig(env: NodeJS.ProcessEnv = process.env): Config {
  const port = int(env, 'PORT', 8080, 0, 65535);
  const host = text(env, 'HOST') ?? '127.0.0.1';
  const baseUrl = (text(env, 'VIGIA_BASE_URL') ?? defaultBaseUrl(host, port)).replace(/\/+$/, '');
  try {
    new URL(baseUrl);
  } catch {
    throw new ConfigError('VIGIA_BASE_URL must be an absolute URL');
  }
  const secretKey = text(env, 'VIGIA_SECRET_KEY');
  if (secretKey !== undefined && Buffer.from(secretKey, 'base64').length !== 32) {
    throw new ConfigError('VIGIA_SECRET_KEY must be base64 of exactly 32 bytes');
  }
  const adminToken = text(env, 'VIGIA_ADMIN_TOKEN');
  if (adminToken !== undefined && adminToken.length < MIN_ADMIN_TOKEN_LENGTH) {
    throw new ConfigError(
      `VIGIA_ADMIN_TOKEN must be at least ${MIN_ADMIN_TOKEN_LENGTH} characters (it is ${adminToken.length}); generate one with: openssl rand -base64 32`,
    );
  }
  const metricsPort = env.VIGIA_METRICS_PORT === undefined || env.VIGIA_METRICS_PORT === '' ? undefined : int(env, 'VIGIA_METRICS_PORT', 0, 0, 65535);
  if (metricsPort !== undefined && metricsPort !== 0 && metricsPort === port) {
    throw new ConfigError('VIGIA_METRICS_PORT must differ from PORT (unset it to serve /metrics on PORT)');
  }
  const databaseUrl = text(env, 'DATABASE_URL');
  const databaseReadUrl = text(env, 'DATABASE_READ_URL');
  if (databaseReadUrl !== undefined && databaseUrl === undefined) {
    throw new ConfigError('DATABASE_READ_URL (a read replica) needs DATABASE_URL (its primary)');
  }
  return {
    port,
    host,
    baseUrl,
    databaseUrl,
    databaseReadUrl,
    readMaxLagSeconds: int(env, 'VIGIA_READ_MAX_LAG_SECONDS', 10, 1, 86_400),
    dataDir: text(env, 'VIGIA_DATA_DIR') ?? './data',
    adminToken,
    secretKey,
    redisUrl: text(env, 'REDIS_URL'),
    retryScheduleMs: parseRetrySchedule(text(env, 'VIGIA_RETRY_SCHEDULE') ?? '1m,5m,30m,2h'),
    autoDisableAfterMs: parseAutoDisableAfter(text(env, 'VIGIA_AUTO_DISABLE_AFTER') ?? '24h'),
    deliveryTimeoutMs: int(env, 'VIGIA_DELIVERY_TIMEOUT_MS', 10_000, 1, 600_000),
    cycleSeconds: int(env, 'VIGIA_CYCLE_SECONDS', 60, 1, 86_400),
    orgCapPerCycle: int(env, 'VIGIA_ORG_CAP_PER_CYCLE', 1000, 1, 10_000_000),
    destinationAllowlist: (text(env, 'VIGIA_DESTINATION_ALLOWLIST') ?? '')
      .split(',')
      .map((s) => s.trim())
      .filter(Boolean),
    logLevel: text(env, 'VIGIA_LOG_LEVEL') ?? 'info',
    apiRateLimitPerMinute: int(env, 'VIGIA_API_RATE_LIMIT', 60, 1, 10_000_000),
    apiInvalidKeyLimitPerMinute: int(env, 'VIGIA_API_INVALID_KEY_LIMIT', 10, 1, 10_000_000),
    rateLimitPrefix: text(env, 'VIGIA_RATE_LIMIT_PREFIX') ?? 'vigia:rl',
    trustProxy: parseTrustProxy(env.VIGIA_TRUST_PROXY),
    metricsPort,
    requestTimeoutMs: int(env, 'VIGIA_REQUEST_TIMEOUT_MS', 30_000, 1_000, 3_600_000),
    adminAuthFailureLimitPerMinute: int(env, 'VIGIA_ADMIN_AUTH_FAILURE_LIMIT', 10, 1, 10_000_000),
    oidc: loadOidc(env),
    sessionIdleMs: parseDuration('VIGIA_SESSION_IDLE', text(env, 'VIGIA_SESSION_IDLE') ?? '1h'),
    sessionMaxMs: parseDuration('VIGIA_SESSION_MAX', text(env, 'VIGIA_SESSION_MAX') ?? '12h'),
    smtp: smtpConfig(env),
  };
}

function smtpConfig(env: NodeJS.ProcessEnv): SmtpConfig | undefined {
  try {
    return loadSmtpConfig(env);
  } catch (err) {
    if (err instanceof SmtpConfigError) throw new ConfigError(err.message);
    throw err;
  }
}
