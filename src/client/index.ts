/**
 * Typed client of the Vigia public API (/api/public/v1) with automatic paging: the `all*`
 * methods follow `nextLink` until it is empty. Works with any WHATWG fetch (Node 20's global
 * fetch by default). A 429 is retried after its Retry-After (at most `maxRateLimitRetries` times).
 */
import type { AlertItem } from '../public-api/queries/alerts.js';
import type { CapacityItem, WorkspaceItem } from '../public-api/queries/inventory.js';
import type { CostItem } from '../public-api/queries/costs.js';
import type { IncidentTotals } from '../public-api/queries/incident-summary.js';
import type { DurationStats, NoisySource, SourceTypeCount } from '../public-api/queries/metrics.js';
import type { SlaReport } from '../public-api/queries/sla.js';

export type { AlertItem, CapacityItem, WorkspaceItem, CostItem as DailyCostItem, DurationStats, NoisySource, SourceTypeCount, SlaReport };

export interface Page<T> {
  value: T[];
  page: number;
  pageSize: number;
  totalCount: number;
  nextLink: string;
}

export interface AlertMetrics {
  from: string;
  to: string;
  totals: IncidentTotals;
  mtta: DurationStats;
  mttr: DurationStats;
  bySourceType: SourceTypeCount[];
  noisiestSources: NoisySource[];
}

export interface PageQuery {
  page?: number;
  pageSize?: number;
}
export interface AlertsQuery extends PageQuery {
  /** ISO 8601 UTC, inclusive. A Date is sent as its ISO string. */
  from?: string | Date;
  /** ISO 8601 UTC, exclusive. */
  to?: string | Date;
  status?: 'open' | 'resolved';
  sourceType?: string;
}
export interface DayRangeQuery {
  /** yyyy-MM-dd, inclusive. */
  from?: string;
  /** yyyy-MM-dd, inclusive. */
  to?: string;
}
export interface DailyCostsQuery extends PageQuery, DayRangeQuery {
  currency?: string;
}

export type Scope = 'ReadAlerts' | 'ReadMetrics' | 'ReadCapacities' | 'ReadWorkspaces' | 'ReadCosts' | 'ReadSla';

/** A non-2xx answer, with the envelope's code and message. */
export class PublicApiError extends Error {
  constructor(
    readonly status: number,
    readonly code: string,
    message: string,
    readonly retryAfterSeconds?: number,
  ) {
    super(message);
    this.name = 'PublicApiError';
  }
}

export interface PublicApiClientOptions {
  /** The service address, e.g. https://vigia.example.com (the /api/public/v1 prefix is added). */
  baseUrl: string;
  apiKey: string;
  fetch?: typeof fetch;
  /** Retries of a 429 answer after Retry-After; default 2, 0 disables. */
  maxRateLimitRetries?: number;
  /** Upper bound of one Retry-After wait, in seconds; default 60. */
  maxRetryAfterSeconds?: number;
}

export interface RateLimitInfo {
  limit: number;
  remaining: number;
  resetSeconds: number;
}

const PREFIX = '/api/public/v1';

type QueryValue = string | number | Date | undefined;

function toQuery(q: Record<string, QueryValue> = {}): string {
  const qs = new URLSearchParams();
  for (const [k, v] of Object.entries(q)) {
    if (v === undefined) continue;
    qs.set(k, v instanceof Date ? v.toISOString() : String(v));
  }
  const s = qs.toString();
  return s ? `?${s}` : '';
}

export class PublicApiClient {
  private readonly base: string;
  private readonly fetchFn: typeof fetch;
  /** Rate-limit headers of the last answer. */
  lastRateLimit: RateLimitInfo | undefined;

  constructor(private readonly opts: PublicApiClientOptions) {
    this.base = opts.baseUrl.replace(/\/+$/, '');
    this.fetchFn = opts.fetch ?? fetch;
  }

  /** GETs a relative path (as in nextLink) and returns the raw Response after error handling. */
  private async request(pathAndQuery: string): Promise<Response> {
    if (!pathAndQuery.startsWith(`${PREFIX}/`)) throw new Error(`not a public-API path: ${pathAndQuery}`);
    const retries = this.opts.maxRateLimitRetries ?? 2;
    for (let attempt = 0; ; attempt++) {
      const res = await this.fetchFn(`${this.base}${pathAndQuery}`, {
        method: 'GET',
        headers: { 'x-api-key': this.opts.apiKey, accept: 'application/json, text/csv' },
      });
      const limit = res.headers.get('ratelimit-limit');
      if (limit !== null) {
        this.lastRateLimit = {
          limit: Number(limit),
          remaining: Number(res.headers.get('ratelimit-remaining')),
          resetSeconds: Number(res.headers.get('ratelimit-reset')),
        };
      }
      if (res.ok) return res;
      let code = 'http_error';
      let message = `HTTP ${res.status}`;
      try {
        const body = (await res.json()) as { error?: { code?: string; message?: string } };
        code = body.error?.code ?? code;
        message = body.error?.message ?? message;
      } catch {
        /* not the envelope: keep the generic text */
      }
      const retryAfter = res.headers.has('retry-after') ? Number(res.headers.get('retry-after')) : undefined;
      if (res.status === 429 && attempt < retries && retryAfter !== undefined && Number.isFinite(retryAfter)) {
        const wait = Math.min(Math.max(retryAfter, 0), this.opts.maxRetryAfterSeconds ?? 60);
        await new Promise((r) => setTimeout(r, wait * 1000));
        continue;
      }
      throw new PublicApiError(res.status, code, message, retryAfter);
    }
  }

  private async json<T>(pathAndQuery: string): Promise<T> {
    return (await (await this.request(pathAndQuery)).json()) as T;
  }

  /** Every page from the first one, following nextLink until it is empty. */
  async *pages<T>(path: string, query: Record<string, QueryValue> = {}): AsyncGenerator<Page<T>> {
    let next: string = `${PREFIX}${path}${toQuery(query)}`;
    while (next) {
      const page = await this.json<Page<T>>(next);
      yield page;
      next = page.nextLink;
    }
  }

  /** Every item of every page. */
  async *items<T>(path: string, query: Record<string, QueryValue> = {}): AsyncGenerator<T> {
    for await (const page of this.pages<T>(path, query)) yield* page.value;
  }

  alerts(q: AlertsQuery = {}): Promise<Page<AlertItem>> {
    return this.json(`${PREFIX}/alerts${toQuery({ ...q })}`);
  }
  allAlerts(q: Omit<AlertsQuery, 'page'> = {}): AsyncGenerator<AlertItem> {
    return this.items('/alerts', { ...q });
  }
  alertMetrics(q: DayRangeQuery = {}): Promise<AlertMetrics> {
    return this.json(`${PREFIX}/alerts/metrics${toQuery({ ...q })}`);
  }
  capacities(q: PageQuery = {}): Promise<Page<CapacityItem>> {
    return this.json(`${PREFIX}/capacities${toQuery({ ...q })}`);
  }
  allCapacities(q: Omit<PageQuery, 'page'> = {}): AsyncGenerator<CapacityItem> {
    return this.items('/capacities', { ...q });
  }
  workspaces(q: PageQuery = {}): Promise<Page<WorkspaceItem>> {
    return this.json(`${PREFIX}/workspaces${toQuery({ ...q })}`);
  }
  allWorkspaces(q: Omit<PageQuery, 'page'> = {}): AsyncGenerator<WorkspaceItem> {
    return this.items('/workspaces', { ...q });
  }
  dailyCosts(q: DailyCostsQuery = {}): Promise<Page<CostItem>> {
    return this.json(`${PREFIX}/costs/daily${toQuery({ ...q })}`);
  }
  allDailyCosts(q: Omit<DailyCostsQuery, 'page'> = {}): AsyncGenerator<CostItem> {
    return this.items('/costs/daily', { ...q });
  }
  sla(q: { month?: string } = {}): Promise<SlaReport> {
    return this.json(`${PREFIX}/sla${toQuery({ ...q })}`);
  }

  /** One page as CSV text (BOM included) with its paging headers. */
  async csv(
    resource: 'alerts' | 'capacities' | 'workspaces' | 'costs/daily',
    q: Record<string, QueryValue> = {},
  ): Promise<{ text: string; totalCount: number; page: number; pageSize: number; nextLink: string }> {
    const res = await this.request(`${PREFIX}/${resource}${toQuery({ ...q, format: 'csv' })}`);
    const bytes = new Uint8Array(await res.arrayBuffer());
    return {
      // TextDecoder strips a BOM by default; keep the bytes exactly as sent.
      text: new TextDecoder('utf-8', { ignoreBOM: true }).decode(bytes),
      totalCount: Number(res.headers.get('x-total-count')),
      page: Number(res.headers.get('x-page')),
      pageSize: Number(res.headers.get('x-page-size')),
      nextLink: res.headers.get('x-next-link') ?? '',
    };
  }
}

export function createPublicApiClient(opts: PublicApiClientOptions): PublicApiClient {
  return new PublicApiClient(opts);
}
