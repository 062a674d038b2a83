/**
 * PagerDuty Events API v2 fake: POST /v2/enqueue validated against events-v2-openapiv3.json plus
 * the documented facts (routing_key 32 characters, summary ≤ 1024, dedup_key ≤ 255, payload and
 * severity required on trigger, dedup_key required on acknowledge/resolve). Keeps alerts by
 * dedup key like PagerDuty: triggered → acknowledged → resolved; a trigger on an open key
 * updates it (deduplication) and re-opens a resolved one as a new alert.
 */
import { randomUUID } from 'node:crypto';
import { FakeVendor, contentTypeIs, type FakeReply, type RecordedRequest } from './fake-server.js';
import { loadPagerDuty, matchOperation, validateOperation } from './spec.js';

export interface PdAlert {
  dedupKey: string;
  status: 'triggered' | 'acknowledged' | 'resolved';
  summary: string;
  severity: string;
  /** Every event applied to this key, in order. */
  events: Array<{ action: string; summary?: string; severity?: string }>;
  /** Number of distinct alerts created under the key (a trigger after resolve opens a new one). */
  incarnations: number;
  /** The incident the alert belongs to (its own, unless grouped into another with groupInto). */
  incidentId: string;
}

const spec = loadPagerDuty();

export class PagerDutyFake extends FakeVendor {
  readonly alerts = new Map<string, PdAlert>();
  /** Routing keys of the integrations that exist. */
  readonly routingKeys = new Set<string>();

  /** REST API keys accepted by GET /incidents/{id}/alerts and POST /webhook_subscriptions. */
  readonly restApiKeys = new Set<string>();
  /** Webhook subscriptions created through the REST API, with the secret PagerDuty generated. */
  readonly subscriptions: Array<{ id: string; url: string; events: string[]; filter: { type: string; id?: string }; secret: string }> = [];
  private incidents = 0;

  constructor(routingKey: string) {
    super();
    this.routingKeys.add(routingKey);
  }

  /** Alert grouping: the alert of `dedupKey` moves into `incidentId` (its incident_key no longer names it). */
  groupInto(incidentId: string, dedupKey: string): void {
    this.alerts.get(dedupKey)!.incidentId = incidentId;
  }

  /**
   * REST `GET /incidents/{id}/alerts` as PagerDuty documents it: `Authorization: Token token=…`,
   * `Accept: application/vnd.pagerduty+json;version=2`, answer `{ alerts: [{ id, type, alert_key,
   * status, incident }], limit, offset, more }`.
   */
  private incidentAlerts(r: RecordedRequest, incidentId: string): FakeReply {
    const key = /^Token token=(.+)$/.exec(String(r.headers.authorization ?? ''))?.[1];
    if (!key || !this.restApiKeys.has(key)) return { status: 401, body: { error: { message: 'Unauthorized', code: 2006 } } };
    if (r.headers.accept !== 'application/vnd.pagerduty+json;version=2') return this.violate(r, ['Accept must be application/vnd.pagerduty+json;version=2']);
    const alerts = [...this.alerts.values()].filter((a) => a.incidentId === incidentId);
    if (alerts.length === 0) return { status: 404, body: { error: { message: 'Not Found', code: 2100 } } };
    return {
      status: 200,
      body: {
        alerts: alerts.map((a, i) => ({ id: `A${i}${incidentId}`, type: 'alert', alert_key: a.dedupKey, status: a.status === 'resolved' ? 'resolved' : 'triggered', incident: { id: incidentId, type: 'incident_reference' } })),
        limit: 100,
        offset: 0,
        more: false,
      },
    };
  }

  protected violationReply(errors: string[]): FakeReply {
    return { status: 400, body: { status: 'invalid event', message: 'Event object is invalid', errors } };
  }

  /**
   * REST `POST /webhook_subscriptions` as documented: `{ webhook_subscription: { type, delivery_method
   * { type: http_delivery_method, url }, events (non-empty, unique), filter { type, id unless
   * account_reference } } }`; the answer carries `delivery_method.secret` (only in this answer).
   */
  private createSubscription(r: RecordedRequest): FakeReply {
    const key = /^Token token=(.+)$/.exec(String(r.headers.authorization ?? ''))?.[1];
    if (!key || !this.restApiKeys.has(key)) return { status: 401, body: { error: { message: 'Unauthorized', code: 2006 } } };
    const errors: string[] = [];
    if (r.headers.accept !== 'application/vnd.pagerduty+json;version=2') errors.push('Accept must be application/vnd.pagerduty+json;version=2');
    if (!contentTypeIs(r, 'application/json')) errors.push('Content-Type must be application/json');
    const w = (r.json as any)?.webhook_subscription;
    if (w?.type !== 'webhook_subscription') errors.push('webhook_subscription.type must be webhook_subscription');
    if (w?.delivery_method?.type !== 'http_delivery_method' || typeof w?.delivery_method?.url !== 'string' || !w.delivery_method.url.startsWith('https://')) errors.push('delivery_method: http_delivery_method with an https url');
    if (!Array.isArray(w?.events) || w.events.length === 0 || new Set(w.events).size !== w.events.length) errors.push('events: a non-empty list of unique event types');
    const filterTypes = ['service_reference', 'team_reference', 'account_reference'];
    if (!filterTypes.includes(w?.filter?.type) || (w.filter.type !== 'account_reference' && typeof w.filter.id !== 'string')) errors.push('filter: type and id (except account_reference)');
    if (errors.length) return this.violate(r, errors);
    const sub = { id: `PSUB${this.subscriptions.length + 1}`, url: w.delivery_method.url, events: w.events, filter: w.filter, secret: randomUUID().replace(/-/g, '') + randomUUID().replace(/-/g, '') };
    this.subscriptions.push(sub);
    return {
      status: 200,
      body: {
        webhook_subscription: {
          id: sub.id,
          type: 'webhook_subscription',
          active: true,
          description: w.description ?? null,
          delivery_method: { id: `PDM${sub.id}`, type: 'http_delivery_method', url: sub.url, secret: sub.secret, custom_headers: [], temporarily_disabled: false },
          events: sub.events,
          filter: sub.filter,
        },
      },
    };
  }

  protected handle(r: RecordedRequest): FakeReply {
    if (r.method === 'POST' && r.path === '/webhook_subscriptions') return this.createSubscription(r);
    const incident = r.method === 'GET' ? /^\/incidents\/([^/]+)\/alerts$/.exec(r.path) : null;
    if (incident) return this.incidentAlerts(r, decodeURIComponent(incident[1]!));
    const m = matchOperation(spec, r.method, r.path);
    if (!m) return this.violate(r, [`no operation ${r.method} ${r.path}`]);
    if (!contentTypeIs(r, 'application/json')) return this.violate(r, ['Content-Type must be application/json']);
    if (r.json === undefined) return this.violate(r, ['body is not JSON']);
    const errors = validateOperation(spec, m, r.query, r.json);
    const e = r.json as Record<string, any>;
    if (typeof e.routing_key === 'string' && e.routing_key.length !== 32) errors.push('routing_key must be 32 characters');
    if (typeof e.dedup_key === 'string' && e.dedup_key.length > 255) errors.push('dedup_key longer than 255');
    if (e.event_action === 'trigger') {
      if (!e.payload) errors.push('payload: required for trigger');
      else if (typeof e.payload.summary === 'string' && e.payload.summary.length > 1024) errors.push('payload.summary longer than 1024');
    } else if (e.event_action && typeof e.dedup_key !== 'string') errors.push(`dedup_key: required for ${e.event_action}`);
    if (errors.length) return this.violate(r, errors);
    // A well-formed event for an unknown integration: PagerDuty refuses it (not a spec violation).
    if (!this.routingKeys.has(e.routing_key)) {
      return { status: 400, body: { status: 'invalid event', message: 'Event object is invalid', errors: ['Invalid routing key'] } };
    }
    const key: string = e.dedup_key ?? randomUUID().replace(/-/g, '');
    const existing = this.alerts.get(key);
    switch (e.event_action) {
      case 'trigger': {
        if (!existing || existing.status === 'resolved') {
          const a: PdAlert = {
            dedupKey: key,
            status: 'triggered',
            summary: e.payload.summary,
            severity: e.payload.severity,
            events: [],
            incarnations: (existing?.incarnations ?? 0) + 1,
            incidentId: `Q${String(++this.incidents).padStart(6, '0')}`,
          };
          this.alerts.set(key, a);
        } else {
          existing.summary = e.payload.summary;
          existing.severity = e.payload.severity;
        }
        this.alerts.get(key)!.events.push({ action: 'trigger', summary: e.payload.summary, severity: e.payload.severity });
        break;
      }
      case 'acknowledge':
        if (existing && existing.status === 'triggered') existing.status = 'acknowledged';
        existing?.events.push({ action: 'acknowledge' });
        break;
      case 'resolve':
        if (existing) existing.status = 'resolved';
        existing?.events.push({ action: 'resolve' });
        break;
    }
    return { status: 202, body: { status: 'success', message: 'Event processed', dedup_key: key } };
  }
}
