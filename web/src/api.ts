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

/**
 * The admin API's shapes, all generated from its OpenAPI document (`npm run gen:console-types`,
 * web/src/admin-api.gen.ts): names for the pages, never hand-copied shapes.
 */
type S = components['schemas'];
export type Org = S['Org'];
export type Health = S['DestinationHealth'];
export type Destination = S['Destination'];
export type CreatedDestination = S['CreatedDestination'];
export type MessagePreview = S['MessagePreview'];
export type SigningSecret = S['SigningSecret'];
export type InboundSecret = S['InboundSecret'];
export type RecoverResult = S['RecoverResult'];
export type DestinationKind = Destination['kind'];
export type TestResult = S['TestResult'];
export type TestStep = S['TestStep'];
export type Delivery = S['Delivery'];
export type DeliveryStatus = Delivery['status'];
export type ShownStatus = DeliveryStatus;
export type DeliveryDetail = S['DeliveryDetail'];
export type DeliveryPage = S['DeliveryPage'];
export type AttemptLogEntry = S['AttemptLogEntry'];
export type ApiKey = S['ApiKey'];
export type CreatedApiKey = S['CreatedApiKey'];
export type Alert = S['Alert'];
export type AlertPage = S['AlertPage'];
export type AlertWithEvents = S['AlertWithEvents'];
export type AlertEvent = S['AlertEvent'];
export type AlertDelivery = S['AlertDelivery'];
export type Silence = S['Silence'];
export type Tenant = S['Tenant'];
export type TenantList = S['TenantList'];
export type CollectorView = S['CollectorView'];
export type TenantCheck = S['TenantCheck'];
export type Member = S['Member'];
export type PersonalToken = S['PersonalToken'];
export type CreatedPersonalToken = S['CreatedPersonalToken'];
export type AuditEntry = S['AuditEntry'];
export type AuditPage = S['AuditPage'];
export type Role = Member['role'];
/** The signed-in caller (GET/POST /session). */
export type Me = S['Session'];
export type SessionOptions = S['SessionOptions'];

/** Values the forms offer, checked against the generated types (a new value on the server fails the build here). */
export const DESTINATION_KINDS = ['webhook', 'pagerduty', 'opsgenie', 'jsm', 'servicenow', 'azure-devops', 'teams', 'slack', 'email'] as const satisfies readonly DestinationKind[];
/** `skipped` (destination disabled) comes with endpoint health. */
export const DELIVERY_STATUSES = ['pending', 'waiting', 'succeeded', 'failed', 'abandoned', 'skipped'] as const satisfies readonly DeliveryStatus[];
export const SCOPES = ['ReadAlerts', 'ReadMetrics', 'ReadCapacities', 'ReadWorkspaces', 'ReadCosts', 'ReadSla'] as const;
