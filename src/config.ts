/** Environment → typed configuration, validated once at start (CONTRACT §1). */

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
  /** Public API requests per key per minute (SPEC §8: 60). VIGIA_API_RATE_LIMIT. */
  apiRateLimitPerMinute?: number;
  /** Invalid-key attempts per address per minute before 429 (SPEC §8: 10). VIGIA_API_INVALID_KEY_LIMIT. */
  apiInvalidKeyLimitPerMinute?: number;
  /** Namespace of the rate-limit counters in Redis (default vigia:rl). VIGIA_RATE_LIMIT_PREFIX. */
  rateLimitPrefix?: string;
}

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
    adminToken: text(env, 'VIGIA_ADMIN_TOKEN'),
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
  };
}
