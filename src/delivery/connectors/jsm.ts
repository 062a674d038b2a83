/**
 * Jira Service Management Operations integration API — Opsgenie's successor, which kept its
 * alert contract (alert-api.ts): `{apiBaseUrl}/jsm/ops/integration/v2/alerts…` with
 * `Authorization: GenieKey <integration API key>`. One global host (api.atlassian.com), so
 * there is no region; `apiBaseUrl` exists for gateways and tests and passes the same
 * destination-safety rules as every URL.
 */
import { alertApiConnector } from './alert-api.js';
import { base, checkHttpsUrl, str } from './shared.js';

export const JSM_DEFAULT_BASE_URL = 'https://api.atlassian.com';

export function jsmAlertsUrl(config: Record<string, unknown>): string {
  return `${base(str(config, 'apiBaseUrl') ?? JSM_DEFAULT_BASE_URL)}/jsm/ops/integration/v2/alerts`;
}

export const jsm = alertApiConnector({
  kind: 'jsm',
  vendor: 'Jira Service Management',
  alertsUrl: jsmAlertsUrl,
  configFields: ['apiBaseUrl'],
  validateConfig: (config) => (config.apiBaseUrl === undefined ? null : checkHttpsUrl(config.apiBaseUrl, 'config.apiBaseUrl')),
});
