/**
 * PagerDuty Events API v2 (docs/connectors.md): every event is one POST {base}/v2/enqueue keyed by
 * dedup_key = alert id, so PagerDuty itself groups the incident and deduplicates repeats — no
 * reference lookup is ever needed and a retried trigger is harmless.
 */
import type { Connector, ConnectorDelivery, ConnectorResult, Send } from './types.js';
import { texts } from './texts.js';
import { base, checkRegionalConfig, failure, is2xx, parseJson, str, truncate } from './shared.js';

const REGIONS: Record<string, string> = { us: 'https://events.pagerduty.com', eu: 'https://events.eu.pagerduty.com' };
const SUMMARY_MAX = 1024;
const DEDUP_MAX = 255;

export function pagerDutyBaseUrl(config: Record<string, unknown>): string {
  return base(str(config, 'apiBaseUrl') ?? REGIONS[str(config, 'region') ?? 'us'] ?? REGIONS.us!);
}

const REST_REGIONS: Record<string, string> = { us: 'https://api.pagerduty.com', eu: 'https://api.eu.pagerduty.com' };

/** The REST API base (inbound matching, webhook subscriptions): `restApiBaseUrl`, else the region's host. */
export function pagerDutyRestBaseUrl(config: Record<string, unknown>): string {
  return base(str(config, 'restApiBaseUrl') ?? REST_REGIONS[str(config, 'region') ?? 'us'] ?? REST_REGIONS.us!);
}

function plan(d: ConnectorDelivery): Record<string, unknown> {
  const a = d.body.alert;
  const test = d.body.test === true;
  const common = { routing_key: d.destination.credentials.routingKey, dedup_key: truncate(a.id, DEDUP_MAX) };
  const trigger = (summary: string, severity: string) => ({
    ...common,
    event_action: 'trigger',
    client: 'Vigia',
    client_url: a.url,
    payload: {
      summary: truncate(summary, SUMMARY_MAX),
      severity,
      source: truncate(`${a.sourceType}/${a.sourceId}`, 255),
      component: a.sourceType,
      ...(a.workspaceName ? { group: a.workspaceName } : {}),
      timestamp: d.body.occurredAt,
      custom_details: {
        mensagem: a.message,
        workspace: a.workspaceName,
        capacidade: a.capacityName,
        ocorrencias: a.failureCount,
        abertoEm: a.openedAt,
        ...(test ? { teste: true } : {}),
      },
    },
    links: [{ href: a.url, text: 'Abrir no Vigia' }],
  });
  switch (d.body.event) {
    case 'alert.opened':
      return trigger(texts.title(a, test), a.severity === 'error' ? 'error' : 'info');
    case 'alert.escalated':
      return trigger(texts.escalatedPrefix + texts.title(a, test), 'critical');
    case 'alert.acknowledged':
      return { ...common, event_action: 'acknowledge' };
    case 'alert.recovered':
      return { ...common, event_action: 'resolve' };
  }
}

export const pagerduty: Connector = {
  kind: 'pagerduty',
  configFields: ['region', 'apiBaseUrl', 'restApiBaseUrl'],

  validate(config, credentials) {
    const regional = checkRegionalConfig(config);
    if (regional) return regional;
    const key = credentials.routingKey;
    if (typeof key !== 'string' || key.trim() === '') return 'credentials.routingKey is required';
    if (key.length !== 32) return 'credentials.routingKey must be the 32-character integration key';
    // Optional: a REST API key lets inbound events be matched through the incident's alerts.
    if (credentials.restApiKey !== undefined && (typeof credentials.restApiKey !== 'string' || credentials.restApiKey.trim() === '')) {
      return 'credentials.restApiKey must be a PagerDuty REST API key';
    }
    if (config.restApiBaseUrl !== undefined && (typeof config.restApiBaseUrl !== 'string' || !config.restApiBaseUrl.startsWith('https://'))) {
      return 'config.restApiBaseUrl must be an https URL';
    }
    return null;
  },

  urlFields(config) {
    return ['apiBaseUrl', 'restApiBaseUrl'].filter((f) => config[f] !== undefined);
  },

  async deliver(d: ConnectorDelivery, send: Send): Promise<ConnectorResult> {
    const res = await send({
      method: 'POST',
      url: `${pagerDutyBaseUrl(d.destination.config)}/v2/enqueue`,
      headers: { 'content-type': 'application/json', accept: 'application/json' },
      body: JSON.stringify(plan(d)),
    });
    if (res.statusCode === 202 || (is2xx(res) && (parseJson(res.body) as { status?: string } | undefined)?.status === 'success')) {
      return { outcome: 'succeeded', statusCode: res.statusCode, ref: { dedupKey: truncate(d.body.alert.id, DEDUP_MAX) } };
    }
    return failure('PagerDuty', res, d.destination.credentials);
  },
};
