/**
 * ServiceNow Table API (docs/connectors.md): the opening creates an incident whose correlation_id
 * is the Vigia alert id and stores {sysId, number}; later events PATCH that incident.
 *
 * Duplicate safety (a retried create must not open a second incident): when an earlier create attempt ended without a known outcome
 * (timeout, reset), or the opening is sent again (redelivery), the incident is first looked up
 * by correlation_id and reused. The same lookup serves a later event that has no stored
 * reference; if nothing is found the event is abandoned (there is no incident to update).
 *
 * Quirk: a hibernating developer instance answers 200 with an HTML page — not a success: retry.
 */
import type { Connector, ConnectorDelivery, ConnectorResult, OutboundRequest, OutboundResponse, Send } from './types.js';
import { texts } from './texts.js';
import { base, basicAuth, checkHttpsUrl, failure, isHtml, parseJson, requireString, str, truncate } from './shared.js';

const SHORT_DESCRIPTION_MAX = 160;
const DEFAULT_CLOSE_CODE = 'Solution provided';

interface IncidentRef {
  sysId: string;
  number?: string;
}

function headers(d: ConnectorDelivery): Record<string, string> {
  const c = d.destination.credentials;
  return { authorization: basicAuth(c.username ?? '', c.password ?? ''), accept: 'application/json', 'content-type': 'application/json' };
}

function tableUrl(d: ConnectorDelivery): string {
  return `${base(str(d.destination.config, 'instanceUrl') ?? '')}/api/now/table/incident`;
}

/** The answer is the instance's JSON `{ result }`, not a hibernation/login HTML page. */
function jsonResult(res: OutboundResponse): unknown {
  if (isHtml(res)) return undefined;
  const parsed = parseJson(res.body) as { result?: unknown } | undefined;
  return parsed && typeof parsed === 'object' ? parsed.result : undefined;
}

const HIBERNATING = 'ServiceNow answered an HTML page instead of JSON (instance hibernating or under maintenance)';

type Lookup = { found: IncidentRef | null } | { result: ConnectorResult };

async function findByCorrelation(d: ConnectorDelivery, send: Send): Promise<Lookup> {
  const q = new URLSearchParams({
    // '^' separates conditions in an encoded query; a literal one is written '^^'.
    sysparm_query: `correlation_id=${d.body.alert.id.replace(/\^/g, '^^')}`,
    sysparm_fields: 'sys_id,number',
    sysparm_limit: '1',
  });
  const res = await send({ method: 'GET', url: `${tableUrl(d)}?${q}`, headers: headers(d) });
  if (res.statusCode !== 200) return { result: failure('ServiceNow', res, d.destination.credentials) };
  const result = jsonResult(res);
  if (!Array.isArray(result)) return { result: { outcome: 'retry', statusCode: res.statusCode, error: HIBERNATING } };
  const first = result[0] as { sys_id?: string; number?: string } | undefined;
  return { found: first?.sys_id ? { sysId: first.sys_id, number: first.number } : null };
}

function createBody(d: ConnectorDelivery): Record<string, string> {
  const a = d.body.alert;
  const test = d.body.test === true;
  const level = a.severity === 'error' ? '2' : '3';
  return {
    short_description: truncate(texts.title(a, test), SHORT_DESCRIPTION_MAX),
    description: texts.description(a, test),
    correlation_id: a.id,
    correlation_display: 'Vigia',
    urgency: level,
    impact: level,
  };
}

function updateBody(d: ConnectorDelivery): Record<string, string> {
  const a = d.body.alert;
  switch (d.body.event) {
    case 'alert.acknowledged':
      return { state: '2', work_notes: texts.acknowledged(a) };
    case 'alert.escalated':
      return { urgency: '1', work_notes: texts.escalated(a) };
    case 'alert.recovered':
      return {
        state: '6',
        close_code: str(d.destination.config, 'closeCode') ?? DEFAULT_CLOSE_CODE,
        close_notes: texts.closeNotes(a),
      };
    default:
      throw new Error(`no update for ${d.body.event}`);
  }
}

async function open(d: ConnectorDelivery, send: Send): Promise<ConnectorResult> {
  if (d.previousOutcomeUnknown || d.ref) {
    const lookup = await findByCorrelation(d, send);
    if ('result' in lookup) return lookup.result;
    if (lookup.found) return { outcome: 'succeeded', statusCode: 200, ref: { ...lookup.found }, note: 'existing incident reused' };
  }
  const req: OutboundRequest = { method: 'POST', url: tableUrl(d), headers: headers(d), body: JSON.stringify(createBody(d)) };
  const res = await send(req);
  if (res.statusCode === 201 || res.statusCode === 200) {
    const r = jsonResult(res) as { sys_id?: string; number?: string } | undefined;
    if (!r?.sys_id) return { outcome: 'retry', statusCode: res.statusCode, error: HIBERNATING };
    return { outcome: 'succeeded', statusCode: res.statusCode, ref: { sysId: r.sys_id, number: r.number } };
  }
  return failure('ServiceNow', res, d.destination.credentials);
}

async function update(d: ConnectorDelivery, send: Send): Promise<ConnectorResult> {
  let ref: IncidentRef | null = typeof d.ref?.sysId === 'string' ? { sysId: d.ref.sysId, number: d.ref.number as string | undefined } : null;
  let found = false;
  if (!ref) {
    const lookup = await findByCorrelation(d, send);
    if ('result' in lookup) return lookup.result;
    if (!lookup.found) {
      return { outcome: 'abandon', error: 'No ServiceNow incident exists for this alert (its opening was not delivered to this destination), so there is nothing to update' };
    }
    ref = lookup.found;
    found = true;
  }
  const res = await send({
    method: 'PATCH',
    url: `${tableUrl(d)}/${encodeURIComponent(ref.sysId)}`,
    headers: headers(d),
    body: JSON.stringify(updateBody(d)),
  });
  if (res.statusCode === 200 || res.statusCode === 204) {
    if (res.statusCode === 200 && jsonResult(res) === undefined) return { outcome: 'retry', statusCode: res.statusCode, error: HIBERNATING };
    return { outcome: 'succeeded', statusCode: res.statusCode, ...(found ? { ref: { ...ref } } : {}) };
  }
  return failure('ServiceNow', res, d.destination.credentials);
}

export const servicenow: Connector = {
  kind: 'servicenow',
  configFields: ['instanceUrl', 'closeCode'],

  validate(config, credentials) {
    const e = checkHttpsUrl(config.instanceUrl, 'config.instanceUrl');
    if (e) return e;
    if (config.closeCode !== undefined && (typeof config.closeCode !== 'string' || config.closeCode.trim() === '')) {
      return 'config.closeCode must be a non-empty text';
    }
    return requireString(credentials, 'username', 'credentials.username') ?? requireString(credentials, 'password', 'credentials.password');
  },

  urlFields() {
    return ['instanceUrl'];
  },

  deliver(d, send) {
    return d.body.event === 'alert.opened' ? open(d, send) : update(d, send);
  },
};
