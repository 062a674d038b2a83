/**
 * What each tool posts, read into one shape (docs/connectors.md, "Acknowledging in the tool"):
 * the event's id (applied once), the change, the tool's time of it, who made it (a display
 * name, never an e-mail address) and how to find the Vigia alert — the alert id the connector
 * wrote (dedup_key / alias / correlation_id / work item tag) and the tool's own reference (the
 * incident's sys_id, the work item id) that must agree with what the delivery stored.
 */
import type { ToolChange } from '../alerts/lifecycle.js';
import { printable } from './text-safety.js';

export interface InboundEvent {
  /** Unique per event of this destination; retries of one event share it. */
  eventKey: string;
  /** null: an event Vigia does not act on (a note, a reassignment, a ping). */
  change: ToolChange | null;
  /** The tool's name for the event (for the ignore reason). */
  type: string;
  at: Date;
  actor: string | null;
  /** Alert ids the event names (the keys our connector wrote). */
  alertIds: string[];
  /** The tool's reference as the delivery stored it (connector_refs.ref), when the event carries it. */
  ref?: { field: string; value: string };
  /** PagerDuty's incident id, to read its alerts' keys. */
  pagerDutyIncidentId?: string;
}

export type Parsed = { ok: true; event: InboundEvent } | { ok: false; reason: string };

export const TOOL_NAMES: Record<string, string> = {
  pagerduty: 'PagerDuty',
  opsgenie: 'Opsgenie',
  jsm: 'Jira Service Management',
  servicenow: 'ServiceNow',
  'azure-devops': 'Azure DevOps',
};

type Obj = Record<string, unknown>;
const obj = (v: unknown): Obj | undefined => (v !== null && typeof v === 'object' && !Array.isArray(v) ? (v as Obj) : undefined);
const text = (v: unknown, max = 500): string | undefined => (typeof v === 'string' && v.length > 0 && v.length <= max ? v : undefined);
const ALERT_ID_MAX = 255;

/**
 * A name to show: printable text of bounded length (text-safety.ts); an e-mail address is not
 * kept (people's addresses stay in their tool).
 */
function displayName(v: unknown): string | null {
  const s = text(v, 1000);
  if (!s) return null;
  // "Jane Doe <jane@example.com>" (Azure DevOps identities) → "Jane Doe".
  const named = printable(s.replace(/\s*<[^>]*>\s*$/, ''));
  if (!named || named.includes('@')) return null;
  return named;
}

function instant(v: unknown): Date | undefined {
  const s = text(v, 64);
  if (!s) return undefined;
  const d = new Date(s);
  return Number.isNaN(d.getTime()) ? undefined : d;
}

const PAGERDUTY_CHANGES: Record<string, ToolChange> = {
  'incident.acknowledged': 'acknowledge',
  'incident.unacknowledged': 'unacknowledge',
  'incident.resolved': 'resolve',
};

/**
 * PagerDuty V3 webhook: `{ event: { id, event_type, occurred_at, agent, data } }`. The event is
 * known by its `event.id`, inside the signed body: the `X-Webhook-Id` header is not signed, so a
 * captured request replayed with a new header value would otherwise be applied again.
 */
export function parsePagerDuty(body: unknown): Parsed {
  const event = obj(obj(body)?.event);
  const id = text(event?.id, 200);
  const type = text(event?.event_type, 200);
  const at = instant(event?.occurred_at);
  if (!event || !id || !type || !at) return { ok: false, reason: 'not a PagerDuty V3 event (event.id, event.event_type and event.occurred_at are required)' };
  const data = obj(event.data);
  const incidentKey = text(data?.incident_key, ALERT_ID_MAX);
  const incidentId = text(data?.id, 200);
  return {
    ok: true,
    event: {
      eventKey: `pd:${id}`,
      change: PAGERDUTY_CHANGES[type] ?? null,
      type,
      at,
      actor: displayName(obj(event.agent)?.summary),
      alertIds: incidentKey ? [incidentKey] : [],
      ...(incidentId && data?.type === 'incident' ? { pagerDutyIncidentId: incidentId } : {}),
    },
  };
}

const OPSGENIE_CHANGES: Record<string, ToolChange> = { Acknowledge: 'acknowledge', UnAcknowledge: 'unacknowledge', Close: 'resolve' };

/** Opsgenie epoch times: `updatedAt` in nanoseconds (19 digits), `createdAt` in milliseconds. */
function epoch(v: unknown): Date | undefined {
  const s = typeof v === 'number' ? String(Math.trunc(v)) : typeof v === 'string' ? v : undefined;
  if (!s || !/^\d{10,19}$/.test(s)) return undefined;
  const ms = s.length > 16 ? Number(s.slice(0, s.length - 6)) : s.length > 13 ? Number(s.slice(0, 13)) : Number(s);
  return new Date(ms);
}

/** Opsgenie / JSM outgoing webhook (alert action data): `{ action, alert: { alias, alertId, username, updatedAt } }`. */
export function parseAlertAction(body: unknown): Parsed {
  const b = obj(body);
  const action = text(b?.action, 200);
  const alert = obj(b?.alert);
  const alertId = text(alert?.alertId, 200);
  const at = epoch(alert?.updatedAt) ?? epoch(alert?.createdAt);
  if (!action || !alert || !alertId || !at) return { ok: false, reason: 'not alert action data (action, alert.alertId and alert.updatedAt are required)' };
  const alias = text(alert.alias, ALERT_ID_MAX);
  return {
    ok: true,
    event: {
      eventKey: `og:${alertId}:${action}:${String(alert.updatedAt ?? alert.createdAt)}`,
      change: OPSGENIE_CHANGES[action] ?? null,
      type: action,
      at,
      actor: displayName(alert.username),
      alertIds: alias ? [alias] : [],
    },
  };
}

/** ServiceNow's "2026-06-15 12:00:00" (the stored UTC value) or ISO 8601. */
function serviceNowTime(v: unknown): Date | undefined {
  const s = text(v, 64);
  if (!s) return undefined;
  return /^\d{4}-\d{2}-\d{2} \d{2}:\d{2}:\d{2}$/.test(s) ? new Date(`${s.replace(' ', 'T')}Z`) : instant(s);
}

/** New 1, In Progress 2, On Hold 3, Resolved 6, Closed 7, Canceled 8 (base system values). */
function serviceNowChange(state: string, previous: string | undefined): ToolChange | null {
  if (state === '6' || state === '7' || state === '8') return 'resolve';
  if (state === '2' && previous !== '2') return 'acknowledge';
  if (state === '1' && previous === '2') return 'unacknowledge';
  return null;
}

/** ServiceNow business rule / flow body (docs/connectors.md): incident fields as strings. */
export function parseServiceNow(body: unknown): Parsed {
  const b = obj(body);
  const sysId = text(b?.sys_id, 64);
  const state = typeof b?.state === 'number' ? String(b.state) : text(b?.state, 10);
  const modCount = typeof b?.sys_mod_count === 'number' ? String(b.sys_mod_count) : text(b?.sys_mod_count, 20);
  const at = serviceNowTime(b?.sys_updated_on);
  if (!b || !sysId || !state || !modCount || !at) return { ok: false, reason: 'not an incident update (sys_id, state, sys_mod_count and sys_updated_on are required)' };
  const previous = typeof b.previous_state === 'number' ? String(b.previous_state) : text(b.previous_state, 10);
  const correlation = text(b.correlation_id, ALERT_ID_MAX);
  const change = serviceNowChange(state, previous);
  return {
    ok: true,
    event: {
      eventKey: `sn:${sysId}:${modCount}`,
      change,
      type: `state ${previous ?? '?'} → ${state}`,
      at,
      actor: displayName(change === 'resolve' ? (b.resolved_by ?? b.updated_by_name) : (b.updated_by_name ?? b.assigned_to)),
      alertIds: correlation ? [correlation] : [],
      ref: { field: 'sysId', value: sysId },
    },
  };
}

/** Azure DevOps states by their category (Agile, Scrum, CMMI, Basic processes). */
const ADO_RESOLVED = new Set(['done', 'closed', 'resolved', 'completed']);
const ADO_IN_PROGRESS = new Set(['active', 'doing', 'in progress', 'committed']);
const ADO_PROPOSED = new Set(['new', 'to do', 'proposed', 'approved']);

function azureDevOpsChange(to: string | undefined, from: string | undefined): ToolChange | null {
  const t = to?.toLowerCase();
  const f = from?.toLowerCase();
  if (!t) return null;
  if (ADO_RESOLVED.has(t)) return 'resolve';
  if (ADO_IN_PROGRESS.has(t) && !(f && ADO_IN_PROGRESS.has(f))) return 'acknowledge';
  if (ADO_PROPOSED.has(t) && f && ADO_IN_PROGRESS.has(f)) return 'unacknowledge';
  return null;
}

/** Azure DevOps service hook `workitem.updated` (resource = the work item update). */
export function parseAzureDevOps(body: unknown): Parsed {
  const b = obj(body);
  const eventType = text(b?.eventType, 200);
  const resource = obj(b?.resource);
  const notification = typeof b?.notificationId === 'number' || typeof b?.notificationId === 'string' ? String(b.notificationId) : undefined;
  const subscription = text(b?.subscriptionId, 100);
  const eventId = text(b?.id, 100);
  if (!b || !eventType || (!eventId && !(subscription && notification))) return { ok: false, reason: 'not a service hook event (eventType and id are required)' };
  const fields = obj(resource?.fields);
  const stateChange = obj(fields?.['System.State']);
  const revision = obj(resource?.revision);
  const workItemId = typeof resource?.workItemId === 'number' && resource.workItemId > 0 ? resource.workItemId : typeof revision?.id === 'number' ? revision.id : undefined;
  const at = instant(obj(fields?.['System.ChangedDate'])?.newValue) ?? instant(obj(revision?.fields)?.['System.ChangedDate']) ?? instant(b.createdDate);
  if (!at) return { ok: false, reason: 'the event has no time (System.ChangedDate or createdDate)' };
  const tags = text(obj(revision?.fields)?.['System.Tags'], 4000) ?? '';
  const alertIds = tags
    .split(';')
    .map((t) => t.trim())
    .filter((t) => t.startsWith('vigia-alert-'))
    .map((t) => t.slice('vigia-alert-'.length))
    .filter((id) => id.length > 0 && id.length <= ALERT_ID_MAX);
  const revisedBy = obj(resource?.revisedBy);
  return {
    ok: true,
    event: {
      eventKey: subscription && notification ? `ado:${subscription}:${notification}` : `ado:${eventId}`,
      change: eventType === 'workitem.updated' ? azureDevOpsChange(text(stateChange?.newValue, 100), text(stateChange?.oldValue, 100)) : null,
      type: eventType,
      at,
      actor: displayName(revisedBy?.displayName ?? revisedBy?.name),
      alertIds,
      ...(workItemId !== undefined ? { ref: { field: 'workItemId', value: String(workItemId) } } : {}),
    },
  };
}

export function parseToolEvent(kind: string, body: unknown): Parsed {
  switch (kind) {
    case 'pagerduty':
      return parsePagerDuty(body);
    case 'opsgenie':
    case 'jsm':
      return parseAlertAction(body);
    case 'servicenow':
      return parseServiceNow(body);
    case 'azure-devops':
      return parseAzureDevOps(body);
    default:
      return { ok: false, reason: `no inbound events for ${kind}` };
  }
}
