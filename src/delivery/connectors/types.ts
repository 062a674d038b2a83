/**
 * The seam between the delivery pipeline and a connector: a connector turns
 * one delivery (event + destination + stored external reference) into HTTP calls to its target
 * and says what the answers mean. Retries, timeouts, destination safety, ordering, history and
 * limits are the pipeline's job, never the connector's.
 */
import type { DeliveryBody } from '../../outbox/index.js';
import type { NotificationMessage } from '../notify/index.js';

export type { DeliveryBody };

/** Chat kinds (docs/notifications.md): the webhook URL is the credential; openings are grouped. */
export type ChatKind = 'teams' | 'slack';
export type ConnectorKind = 'pagerduty' | 'opsgenie' | 'servicenow' | 'azure-devops' | 'jsm' | ChatKind;
/**
 * Kinds delivered by their own transport instead of the guarded HTTP client (src/delivery/deliverers.ts):
 * `email` goes out through the instance's SMTP relay. The pipeline still owns their retries,
 * history, health, ordering, redelivery, filters and silences.
 */
export type DelivererKind = 'email';
export type DestinationKind = 'webhook' | ConnectorKind | DelivererKind;

export interface OutboundRequest {
  method: 'GET' | 'POST' | 'PATCH' | 'PUT' | 'DELETE';
  url: string;
  headers: Record<string, string>;
  body?: string;
}

export interface OutboundResponse {
  statusCode: number;
  headers: Record<string, string | string[] | undefined>;
  /** Response text, truncated by the pipeline to a bounded size. */
  body: string;
}

/**
 * Sends one request through the guarded HTTP client (https only, address checks at connect time,
 * no redirects, no proxy, per-call time limit). Throws DeliveryNetworkError on timeout, reset,
 * refused or blocked address: the pipeline treats an escaping throw as "retry, outcome unknown".
 */
export type Send = (request: OutboundRequest) => Promise<OutboundResponse>;

export interface ConnectorDelivery {
  body: DeliveryBody;
  destination: {
    id: string;
    config: Record<string, unknown>;
    /** Opened credentials (routingKey, apiKey, username/password, personalAccessToken). */
    credentials: Record<string, string>;
  };
  /** Reference stored by the opening delivery for this incident at this destination, or null. */
  ref: Record<string, unknown> | null;
  /** 1-based number of this attempt. */
  attempt: number;
  /** True when an earlier attempt of this delivery ended without a known outcome (timeout, reset). */
  previousOutcomeUnknown: boolean;
  /**
   * Kinds that group openings (KindRules.groupsOpenings): every body this attempt carries — the
   * delivery's own first, then the group's other openings (src/delivery/grouping.ts).
   */
  group?: DeliveryBody[];
  /**
   * Kinds that write messages for people (Connector.notifies): the message of every body this
   * attempt carries, in the organization's language and time zone, with the per-alert facts and
   * acknowledge links (src/delivery/notify/load.ts).
   */
  message?: NotificationMessage;
}

export type ConnectorResult =
  | { outcome: 'succeeded'; statusCode?: number; ref?: Record<string, unknown>; note?: string }
  | { outcome: 'retry'; statusCode?: number; error: string; retryAfterMs?: number }
  | { outcome: 'abandon'; statusCode?: number; error: string };

/** The rules of a destination kind's config and credentials when a destination is saved. */
export interface KindRules {
  /**
   * Checks config and credentials of a destination being saved; returns an error message
   * (naming the field) or null. URL fields are checked for safety by the pipeline as well.
   */
  validate(config: Record<string, unknown>, credentials: Record<string, unknown>): string | null;
  /** Every config field the connector reads; any other key is refused when a destination is saved. */
  configFields: readonly string[];
  /** The config fields holding URLs that must pass destination safety (e.g. ['instanceUrl']). */
  urlFields(config: Record<string, unknown>): string[];
  /**
   * Openings that arrive within the destination's `config.groupWaitSeconds` and share a tenant or
   * a root cause go out as one message (src/delivery/grouping.ts): teams, slack, email.
   */
  groupsOpenings?: true;
  /**
   * An opening of this severity that a destination with this config handles on its own path
   * and never groups (e-mail: an `info` one that goes into the destination's digest).
   */
  keepsOpeningApart?(config: Record<string, unknown>, opening: { severity: string }): boolean;
}

export interface Connector extends KindRules {
  kind: ConnectorKind;
  deliver(delivery: ConnectorDelivery, send: Send): Promise<ConnectorResult>;
  /** Writes messages for people: the pipeline passes `message` (language, time zone, tenant, root cause). */
  notifies?: true;
}
