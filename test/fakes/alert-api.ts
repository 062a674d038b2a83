/**
 * Fake of the Opsgenie alert contract, spoken by Opsgenie's Alert API (root `/v2/alerts`) and by
 * Jira Service Management Operations' integration API (root `/jsm/ops/integration/v2/alerts`),
 * which kept Opsgenie's requests and answers. Validated against Opsgenie's Swagger fragments
 * (paths/definitions/parameters alert.yaml) plus the documented limits (message ≤ 130, alias ≤ 512, description ≤ 15000,
 * note ≤ 25000, priority P1..P5) and `Authorization: GenieKey <key>`. Answers like Opsgenie:
 * every accepted action is asynchronous — 202 `{result, took, requestId}` — and its real outcome
 * is only visible in the request status (GET /v2/alerts/requests/{id}). Keeps alerts by alias:
 * create on an open alias deduplicates (count + 1), on a closed one opens a new alert.
 *
 * Fake policy: an action addressed by alias without `?identifierType=alias` is looked up as an id
 * by Opsgenie and silently fails; the fake records it as a violation so tests catch it.
 */
import { randomUUID } from 'node:crypto';
import { FakeVendor, contentTypeIs, type FakeReply, type RecordedRequest } from './fake-server.js';
import { loadOpsgenie, matchOperation, validateOperation } from './spec.js';

export interface GenieAlert {
  id: string;
  alias: string;
  message: string;
  description?: string;
  priority: string;
  status: 'open' | 'closed';
  acknowledged: boolean;
  count: number;
  notes: string[];
  tags: string[];
}

const spec = loadOpsgenie();
const LIMITS: Record<string, number> = { message: 130, alias: 512, description: 15000, note: 25000 };

export class AlertApiFake extends FakeVendor {
  /** Alerts in creation order (a closed alias may reappear as a new alert). */
  readonly alerts: GenieAlert[] = [];
  readonly requestStatus = new Map<string, { action: string; isSuccess: boolean; status: string; alias?: string }>();

  /**
   * `pathPrefix` is where the product mounts the contract's `/v2/alerts` ('' for Opsgenie,
   * '/jsm/ops/integration' for JSM); requests outside it are unknown paths (404).
   */
  constructor(
    readonly apiKey: string,
    readonly pathPrefix = '',
  ) {
    super();
  }

  byAlias(alias: string): GenieAlert | undefined {
    return [...this.alerts].reverse().find((a) => a.alias === alias);
  }

  protected violationReply(errors: string[]): FakeReply {
    // Opsgenie: an unreadable body is a 400, a readable one that breaks the model a 422.
    if (errors.some((e) => /Content-Type|not JSON/.test(e))) {
      return { status: 400, body: { message: 'Could not parse request body', took: 0.001, requestId: randomUUID() } };
    }
    return { status: 422, body: { message: `Request body is not processable. ${errors.join('; ')}`, took: 0.001, requestId: randomUUID() } };
  }

  private accepted(action: string, isSuccess: boolean, status: string, alias?: string): FakeReply {
    const requestId = randomUUID();
    this.requestStatus.set(requestId, { action, isSuccess, status, alias });
    return { status: 202, body: { result: 'Request will be processed', took: 0.012, requestId } };
  }

  protected handle(r: RecordedRequest): FakeReply {
    const auth = r.headers.authorization;
    if (typeof auth !== 'string' || auth !== `GenieKey ${this.apiKey}`) {
      return { status: 401, body: { message: 'Could not authenticate', took: 0.0, requestId: randomUUID() } };
    }
    const inContract = r.path.startsWith(`${this.pathPrefix}/`);
    const m = inContract ? matchOperation(spec, r.method, r.path.slice(this.pathPrefix.length)) : null;
    if (!m) return { status: 404, body: { message: 'No handler found', took: 0, requestId: randomUUID() } };
    if (r.method === 'POST' && r.body !== '' && !contentTypeIs(r, 'application/json')) return this.violate(r, ['Content-Type must be application/json']);
    if (r.body !== '' && r.json === undefined) return this.violate(r, ['body is not JSON']);
    const errors = validateOperation(spec, m, r.query, r.json);
    const body = (r.json ?? {}) as Record<string, unknown>;
    for (const [k, max] of Object.entries(LIMITS)) {
      if (typeof body[k] === 'string' && (body[k] as string).length > max) errors.push(`${k} longer than ${max}`);
    }
    if (m.pathParams.identifier !== undefined && r.query.get('identifierType') !== 'alias') {
      errors.push('identifier is an alias but identifierType=alias is missing (Opsgenie would look it up as an id)');
    }
    if (errors.length) return this.violate(r, errors);

    const op = m.operation.operationId as string;
    if (op === 'getRequestStatus') {
      const s = this.requestStatus.get(m.pathParams.requestId!);
      if (!s) return { status: 404, body: { message: 'Request not found', took: 0, requestId: randomUUID() } };
      return { status: 200, body: { data: { success: s.isSuccess, isSuccess: s.isSuccess, action: s.action, status: s.status, alias: s.alias }, took: 0.01, requestId: randomUUID() } };
    }
    if (op === 'createAlert') {
      const alias = (body.alias as string | undefined) ?? randomUUID();
      const open = this.byAlias(alias);
      if (open && open.status === 'open') {
        open.count += 1;
        return this.accepted('Create', true, 'Alert deduplicated', alias);
      }
      this.alerts.push({
        id: randomUUID(),
        alias,
        message: body.message as string,
        description: body.description as string | undefined,
        priority: (body.priority as string | undefined) ?? 'P3',
        status: 'open',
        acknowledged: false,
        count: 1,
        notes: [],
        tags: (body.tags as string[] | undefined) ?? [],
      });
      return this.accepted('Create', true, 'Alert created', alias);
    }
    const alert = this.byAlias(m.pathParams.identifier!);
    const action = op.replace(/Alert$/, '');
    if (!alert) return this.accepted(action, false, 'Alert does not exist', m.pathParams.identifier);
    const note = body.note as string | undefined;
    switch (op) {
      case 'acknowledgeAlert':
        alert.acknowledged = true;
        break;
      case 'closeAlert':
        alert.status = 'closed';
        break;
      case 'addNote':
        break;
      default:
        return { status: 404, body: { message: `fake does not implement ${op}`, took: 0, requestId: randomUUID() } };
    }
    if (note) alert.notes.push(note);
    return this.accepted(action, true, `${action} processed`, alert.alias);
  }
}
