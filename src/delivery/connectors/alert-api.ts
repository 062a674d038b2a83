/**
 * The Opsgenie alert contract, shared by the two products that speak it: Opsgenie's Alert API
 * and Jira Service Management Operations' integration API (Opsgenie's successor, which kept the
 * same requests and answers under another root). The alert alias is the Vigia
 * alert id, so the vendor deduplicates a repeated create itself and every later action addresses
 * the alert by alias (`?identifierType=alias`) — no stored reference is needed. Both process
 * requests asynchronously: the 202 `{result, took, requestId}` is the success answer.
 *
 * A product is described by its display name, where its alerts live for a destination, and any
 * config rule of its own; the mapping of events to requests is the same for both.
 */
import type { Connector, ConnectorDelivery, ConnectorKind, ConnectorResult, OutboundRequest, Send } from './types.js';
import { texts } from './texts.js';
import { failure, str, truncate } from './shared.js';

export const ALERT_PRIORITIES = ['P1', 'P2', 'P3', 'P4', 'P5'] as const;
const LIMITS = { message: 130, alias: 512, description: 15000, note: 25000, entity: 512 };

export interface AlertApiProduct {
  kind: ConnectorKind;
  /** Name used in delivery error texts ("Opsgenie answered 422: …"). */
  vendor: string;
  /** `…/v2/alerts` of this destination, without a trailing slash. */
  alertsUrl(config: Record<string, unknown>): string;
  /** The product's own config rules (region, base URL); an error naming the field, or null. */
  validateConfig(config: Record<string, unknown>): string | null;
  /** The product's own config fields; `priority` is shared by both products. */
  configFields: readonly string[];
}

function plan(product: AlertApiProduct, d: ConnectorDelivery): OutboundRequest {
  const a = d.body.alert;
  const test = d.body.test === true;
  const root = product.alertsUrl(d.destination.config);
  const alias = truncate(a.id, LIMITS.alias);
  const byAlias = (action: string) => `${root}/${encodeURIComponent(alias)}/${action}?identifierType=alias`;
  const headers = {
    'content-type': 'application/json',
    accept: 'application/json',
    authorization: `GenieKey ${d.destination.credentials.apiKey}`,
  };
  const post = (url: string, body: Record<string, unknown>): OutboundRequest => ({ method: 'POST', url, headers, body: JSON.stringify(body) });
  const source = 'Vigia';
  switch (d.body.event) {
    case 'alert.opened': {
      const priority = str(d.destination.config, 'priority') ?? (a.severity === 'error' ? 'P3' : 'P5');
      return post(root, {
        message: truncate(texts.title(a, test), LIMITS.message),
        alias,
        description: truncate(texts.description(a, test), LIMITS.description),
        tags: ['Vigia', a.sourceType, ...(test ? ['teste'] : [])],
        details: {
          sourceType: a.sourceType,
          sourceId: a.sourceId,
          ...(a.workspaceName ? { workspace: a.workspaceName } : {}),
          ...(a.capacityName ? { capacidade: a.capacityName } : {}),
          url: a.url,
        },
        entity: truncate(`${a.sourceType}/${a.sourceId}`, LIMITS.entity),
        source,
        priority,
      });
    }
    case 'alert.acknowledged':
      return post(byAlias('acknowledge'), { source, note: truncate(texts.acknowledged(a), LIMITS.note) });
    case 'alert.escalated':
      return post(byAlias('notes'), { source, note: truncate(texts.escalated(a), LIMITS.note) });
    case 'alert.recovered':
      return post(byAlias('close'), { source, note: truncate(texts.recovered(a), LIMITS.note) });
  }
}

/** A connector for one product of the alert contract. */
export function alertApiConnector(product: AlertApiProduct): Connector {
  return {
    kind: product.kind,
    configFields: [...product.configFields, 'priority'],

    validate(config, credentials) {
      const own = product.validateConfig(config);
      if (own) return own;
      if (config.priority !== undefined && !(ALERT_PRIORITIES as readonly unknown[]).includes(config.priority)) {
        return `config.priority must be one of ${ALERT_PRIORITIES.join(', ')}`;
      }
      if (typeof credentials.apiKey !== 'string' || credentials.apiKey.trim() === '') return 'credentials.apiKey is required';
      return null;
    },

    urlFields(config) {
      return config.apiBaseUrl !== undefined ? ['apiBaseUrl'] : [];
    },

    async deliver(d: ConnectorDelivery, send: Send): Promise<ConnectorResult> {
      const res = await send(plan(product, d));
      // 202 for every accepted action; some gateways answer 200/201 — all fine.
      if (res.statusCode >= 200 && res.statusCode < 300) {
        return { outcome: 'succeeded', statusCode: res.statusCode, ref: { alias: truncate(d.body.alert.id, LIMITS.alias) } };
      }
      return failure(product.vendor, res, d.destination.credentials);
    },
  };
}
