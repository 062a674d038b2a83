import type { components } from './admin-api.gen.js';

/**
 * The admin API client of the console. The browser holds no credential the page can read: the
 * session is an HttpOnly cookie, and state-changing calls carry the session's CSRF token.
 */

export const ADMIN_BASE = '/api/admin/v1';

/** A refused call: the status and the API's error envelope `{ error: { code, message } }`. */
export class ApiFailure extends Error {
  constructor(
    readonly status: number,
    readonly code: string,
    message: string,
  ) {
    super(message);
  }
}

/** `signal` cancels the request (a page left behind aborts its reads). */
export type Call = <T>(method: 'GET' | 'POST' | 'PATCH' | 'PUT' | 'DELETE', path: string, body?: unknown, signal?: AbortSignal) => Promise<T>;

/** A client of the signed-in session; `onUnauthorized` runs when the server refuses it (signed out). */
export function adminClient(csrfToken: string | null, onUnauthorized: () => void): Call {
  return async <T>(method: string, path: string, body?: unknown, signal?: AbortSignal): Promise<T> => {
    let res: Response;
    try {
      res = await fetch(`${ADMIN_BASE}${path}`, {
        method,
        headers: {
          ...(csrfToken && method !== 'GET' ? { 'x-csrf-token': csrfToken } : {}),
          ...(body === undefined ? {} : { 'content-type': 'application/json' }),
        },
        credentials: 'same-origin',
        body: body === undefined ? undefined : JSON.stringify(body),
        cache: 'no-store',
        signal,
      });
    } catch (err) {
      if (signal?.aborted) throw err;
      throw new ApiFailure(0, 'network', '');
    }
    if (res.status === 204) return undefined as T;
    const text = await res.text();
    let json: unknown = null;
    try {
      json = text ? JSON.parse(text) : null;
    } catch {
      json = null;
    }
    if (!res.ok) {
      const err = (json as { error?: { code?: string; message?: string } } | null)?.error;
      if (res.status === 401) onUnauthorized();
      throw new ApiFailure(res.status, err?.code ?? 'http_error', err?.message ?? `HTTP ${res.status}`);
    }
    return json as T;
  };
}

/** Generated from the admin API's OpenAPI document (`npm run gen:console-types`). */
export type Org = components['schemas']['Org'];

export interface Health {
  state: string;
  consecutiveFailures: number;
  successRate24h: number | null;
  lastSuccessAt: string | null;
  lastFailureAt: string | null;
  disabledAt: string | null;
  disabledReason: string | null;
}

export interface Destination {
  id: string;
  name: string;
  kind: DestinationKind;
  url: string | null;
  config: Record<string, unknown>;
  signatureScheme: string | null;
  enabled: boolean;
  credentialsSet: boolean;
  createdAt: string;
  updatedAt: string;
  /** Present once the server reports endpoint health. */
  health?: Health;
}

export const DESTINATION_KINDS = ['webhook', 'pagerduty', 'opsgenie', 'jsm', 'servicenow', 'azure-devops'] as const;
export type DestinationKind = (typeof DESTINATION_KINDS)[number];

export interface TestStep {
  action: 'send' | 'open' | 'close';
  ok: boolean;
  statusCode?: number;
  error?: string;
}
export interface TestResult {
  ok: boolean;
  steps: TestStep[];
  manualCloseRequired: boolean;
  message: string;
}

/** `skipped` (destination disabled) comes with endpoint health; an older server refuses it as a filter (400, shown). */
export const DELIVERY_STATUSES = ['pending', 'waiting', 'succeeded', 'failed', 'abandoned', 'skipped'] as const;
export type ShownStatus = DeliveryStatus;
export type DeliveryStatus = (typeof DELIVERY_STATUSES)[number];

export interface Delivery {
  id: string;
  event: string;
  alertId: string;
  status: ShownStatus;
  attempts: number;
  nextAttemptAt: string | null;
  lastStatusCode: number | null;
  lastError: string | null;
  createdAt: string;
  completedAt: string | null;
  test: boolean;
}
export interface AttemptLogEntry {
  attempt: number;
  startedAt: string;
  durationMs: number;
  statusCode: number | null;
  error: string | null;
}
export interface Page<T> {
  value: T[];
  page: number;
  pageSize: number;
  totalCount: number;
  nextLink: string;
}

export const SCOPES = ['ReadAlerts', 'ReadMetrics', 'ReadCapacities', 'ReadWorkspaces', 'ReadCosts', 'ReadSla'] as const;
export interface ApiKey {
  id: string;
  name: string;
  scopes: string[];
  prefix: string;
  expiresAt: string | null;
  createdAt: string;
  lastUsedAt: string | null;
  revokedAt: string | null;
}

export interface Alert {
  id: string;
  sourceType: string;
  sourceId: string;
  sourceName: string;
  notificationKind: string;
  severity: 'error' | 'info';
  title: string;
  message: string;
  workspaceName: string | null;
  capacityName: string | null;
  status: 'open' | 'resolved';
  acknowledged: boolean;
  acknowledgedAt: string | null;
  acknowledgedBy: string | null;
  createdAt: string;
  resolvedAt: string | null;
  failureCount: number;
  lastOccurrenceAt: string;
  silenced: boolean;
  correlated: boolean;
}
export interface AlertEvent {
  id: string;
  event: string;
  occurredAt: string;
}
export interface AlertDelivery extends Delivery {
  eventId: string | null;
  destinationId: string;
  destinationName: string;
  destinationKind: string;
}

export interface Silence {
  id: string;
  matchers: { sourceType?: string; sourceId?: string; notificationKind?: string };
  startsAt: string;
  endsAt: string;
  comment: string | null;
  active: boolean;
}

export type Role = 'owner' | 'operator' | 'viewer';
/** The signed-in caller (GET/POST /session). */
export interface Me {
  kind: 'instance-admin' | 'person';
  email: string | null;
  instanceAdmin: boolean;
  roles: Array<{ orgId: string; role: Role }>;
  csrfToken: string | null;
}
