/**
 * Opsgenie Alert API (docs/connectors.md): `{apiBaseUrl | regional host}/v2/alerts…` with the
 * shared alert-contract mapping (alert-api.ts). Opsgenie stops working on 2027-04-05; its
 * successor is the `jsm` connector, which sends the same requests.
 */
import { alertApiConnector } from './alert-api.js';
import { base, checkRegionalConfig, str } from './shared.js';

const REGIONS: Record<string, string> = { us: 'https://api.opsgenie.com', eu: 'https://api.eu.opsgenie.com' };

export function opsgenieBaseUrl(config: Record<string, unknown>): string {
  return base(str(config, 'apiBaseUrl') ?? REGIONS[str(config, 'region') ?? 'us'] ?? REGIONS.us!);
}

export const opsgenie = alertApiConnector({
  kind: 'opsgenie',
  vendor: 'Opsgenie',
  alertsUrl: (config) => `${opsgenieBaseUrl(config)}/v2/alerts`,
  validateConfig: checkRegionalConfig,
  configFields: ['region', 'apiBaseUrl'],
});
