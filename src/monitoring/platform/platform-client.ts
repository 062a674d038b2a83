/**
 * Calls to Power BI, Fabric, ARM and Cost Management for one tenant connection, with the
 * platform's rules: a token per audience, one unit of the shared hourly budget per call, 429
 * waited out (Retry-After; for Cost Management the largest x-ms-ratelimit-…-retry-after) except on
 * an endpoint the platform caps per tenant, where Vigia takes only its share of the cap and a 429
 * lowers its pace there for the hour instead of being retried (budget.ts), paging
 * (Fabric continuationToken/continuationUri, Power BI $top/$skip, ARM and Cost Management
 * nextLink — Cost Management POSTs the same body again), long-running operations (202, Location,
 * Retry-After, then /result), and every call through the transport's time and size limits.
 * Links the platform returns are followed only on the origin they came from, so a bearer token
 * never leaves for another host.
 */
import type { Database } from '../../db/index.js';
import { DEFAULT_CAP_SHARE_PERCENT, HOURLY_CAPS, recordThrottle, sharedCap, takeCall, takeKey, tenantWideCapOf, type ApiFamily } from './budget.js';
import { allowedPerHour } from './budget-view.js';
import type { Audience, TenantEndpoints } from '../connection/endpoints.js';
import type { TenantTokens } from './tokens.js';
import type { Transport, VendorResponse } from './transport.js';

export interface RunStats {
  calls: number;
  throttledCalls: number;
}

/** The platform answered with an error status (after any retries). */
export class VendorHttpError extends Error {
  constructor(
    readonly status: number,
    readonly family: ApiFamily,
    readonly code: string | null,
    what: string,
    /** The vendor's own words (its message and inner error code), bounded: kept in `lastError`. */
    readonly vendorText: string | null = null,
  ) {
    super(`${what} answered ${status}${code ? ` ${code}` : ''}${vendorText ? `: ${vendorText}` : ''}`);
    this.name = 'VendorHttpError';
  }
}

/**
 * The platform refused this one resource to us: skip it, the run goes on. 403, and 404 when it is
 * gone; 401 only from Power BI, which answers 401 for a workspace the principal is not a member
 * of — a Fabric 401 is about our token, not the resource, and fails the run (self-watch reports it).
 * The one rule every collector uses to skip a resource.
 */
export function isResourceRefusal(err: unknown): err is VendorHttpError {
  if (!(err instanceof VendorHttpError)) return false;
  if (err.status === 403 || err.status === 404) return true;
  return err.status === 401 && (err.family === 'powerbi' || err.family === 'powerbi-admin');
}

/** The platform's answer could not be used (not JSON, wrong shape, a link to another origin). */
export class VendorAnswerError extends Error {
  constructor(message: string) {
    super(message);
    this.name = 'VendorAnswerError';
  }
}

/** Still throttled when the run's time was up (or after the retries). */
export class ThrottledError extends Error {
  constructor(readonly family: ApiFamily, what: string) {
    super(`${what} stayed throttled (429) past the run's time limit`);
    this.name = 'ThrottledError';
  }
}

/**
 * A per-tenant capped endpoint answered 429: the tenant's whole cap is spent (by every tool of the
 * customer), so the call is given up, not retried, and Vigia's cap there is lowered until the
 * platform's Retry-After (an hour when it names none).
 */
export class EndpointThrottledError extends ThrottledError {
  constructor(
    family: ApiFamily,
    readonly endpoint: string,
    what: string,
    readonly loweredCap: number,
    readonly loweredUntil: Date,
  ) {
    super(family, what);
    this.message = `${what} answered 429: the tenant's hourly cap of ${endpoint} is spent; Vigia lowered its own pace there to ${loweredCap} calls an hour until ${loweredUntil.toISOString()} and did not retry`;
    this.name = 'EndpointThrottledError';
  }
}

export interface CallSpec {
  family: ApiFamily;
  audience: Audience;
  method?: 'GET' | 'POST';
  url: string;
  body?: unknown;
}

export interface PlatformClientDeps {
  db: Database;
  now: () => Date;
  transport: Transport;
  tokens: Pick<TenantTokens, 'get'>;
  directoryId: string;
  endpoints: TenantEndpoints;
  stats: RunStats;
  /** Epoch ms after which no wait starts (the run's time limit). */
  deadline: number;
  caps?: Record<ApiFamily, number>;
  /** Vigia's share of each per-tenant cap, in percent (the connection's capSharePercent; default 50). */
  capSharePercent?: number;
  sleep?: (ms: number) => Promise<void>;
}

const MAX_THROTTLE_RETRIES = 8;
const MAX_SERVER_RETRIES = 2;
const DEFAULT_RETRY_AFTER_S = 5;
const LRO_MAX_POLLS = 60;
/** LongRunningOperationStatus of Fabric's description: Undefined, NotStarted, Running (still going), Succeeded, Failed. */
const LRO_PENDING = new Set(['Undefined', 'NotStarted', 'Running']);

const realSleep = (ms: number) => new Promise<void>((r) => setTimeout(r, ms));

/** Seconds to wait from a 429: Retry-After, or for Cost Management the largest of its headers. */
export function retryAfterSeconds(headers: Record<string, string>, now: Date): number {
  let best = -1;
  for (const [name, value] of Object.entries(headers)) {
    if (name === 'retry-after' || (name.startsWith('x-ms-ratelimit-') && name.endsWith('retry-after'))) {
      let s = Number(value);
      if (!Number.isFinite(s)) {
        const at = Date.parse(value);
        s = Number.isFinite(at) ? (at - now.getTime()) / 1000 : Number.NaN;
      }
      if (Number.isFinite(s) && s > best) best = s;
    }
  }
  return best < 0 ? DEFAULT_RETRY_AFTER_S : Math.max(0, best);
}

/** Whether a 429 says how long to wait (else the wait is Vigia's own default). */
function hasRetryAfter(headers: Record<string, string>): boolean {
  return Object.keys(headers).some((name) => name === 'retry-after' || (name.startsWith('x-ms-ratelimit-') && name.endsWith('retry-after')));
}

function describe(method: string, url: string): string {
  return `${method} ${new URL(url).pathname}`;
}

/** How much of the vendor's own error text is kept (lastError, incidents). */
export const VENDOR_TEXT_MAX = 300;

/** A vendor's words, one line, bounded. */
export function boundedText(v: unknown): string | null {
  if (typeof v !== 'string') return null;
  const t = v.replace(/[\u0000-\u001f\u007f]+/g, ' ').replace(/\s+/g, ' ').trim();
  return t ? (t.length > VENDOR_TEXT_MAX ? `${t.slice(0, VENDOR_TEXT_MAX - 1)}…` : t) : null;
}

/** The platform's error code (Fabric errorCode, Power BI / ARM / Kusto error.code) and its own text (message, Kusto's inner code such as SEM0100). */
function errorOf(body: Buffer): { code: string | null; text: string | null } {
  try {
    const j = JSON.parse(body.toString('utf8'));
    const code = j?.errorCode ?? j?.error?.code ?? j?.code;
    const inner = j?.error?.innererror?.code;
    const message = j?.error?.message ?? j?.message ?? j?.error?.['@message'];
    const text = boundedText([typeof inner === 'string' ? inner : '', typeof message === 'string' ? message : ''].join(' '));
    return { code: typeof code === 'string' ? code.replace(/[^\w.:-]/g, '').slice(0, 100) : null, text };
  } catch {
    return { code: null, text: null };
  }
}

export class PlatformClient {
  private readonly sleep: (ms: number) => Promise<void>;

  constructor(private readonly deps: PlatformClientDeps) {
    this.sleep = deps.sleep ?? realSleep;
  }

  /** Vendor calls this run made so far (retries and pages included): what a run budget charges. */
  get callsMade(): number {
    return this.deps.stats.calls;
  }

  /** Vigia's share of each per-tenant cap for this connection, in percent. */
  get capSharePercent(): number {
    return this.deps.capSharePercent ?? DEFAULT_CAP_SHARE_PERCENT;
  }

  /**
   * Calls per hour Vigia allows itself now on a budget key: for an endpoint capped per tenant
   * (`powerbi-admin:refreshables`) its share, lowered for the hour after a 429; for a family its
   * ceiling. What a run plans its CallBudget from.
   */
  allowedPerHour(key: string): Promise<number> {
    return allowedPerHour(this.deps.db, this.deps.directoryId, key, this.capSharePercent, this.deps.now(), this.deps.caps ?? HOURLY_CAPS);
  }

  get endpoints(): TenantEndpoints {
    return this.deps.endpoints;
  }

  fabric(path: string): string {
    return `${this.deps.endpoints.fabric}/v1${path}`;
  }

  powerBi(path: string): string {
    return `${this.deps.endpoints.powerBi}/v1.0/myorg${path}`;
  }

  arm(path: string): string {
    return `${this.deps.endpoints.arm}${path}`;
  }

  /** One call with its retries; resolves with a 2xx answer or throws. */
  async request(spec: CallSpec): Promise<VendorResponse> {
    const method = spec.method ?? 'GET';
    const what = describe(method, spec.url);
    let throttled = 0;
    let serverErrors = 0;
    const wide = tenantWideCapOf(spec.family, spec.url);
    const share = this.deps.capSharePercent ?? DEFAULT_CAP_SHARE_PERCENT;
    for (;;) {
      // The endpoint's share first: it is the cap that refuses most often, and a refusal there
      // takes nothing from the family. Two statements, not one: should the family refuse after,
      // the endpoint has counted one call more than was made (the safe side).
      if (wide) await takeKey(this.deps.db, this.deps.directoryId, wide.key, spec.family, sharedCap(wide.perHour, share), this.deps.now());
      await takeCall(this.deps.db, this.deps.directoryId, spec.family, this.deps.now(), this.deps.caps ?? HOURLY_CAPS);
      const token = await this.deps.tokens.get(spec.audience);
      this.deps.stats.calls++;
      const res = await this.deps.transport({
        method,
        url: spec.url,
        headers: {
          authorization: `Bearer ${token}`,
          accept: 'application/json',
          ...(spec.body !== undefined ? { 'content-type': 'application/json' } : {}),
        },
        body: spec.body !== undefined ? JSON.stringify(spec.body) : undefined,
      });
      if (res.status >= 200 && res.status < 300) return res;
      if (res.status === 429) {
        this.deps.stats.throttledCalls++;
        if (wide) {
          const told = hasRetryAfter(res.headers) ? retryAfterSeconds(res.headers, this.deps.now()) * 1000 : undefined;
          const lowered = await recordThrottle(this.deps.db, this.deps.directoryId, wide.key, sharedCap(wide.perHour, share), this.deps.now(), told);
          throw new EndpointThrottledError(spec.family, wide.key, what, lowered.loweredCap, lowered.loweredUntil);
        }
        const waitMs = retryAfterSeconds(res.headers, this.deps.now()) * 1000;
        if (++throttled > MAX_THROTTLE_RETRIES || Date.now() + waitMs > this.deps.deadline) throw new ThrottledError(spec.family, what);
        await this.sleep(waitMs);
        continue;
      }
      if (res.status >= 500 && ++serverErrors <= MAX_SERVER_RETRIES && Date.now() + 1000 * serverErrors < this.deps.deadline) {
        await this.sleep(1000 * serverErrors);
        continue;
      }
      const vendor = errorOf(res.body);
      throw new VendorHttpError(res.status, spec.family, vendor.code, what, vendor.text);
    }
  }

  /** A call whose 2xx answer is JSON (204 or an empty body is null). */
  async json<T>(spec: CallSpec): Promise<T | null> {
    return parseJson<T>(await this.request(spec), describe(spec.method ?? 'GET', spec.url));
  }

  /** Fabric list: `value` of each page, following continuationUri (or continuationToken). */
  async *fabricPages<T>(spec: CallSpec, arrayField = 'value'): AsyncGenerator<T[]> {
    let url: string | null = spec.url;
    while (url) {
      const page: Record<string, unknown> | null = await this.json<Record<string, unknown>>({ ...spec, url });
      yield arrayOf<T>(page, arrayField, url);
      const next: string | null = nextFabricUrl(url, page);
      url = next ? this.sameOrigin(next, url) : null;
    }
  }

  /** ARM / Cost Management list: follow nextLink; a POST sends the same body to it. */
  async *nextLinkPages<T>(spec: CallSpec, read: (page: Record<string, unknown>) => T[] = (p) => arrayOf<T>(p, 'value', spec.url)): AsyncGenerator<T[]> {
    let url: string | null = spec.url;
    while (url) {
      const page: Record<string, unknown> | null = await this.json<Record<string, unknown>>({ ...spec, url });
      if (page === null) return; // Cost Management: 204, no data (yet)
      yield read(page);
      const next: unknown = page.nextLink ?? (page.properties as Record<string, unknown> | undefined)?.nextLink;
      url = typeof next === 'string' && next ? this.sameOrigin(next, url) : null;
    }
  }

  /**
   * A Fabric call that may be long-running: 200/201 → its body; 202 → poll Location (or
   * /v1/operations/{id}) after Retry-After until Succeeded, then read /result.
   */
  async longRunning<T>(spec: CallSpec): Promise<T | null> {
    const first = await this.request(spec);
    if (first.status !== 202) return parseJson<T>(first, describe(spec.method ?? 'GET', spec.url));
    const opId = first.headers['x-ms-operation-id'];
    const location = first.headers.location
      ? this.sameOrigin(first.headers.location, spec.url)
      : opId
        ? this.fabric(`/operations/${encodeURIComponent(opId)}`)
        : null;
    if (!location) throw new VendorAnswerError(`${describe(spec.method ?? 'GET', spec.url)} answered 202 without Location`);
    let wait = retryAfterSeconds(first.headers, this.deps.now());
    for (let i = 0; i < LRO_MAX_POLLS; i++) {
      if (Date.now() + wait * 1000 > this.deps.deadline) throw new VendorAnswerError(`long-running operation ${describe('GET', location)} did not finish within the run's time limit`);
      await this.sleep(wait * 1000);
      const res = await this.request({ family: spec.family, audience: spec.audience, url: location });
      const state = parseJson<{ status?: string; error?: { errorCode?: string } }>(res, describe('GET', location));
      const status = state?.status ?? (res.status === 200 ? 'Succeeded' : 'Running');
      if (status === 'Succeeded') {
        const resultUrl = res.headers.location ? this.sameOrigin(res.headers.location, location) : `${location.replace(/\/$/, '')}/result`;
        return this.json<T>({ family: spec.family, audience: spec.audience, url: resultUrl });
      }
      if (status === 'Failed') throw new VendorAnswerError(`long-running operation failed${state?.error?.errorCode ? ` (${state.error.errorCode})` : ''}`);
      if (!LRO_PENDING.has(status)) throw new VendorAnswerError(`long-running operation answered the state "${String(status).slice(0, 40)}", which its description does not define`);
      wait = retryAfterSeconds(res.headers, this.deps.now());
    }
    throw new VendorAnswerError('long-running operation did not finish after 60 polls');
  }

  /** A link from the platform, allowed only on the origin of the call that returned it. */
  private sameOrigin(link: string, base: string): string {
    let url: URL;
    try {
      url = new URL(link, base);
    } catch {
      throw new VendorAnswerError(`${describe('GET', base)} returned a link that is not a URL`);
    }
    if (url.origin !== new URL(base).origin) throw new VendorAnswerError(`${describe('GET', base)} returned a link to another origin; not followed`);
    return url.toString();
  }
}

function parseJson<T>(res: VendorResponse, what: string): T | null {
  if (res.status === 204 || res.body.length === 0) return null;
  try {
    return JSON.parse(res.body.toString('utf8')) as T;
  } catch {
    throw new VendorAnswerError(`${what} answered ${res.status} with a body that is not JSON`);
  }
}

function arrayOf<T>(page: Record<string, unknown> | null, field: string, url: string): T[] {
  if (page === null) return [];
  const items = page[field];
  if (!Array.isArray(items)) throw new VendorAnswerError(`${describe('GET', url)} answered without a "${field}" array`);
  return items as T[];
}

function nextFabricUrl(url: string, page: Record<string, unknown> | null): string | null {
  if (!page) return null;
  if (typeof page.continuationUri === 'string' && page.continuationUri) return page.continuationUri;
  if (typeof page.continuationToken === 'string' && page.continuationToken) {
    const next = new URL(url);
    next.searchParams.set('continuationToken', page.continuationToken);
    return next.toString();
  }
  return null;
}


