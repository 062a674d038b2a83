/**
 * PagerDuty's V3 incident payload has no dedup_key: its incident_key usually equals it, but alert
 * grouping puts several alerts (several Vigia alerts) in one incident. With a REST API key on the
 * destination (credentials.restApiKey) Vigia reads the incident's alerts and takes their
 * `alert_key`s — the Events API's dedup keys, our alert ids (REST `GET /incidents/{id}/alerts`).
 */
import type { Send } from '../delivery/connectors/types.js';
import { parseJson } from '../delivery/connectors/shared.js';
import { pagerDutyRestBaseUrl } from '../delivery/connectors/pagerduty.js';
import { isSafeText } from './text-safety.js';

export { pagerDutyRestBaseUrl };
/** Alerts read per incident (a grouped incident rarely holds more). */
const PAGE = 100;

/** The incident's alert keys, or null when PagerDuty could not be asked (then incident_key is used). */
export async function incidentAlertKeys(send: Send, config: Record<string, unknown>, apiKey: string, incidentId: string): Promise<string[] | null> {
  try {
    const res = await send({
      method: 'GET',
      url: `${pagerDutyRestBaseUrl(config)}/incidents/${encodeURIComponent(incidentId)}/alerts?limit=${PAGE}`,
      headers: { authorization: `Token token=${apiKey}`, accept: 'application/vnd.pagerduty+json;version=2' },
    });
    if (res.statusCode !== 200) return null;
    const alerts = (parseJson(res.body) as { alerts?: Array<{ alert_key?: unknown }> } | undefined)?.alerts;
    if (!Array.isArray(alerts)) return null;
    return alerts.map((a) => a.alert_key).filter((k): k is string => typeof k === 'string' && k.length > 0 && k.length <= 255 && isSafeText(k));
  } catch {
    return null;
  }
}
