/**
 * ServiceNow Table API fake for the incident table. ServiceNow publishes no machine-readable
 * description (so there is no contract file for it, see docs/contracts.md); this follows the
 * product documentation: POST /api/now/table/incident → 201 `{result}`,
 * PATCH /api/now/table/incident/{sys_id} → 200 `{result}`, GET with sysparm_query → 200
 * `{result: [...]}`, basic auth, error body `{error: {message, detail}, status: "failure"}`.
 * Checked: JSON content type and body, known incident fields, choice values (state 1/2/3/6/7/8,
 * urgency/impact 1..3), and that resolving (state 6) carries close_code and close_notes — refused
 * with ServiceNow's data-policy 403 and recorded as a violation.
 *
 * Quirk: `hibernating = true` makes every answer a 200 HTML page, like a sleeping developer instance.
 */
import { randomBytes } from 'node:crypto';
import { FakeVendor, basicCredentials, contentTypeIs, type FakeReply, type RecordedRequest } from './fake-server.js';

export interface SnIncident {
  sys_id: string;
  number: string;
  state: string;
  urgency: string;
  impact: string;
  priority: string;
  active: string;
  correlation_id: string;
  correlation_display: string;
  short_description: string;
  description: string;
  close_code: string;
  close_notes: string;
  /** work_notes journal entries, oldest first. */
  work_notes: string[];
}

const FIELDS = new Set([
  'short_description', 'description', 'correlation_id', 'correlation_display', 'urgency', 'impact', 'state',
  'work_notes', 'comments', 'close_code', 'close_notes', 'caller_id', 'category', 'subcategory',
  'assignment_group', 'assigned_to', 'cmdb_ci', 'contact_type', 'priority',
]);
const STATES = new Set(['1', '2', '3', '6', '7', '8']);
const LEVELS = new Set(['1', '2', '3']);
const TABLE = '/api/now/table/incident';

export const HIBERNATION_PAGE = '<!DOCTYPE html><html><head><title>Instance Hibernating page</title></head><body><h1>Your instance is hibernating</h1><p>Sign in to wake it up.</p></body></html>';

function failure(status: number, message: string, detail: string): FakeReply {
  return { status, body: { error: { message, detail }, status: 'failure' } };
}

export class ServiceNowFake extends FakeVendor {
  readonly incidents: SnIncident[] = [];
  hibernating = false;
  private nextNumber = 10001;

  constructor(readonly username: string, readonly password: string) {
    super();
  }

  byCorrelation(id: string): SnIncident[] {
    return this.incidents.filter((i) => i.correlation_id === id);
  }

  protected violationReply(errors: string[]): FakeReply {
    return failure(400, 'Invalid request', errors.join('; '));
  }

  private checkFields(r: RecordedRequest, body: unknown): string[] {
    if (!contentTypeIs(r, 'application/json')) return ['Content-Type must be application/json'];
    if (!body || typeof body !== 'object' || Array.isArray(body)) return ['body must be a JSON object'];
    const errors: string[] = [];
    for (const [k, v] of Object.entries(body)) {
      if (!FIELDS.has(k)) errors.push(`unknown incident field ${k}`);
      else if (typeof v !== 'string' && typeof v !== 'number') errors.push(`${k} must be a string`);
    }
    const b = body as Record<string, unknown>;
    if (b.state !== undefined && !STATES.has(String(b.state))) errors.push(`state ${b.state} is not a choice`);
    for (const k of ['urgency', 'impact']) if (b[k] !== undefined && !LEVELS.has(String(b[k]))) errors.push(`${k} ${b[k]} is not a choice`);
    return errors;
  }

  private apply(inc: SnIncident, b: Record<string, unknown>): void {
    for (const [k, v] of Object.entries(b)) {
      if (k === 'work_notes') inc.work_notes.push(String(v));
      else if (k in inc) (inc as unknown as Record<string, unknown>)[k] = String(v);
    }
    inc.priority = String(Math.min(5, Number(inc.urgency) + Number(inc.impact) - 1));
    inc.active = inc.state === '6' || inc.state === '7' || inc.state === '8' ? 'false' : 'true';
  }

  private view(inc: SnIncident, fields?: string | null): Record<string, unknown> {
    const full = { ...inc, work_notes: '' } as Record<string, unknown>;
    if (!fields) return full;
    return Object.fromEntries(fields.split(',').map((f) => [f, full[f] ?? '']));
  }

  protected handle(r: RecordedRequest): FakeReply {
    if (this.hibernating) return { status: 200, headers: { 'content-type': 'text/html; charset=utf-8' }, body: HIBERNATION_PAGE };
    const cred = basicCredentials(r);
    if (!cred || cred.user !== this.username || cred.password !== this.password) {
      return failure(401, 'User Not Authenticated', 'Required to provide Auth information');
    }
    if (r.path === TABLE && r.method === 'GET') {
      const query = r.query.get('sysparm_query') ?? '';
      const conds = query.split('^').filter(Boolean).map((c) => {
        const i = c.indexOf('=');
        return i < 0 ? null : ([c.slice(0, i), c.slice(i + 1)] as const);
      });
      if (conds.some((c) => c === null)) return this.violate(r, [`unsupported sysparm_query ${query}`]);
      const limit = Number(r.query.get('sysparm_limit') ?? '10000');
      const rows = this.incidents.filter((inc) => conds.every((c) => String((inc as unknown as Record<string, unknown>)[c![0]]) === c![1]));
      return { status: 200, body: { result: rows.slice(0, limit).map((i) => this.view(i, r.query.get('sysparm_fields'))) } };
    }
    if (r.path === TABLE && r.method === 'POST') {
      const errors = this.checkFields(r, r.json);
      if (errors.length) return this.violate(r, errors);
      const inc: SnIncident = {
        sys_id: randomBytes(16).toString('hex'),
        number: `INC${String(this.nextNumber++).padStart(7, '0')}`,
        state: '1', urgency: '3', impact: '3', priority: '5', active: 'true',
        correlation_id: '', correlation_display: '', short_description: '', description: '',
        close_code: '', close_notes: '', work_notes: [],
      };
      this.apply(inc, r.json as Record<string, unknown>);
      this.incidents.push(inc);
      return { status: 201, headers: { location: `${this.url}${TABLE}/${inc.sys_id}` }, body: { result: this.view(inc) } };
    }
    const m = new RegExp(`^${TABLE}/([0-9a-f]{32})$`).exec(r.path);
    if (m && (r.method === 'PATCH' || r.method === 'PUT')) {
      const inc = this.incidents.find((i) => i.sys_id === m[1]);
      if (!inc) return failure(404, 'No Record found', "Record doesn't exist or ACL restricts the record retrieval");
      const errors = this.checkFields(r, r.json);
      if (errors.length) return this.violate(r, errors);
      const b = r.json as Record<string, unknown>;
      if (String(b.state) === '6' && (!(b.close_code ?? inc.close_code) || !(b.close_notes ?? inc.close_notes))) {
        r.violations.push('resolving without close_code and close_notes');
        return failure(403, 'Operation Failed', 'Data Policy Exception: The following fields are mandatory: Resolution code, Resolution notes');
      }
      this.apply(inc, b);
      return { status: 200, body: { result: this.view(inc) } };
    }
    return failure(400, 'Requested URI does not represent any resource', `${r.method} ${r.path}`);
  }
}
