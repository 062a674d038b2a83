/**
 * Opsgenie Alert API (SPEC §4.2 row 2). The alert alias is the Vigia alert id, so Opsgenie
 * deduplicates a repeated create itself and every later action addresses the alert by alias
 * (`?identifierType=alias`) — no stored reference is needed. Opsgenie processes requests
 * asynchronously: its 202 `{result, took, requestId}` is the success answer.
 */
import type { Connector, ConnectorDelivery, ConnectorResult, OutboundRequest, Send } from './types.js';
import { texts } from './texts.js';
import { base, checkRegionalConfig, failure, str, truncate } from './shared.js';

const REGIONS: Record<string, string> = { us: 'https://api.opsgenie.com', eu: 'https://api.eu.opsgenie.com' };
const PRIORITIES = ['P1', 'P2', 'P3', 'P4', 'P5'];
const LIMITS = { message: 130, alias: 512, description: 15000, note: 25000, source: 100, entity: 512 };

export function opsgenieBaseUrl(config: Record<string, unknown>): string {
  return base(str(config, 'apiBaseUrl') ?? REGIONS[str(config, 'region') ?? 'us'] ?? REGIONS.us!);
}

function plan(d: ConnectorDelivery): OutboundRequest {
  const a = d.body.alert;
  const test = d.body.test === true;
  const root = `${opsgenieBaseUrl(d.destination.config)}/v2/alerts`;
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

export const opsgenie: Connector = {
  kind: 'opsgenie',

  validate(config, credentials) {
    const regional = checkRegionalConfig(config);
    if (regional) return regional;
    if (config.priority !== undefined && !PRIORITIES.includes(config.priority as string)) return 'config.priority must be one of P1, P2, P3, P4, P5';
    if (typeof credentials.apiKey !== 'string' || credentials.apiKey.trim() === '') return 'credentials.apiKey is required';
    return null;
  },

  urlFields(config) {
    return config.apiBaseUrl !== undefined ? ['apiBaseUrl'] : [];
  },

  async deliver(d: ConnectorDelivery, send: Send): Promise<ConnectorResult> {
    const res = await send(plan(d));
    // Opsgenie answers 202 for every accepted action; some gateways answer 200/201 — all fine.
    if (res.statusCode >= 200 && res.statusCode < 300) {
      return { outcome: 'succeeded', statusCode: res.statusCode, ref: { alias: truncate(d.body.alert.id, LIMITS.alias) } };
    }
    return failure('Opsgenie', res, d.destination.credentials);
  },
};
